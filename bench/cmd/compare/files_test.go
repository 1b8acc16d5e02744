package main

import (
	"os"
	"strings"
	"testing"
	"unicode"

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

// TestNotesTopics fails when bench/NOTES.md loses one of its topic sections, or when its
// table of contents links to a heading it does not have or leaves a section out.
func TestNotesTopics(t *testing.T) {
	b, err := os.ReadFile("../../NOTES.md")
	require.NoError(t, err)
	text := string(b)
	anchors := map[string]bool{}
	var sections []string
	for _, line := range strings.Split(text, "\n") {
		level := len(line) - len(strings.TrimLeft(line, "#"))
		if level == 0 || !strings.HasPrefix(line[level:], " ") {
			continue
		}
		title := strings.TrimSpace(line[level:])
		anchors[slug(title)] = true
		if level == 2 {
			sections = append(sections, title)
		}
	}
	for _, topic := range []string{"How to reproduce, and the machines", "Restore", "Backup", "Scale",
		"Object storage", "Webhook", "Readiness", "Archive", "Manifest", "Versionselect", "Convert"} {
		require.Contains(t, sections, topic, "bench/NOTES.md has a section per topic")
	}
	toc, _, ok := strings.Cut(text, "\n## How to reproduce")
	require.True(t, ok)
	for _, s := range sections {
		if s != "Contents" {
			require.Contains(t, toc, "](#"+slug(s)+")", "the table of contents lists section %q", s)
		}
	}
	for rest := text; ; {
		_, after, found := strings.Cut(rest, "](#")
		if !found {
			break
		}
		anchor, _, _ := strings.Cut(after, ")")
		require.True(t, anchors[anchor], "link to #%s: no such heading in bench/NOTES.md", anchor)
		rest = after
	}
}

// slug is the anchor GitHub gives a Markdown heading: lower case, spaces as hyphens, every
// character but letters, digits, hyphens and underscores dropped.
func slug(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
