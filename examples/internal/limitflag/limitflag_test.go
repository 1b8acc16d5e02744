package limitflag

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/backupkit/backupkit/archive"
)

func TestAdd(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want archive.Limits
	}{
		{nil, archive.Limits{}},
		{[]string{"--max-items", "2000000"}, archive.Limits{MaxItems: 2_000_000}},
		{[]string{"--max-entries=5", "--max-entry-bytes=6", "--max-total-bytes=7", "--max-path-len=8"},
			archive.Limits{MaxEntries: 5, MaxEntryBytes: 6, MaxTotalBytes: 7, MaxPathLen: 8}},
	} {
		var l archive.Limits
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		Add(fs, &l)
		require.NoError(t, fs.Parse(tc.args))
		require.Equal(t, tc.want, l, tc.args)
	}
}

// TestExplain: a crossed limit names the flag of its field, for every field Add defines;
// other errors pass unchanged.
func TestExplain(t *testing.T) {
	var l archive.Limits
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	Add(fs, &l)
	for field, name := range flags {
		require.NotNil(t, fs.Lookup(name), field)
		inner := &archive.LimitError{Field: field, Limit: 3, Detail: "more"}
		err := Explain(fmt.Errorf("reading x: %w", &archive.Error{Entry: "e", Err: inner}))
		require.ErrorIs(t, err, archive.ErrLimitExceeded)
		require.ErrorContains(t, err, "raise it with --"+name)
	}
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	require.Equal(t, n, len(flags), "a flag of Add that Explain does not name")
	other := errors.New("other")
	require.Equal(t, other, Explain(other))
	require.NoError(t, Explain(nil))
	unknown := &archive.LimitError{Field: "MaxSomething"}
	require.Equal(t, error(unknown), Explain(unknown))
}
