package archive_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/internal/archiveopt"
)

func TestScanWithoutDuplicateCheck(t *testing.T) {
	cm := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"ns","uid":"u-a"}}`
	repeated := tgz(t, file("resources/configmaps/namespaces/ns/a.json", cm), file("resources/configmaps/namespaces/ns/a.json", cm))
	fileThenDir := tgz(t, file("resources/configmaps/namespaces/ns", "x"), file("resources/configmaps/namespaces/ns/a.json", cm))
	tests := map[string]struct {
		data       []byte
		wantErr    string // without the option
		wantVisits []string
	}{
		"a repeated entry": {
			data:       repeated,
			wantErr:    `archive: scan "resources/configmaps/namespaces/ns/a.json": insecure path: duplicate entry "resources/configmaps/namespaces/ns/a.json"`,
			wantVisits: []string{"resources/configmaps/namespaces/ns/a.json", "resources/configmaps/namespaces/ns/a.json"},
		},
		"a file that is a parent": {
			data:       fileThenDir,
			wantErr:    `archive: scan "resources/configmaps/namespaces/ns/a.json": insecure path: parent "resources/configmaps/namespaces/ns" is a file`,
			wantVisits: []string{"resources/configmaps/namespaces/ns/a.json"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := archive.Scan(context.Background(), bytes.NewReader(tc.data))
			require.ErrorIs(t, err, archive.ErrInsecurePath)
			require.EqualError(t, err, tc.wantErr)

			var visits []string
			_, err = archive.Scan(context.Background(), bytes.NewReader(tc.data), archiveopt.WithoutDuplicateCheck(),
				archive.WithVisitor(func(it *archive.Item) error { visits = append(visits, it.Path); return nil }))
			require.NoError(t, err)
			require.Equal(t, tc.wantVisits, visits)

			err = archive.Extract(context.Background(), bytes.NewReader(tc.data), t.TempDir(), archiveopt.WithoutDuplicateCheck())
			require.ErrorIs(t, err, archive.ErrInsecurePath, "Extract always checks")
		})
	}
	t.Run("the other limits hold", func(t *testing.T) {
		_, err := archive.Scan(context.Background(), bytes.NewReader(repeated), archiveopt.WithoutDuplicateCheck(),
			archive.WithLimits(archive.Limits{MaxItems: 1}))
		require.ErrorIs(t, err, archive.ErrLimitExceeded)
	})
}
