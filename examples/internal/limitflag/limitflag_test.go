package limitflag

import (
	"flag"
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
