package backup

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// rawPage.item gives the object the dynamic client would (apiVersion and kind from the
// list when the item has neither) and the bytes written: the item as sent, with apiVersion
// and kind put first when they were set.
func TestRawPageObject(t *testing.T) {
	for _, tc := range []struct {
		name, list, item, want string
		kind                   string // of the object decoded
	}{
		{"built-in: set from the list", "SecretList", `{"metadata":{"name":"a"},"data":{"k":"dg=="}}`,
			`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"a"},"data":{"k":"dg=="}}`, "Secret"},
		{"custom resource: as sent", "GadgetList", `{"apiVersion":"shop.example.com/v1","kind":"Gadget","metadata":{"name":"a"}}`,
			`{"apiVersion":"shop.example.com/v1","kind":"Gadget","metadata":{"name":"a"}}`, "Gadget"},
		{"kind alone: as sent", "GadgetList", `{"kind":"Other","metadata":{"name":"a"}}`, `{"kind":"Other","metadata":{"name":"a"}}`, "Other"},
		{"empty object", "SecretList", `{}`, `{"apiVersion":"v1","kind":"Secret"}`, "Secret"},
		{"spaces", "SecretList", "{ \n\"metadata\" : {} }", "{\"apiVersion\":\"v1\",\"kind\":\"Secret\", \n\"metadata\" : {} }", "Secret"},
		{"spaces, empty", "SecretList", "{ \t}", "{\"apiVersion\":\"v1\",\"kind\":\"Secret\" \t}", "Secret"},
		{"a list kind without List", "Things", `{}`, `{"apiVersion":"v1","kind":"Things"}`, "Things"},
		{"quoted", `Odd"List`, `{}`, `{"apiVersion":"v1","kind":"Odd\""}`, `Odd"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := decodeRawPage([]byte(`{"apiVersion":"v1","kind":` + quote(tc.list) + `,"metadata":{},"items":[` + tc.item + `]}`))
			require.NoError(t, err)
			buf := bytes.NewBufferString("left from the object before")
			it, err := p.item(0, buf)
			require.NoError(t, err)
			require.Equal(t, tc.want, buf.String())
			require.Equal(t, tc.kind, it.head.Kind)
			u, err := it.object()
			require.NoError(t, err)
			require.Equal(t, tc.kind, u.GetKind())
			// What is written decodes to the object Run decided on.
			var back unstructured.Unstructured
			require.NoError(t, back.UnmarshalJSON(buf.Bytes()))
			require.Equal(t, u.Object, back.Object)
		})
	}
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }

// A body that does not parse is the error the dynamic client gives (encoding/json's, which
// readiness.Transient retries); encoding/json's meaning holds for names.
func TestDecodeRawPage(t *testing.T) {
	_, err := decodeRawPage([]byte(`{"items":[{"metadata":`))
	require.Error(t, err)
	require.True(t, retryable(err), "%v", err)

	p, err := decodeRawPage([]byte(`{"Kind":"SecretList","METADATA":{"continue":"c","remainingItemCount":3},"items":[{}],"items":[{},{}]}`))
	require.NoError(t, err)
	require.Equal(t, "SecretList", p.Kind)
	require.Equal(t, "c", p.Metadata.Continue)
	require.Equal(t, int64(3), *p.Metadata.RemainingItemCount)
	require.Len(t, p.Items, 2)
}

// listServer serves ConfigMaps of namespace "ns" in pages of the limit asked, from the
// continue token (the index of the next one), after answering the first requests with
// faults.
func listServer(t *testing.T, names []string, faults []func(http.ResponseWriter)) (*httptest.Server, func() []string) {
	var (
		mu      sync.Mutex
		queries []string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if r.URL.Path != "/api/v1/namespaces/ns/configmaps" {
			http.NotFound(w, r)
			return
		}
		queries = append(queries, r.URL.RawQuery)
		if len(faults) > 0 {
			f := faults[0]
			faults = faults[1:]
			f(w)
			return
		}
		q := r.URL.Query()
		from := 0
		if c := q.Get("continue"); c != "" {
			from = int(c[0] - '0')
		}
		limit := int(q.Get("limit")[0] - '0')
		to := min(from+limit, len(names))
		var items []string
		for _, n := range names[from:to] {
			items = append(items, `{"metadata":{"name":"`+n+`","namespace":"ns","labels":{"app":"x"}}}`)
		}
		meta := `{}`
		if to < len(names) {
			meta = `{"continue":"` + string(rune('0'+to)) + `","remainingItemCount":` + string(rune('0'+len(names)-to)) + `}`
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"kind":"ConfigMapList","apiVersion":"v1","metadata":` + meta + `,"items":[` + strings.Join(items, ",") + `]}`))
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string { mu.Lock(); defer mu.Unlock(); return slices.Clone(queries) }
}

func rawClient(t *testing.T, host string) rest.Interface {
	rc := dynamic.ConfigFor(&rest.Config{Host: host})
	rc.ContentType, rc.AcceptContentTypes = "application/json", "application/json"
	c, err := rest.UnversionedRESTClientFor(rc)
	require.NoError(t, err)
	return c
}

// A listing through a REST client pages with limit and continue, sends the label selector,
// retries what is transient, reports each page, and hands fn each object with the bytes
// to write.
func TestRunRaw(t *testing.T) {
	status := func(code int, body string) func(http.ResponseWriter) {
		return func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(code)
			_, _ = w.Write([]byte(body))
		}
	}
	corrupt := func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"kind":"ConfigMapList","items":[{"meta`))
	}
	forbidden := status(403, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","code":403,"message":"no"}`)
	for _, tc := range []struct {
		name    string
		faults  []func(http.ResponseWriter)
		stopAt  string // fn fails on this object
		names   []string
		pages   []page
		queries int
		wantErr func(error) bool
	}{
		{"three pages", nil, "", []string{"a", "b", "c", "d", "e"},
			[]page{{n: 2, objects: 2, files: 2, expected: 5}, {n: 2, objects: 2, files: 2}, {n: 1, objects: 1, files: 1}}, 3, nil},
		{"empty", nil, "", nil, []page{{}}, 1, nil},
		{"corrupt body and 503 retried", []func(http.ResponseWriter){corrupt, status(503, `{}`)}, "", []string{"a"},
			[]page{{n: 1, objects: 1, files: 1, expected: 1}}, 3, nil},
		{"forbidden", []func(http.ResponseWriter){forbidden}, "", []string{"a"}, nil, 1, apierrors.IsForbidden},
		{"fn fails mid-page", nil, "c", []string{"a", "b", "c", "d", "e"},
			[]page{{n: 2, objects: 2, files: 2, expected: 5}, {n: 2}}, -1, func(err error) bool { return err.Error() == "stop" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, queries := listServer(t, tc.names, tc.faults)
			cfg := &runConfig{backoff: wait.Backoff{Duration: time.Millisecond, Steps: 3}, sleep: sleepCtx}
			var got []page
			var names []string
			l := &listing{raw: rawClient(t, srv.URL), r: Resource{Name: "configmaps", Resource: "configmaps", Namespaced: true, Versions: []string{"v1"}},
				v: "v1", ns: "ns", selector: "app=x", pageSize: 2, retry: cfg.retry,
				fn: func(it *item, data []byte) (bool, error) {
					if it.name() == tc.stopAt {
						return false, errors.New("stop")
					}
					names = append(names, it.name())
					require.Equal(t, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"`+it.name()+`","namespace":"ns","labels":{"app":"x"}}}`, string(data))
					return true, nil
				},
				pageDone: func(n int, p page) {
					require.Equal(t, len(got)+1, n)
					p.left = 0
					got = append(got, p)
				},
			}
			err := l.run(context.Background())
			if tc.wantErr != nil {
				require.True(t, tc.wantErr(err), "%v", err)
			} else {
				require.NoError(t, err)
				require.Equal(t, tc.names, names)
			}
			for i := range tc.pages {
				tc.pages[i].left = 0
			}
			if tc.queries >= 0 {
				require.Equal(t, tc.pages, got)
			} else { // cut short: the page fetched after the one cut, when it was, is reported empty
				require.Equal(t, tc.pages, got[:len(tc.pages)])
				for _, p := range got[len(tc.pages):] {
					require.Equal(t, page{n: 1}, p)
				}
			}
			qs := queries()
			if tc.queries >= 0 {
				require.Len(t, qs, tc.queries)
			}
			require.Contains(t, qs[0], "labelSelector=app%3Dx")
			require.Contains(t, qs[0], "limit=2")
		})
	}
}
