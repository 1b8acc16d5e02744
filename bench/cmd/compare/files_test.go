package main

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestResultsGenerated fails when bench/RESULTS.md is not what this command writes: it
// must open with the generated header and carry no hand-written section (those live in
// bench/NOTES.md).
func TestResultsGenerated(t *testing.T) {
	b, err := os.ReadFile("../../RESULTS.md")
	require.NoError(t, err)
	text := string(b)
	require.True(t, strings.HasPrefix(text, resultsHeader), "bench/RESULTS.md must start with the header bench/cmd/compare writes:\n%s", resultsHeader)
	require.NotContains(t, text, "hand-written", "bench/RESULTS.md holds only generated output; notes go in bench/NOTES.md")
}
