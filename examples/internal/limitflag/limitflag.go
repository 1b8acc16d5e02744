// Package limitflag gives the example programs that read backups one flag per field of
// archive.Limits, so that every limit a backup is read with can be raised from the
// command line (the error of a limit hit names the field).
package limitflag

import (
	"errors"
	"flag"
	"fmt"

	"github.com/backupkit/backupkit/archive"
)

// Add defines --max-items, --max-entries, --max-entry-bytes, --max-total-bytes and
// --max-path-len on fs, read into l; a flag left at 0 keeps archive.DefaultLimits' value.
func Add(fs *flag.FlagSet, l *archive.Limits) {
	fs.IntVar(&l.MaxItems, flags["MaxItems"], 0, "most objects the backup may hold; 0: archive.DefaultLimits' (raising it raises the tar entries and the stored manifest's size allowed with it)")
	fs.IntVar(&l.MaxEntries, flags["MaxEntries"], 0, "most tar entries the backup may hold; 0: what --max-items allows")
	fs.Int64Var(&l.MaxEntryBytes, flags["MaxEntryBytes"], 0, "largest decompressed entry; 0: archive.DefaultLimits'")
	fs.Int64Var(&l.MaxTotalBytes, flags["MaxTotalBytes"], 0, "most decompressed bytes in all; 0: archive.DefaultLimits'")
	fs.IntVar(&l.MaxPathLen, flags["MaxPathLen"], 0, "longest entry name; 0: archive.DefaultLimits'")
}

// flags names the flag Add defines for each field of archive.Limits (without its dashes).
var flags = map[string]string{
	"MaxItems":      "max-items",
	"MaxEntries":    "max-entries",
	"MaxEntryBytes": "max-entry-bytes",
	"MaxTotalBytes": "max-total-bytes",
	"MaxPathLen":    "max-path-len",
}

// Explain returns err with the flag that raises the limit it crossed, when it wraps an
// *archive.LimitError (the Go option alone means nothing to a user of the program); any
// other err, nil included, is returned as it is.
func Explain(err error) error {
	var le *archive.LimitError
	if !errors.As(err, &le) {
		return err
	}
	name, ok := flags[le.Field]
	if !ok {
		return err
	}
	return fmt.Errorf("%w; raise it with --%s", err, name)
}
