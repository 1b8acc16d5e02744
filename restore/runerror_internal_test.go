package restore

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	"github.com/backupkit/backupkit/manifest"
)

// errStore stands for an object store's read error, after its retries.
var errStore = errors.New("store: reading backups/b/b.tar.gz: connection reset")

// Run's error names the cause the failed items share, when they share one, and wraps it;
// items that failed for different causes leave the error as it was.
func TestRunErrorNamesTheCommonCause(t *testing.T) {
	b, _, _ := streamBackup(t, 20)
	const name = "backups/b/b.tar.gz in s3://bucket"
	storeFails := func() Source { // the plan's read whole, the second pass cut by errStore
		return namedSource(name, b, func(b []byte) io.Reader {
			return &failAfter{r: bytes.NewReader(b), n: len(b) / 2, err: fmt.Errorf("after 3 retries: %w", errStore)}
		})
	}
	whole := func() Source { return FromBytes(b) }
	errQuotaA, errQuotaB := errors.New("quota A exceeded"), errors.New("quota B exceeded")
	failCreates := func(byName map[string]error) func(k8stesting.Action) (bool, runtime.Object, error) {
		return func(a k8stesting.Action) (bool, runtime.Object, error) {
			obj, _ := a.(k8stesting.CreateAction).GetObject().(*unstructured.Unstructured)
			if err, ok := byName[obj.GetName()]; ok {
				return true, nil, err
			}
			return false, nil, nil
		}
	}
	tests := []struct {
		name    string
		src     func() Source
		creates map[string]error // create of these ConfigMaps fails
		opts    []RunOption
		prefix  string // of Run's error
		cause   error  // every failed item's; nil: none named
		clause  string // what Run's error says after "every failed item: " (a prefix)
	}{
		{"the second pass fails", storeFails, nil, nil,
			"restore: 10 of 20 items not restored: manifest: walk: 10 items failed, 0 skipped", errStore, name + `: archive: scan "resources/`},
		{"the second pass fails, dry run", storeFails, nil, []RunOption{WithDryRun(true)},
			"restore: dry run: 10 of 20 items would not be restored: manifest: walk: 10 items failed, 0 skipped", errStore, name + `: archive: scan "resources/`},
		{"one item fails", whole, map[string]error{"cm-003": errQuotaA}, nil,
			"restore: 1 of 20 items not restored: manifest: walk: 1 items failed, 0 skipped", errQuotaA,
			"creating resources/configmaps/namespaces/ns/cm-003.json after 1 attempts: quota A exceeded"},
		{"two causes", whole, map[string]error{"cm-003": errQuotaA, "cm-007": errQuotaB}, nil,
			"restore: 2 of 20 items not restored: manifest: walk: 2 items failed, 0 skipped", nil, ""},
		{"the second pass fails and an item's create", storeFails, map[string]error{"cm-000": errQuotaA}, nil,
			"restore: 11 of 20 items not restored: manifest: walk: 11 items failed, 0 skipped", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan, err := NewPlan(t.Context(), tt.src(), []metav1.APIGroup{group("", "v1", "v1")})
			require.NoError(t, err)
			c, dyn := fakeCluster(t)
			dyn.PrependReactor("create", "configmaps", failCreates(tt.creates))
			_, events, err := runEvents(t, plan, c, tt.opts...)
			require.Error(t, err)
			failed := 0
			for _, ev := range events {
				if ev.Result == ResultFailed {
					failed++
				}
			}
			require.Positive(t, failed)
			if tt.cause == nil {
				require.EqualError(t, err, tt.prefix)
				return
			}
			require.True(t, strings.HasPrefix(err.Error(), tt.prefix+": every failed item: "+tt.clause), err.Error())
			require.True(t, strings.HasSuffix(err.Error(), tt.cause.Error()), err.Error())
			require.ErrorIs(t, err, tt.cause)
			require.ErrorAs(t, err, new(*manifest.WalkError))
		})
	}
}
