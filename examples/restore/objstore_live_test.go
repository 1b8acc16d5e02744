package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/backupkit/backupkit/archive/archivetest"
	"github.com/backupkit/backupkit/backupstore"
	"github.com/backupkit/backupkit/internal/faultproxy"
	"github.com/backupkit/backupkit/internal/s3server"
	"github.com/backupkit/backupkit/restore"
)

const s3Bucket = "backups"

// uploadBackup writes objs as a backup named name, with its sibling, into the store at
// bucketURL under prefix.
func uploadBackup(t *testing.T, bucketURL, prefix, name string, objs []*unstructured.Unstructured) {
	t.Helper()
	s, err := backupstore.Open(t.Context(), bucketURL, backupstore.WithPrefix(prefix))
	require.NoError(t, err)
	defer s.Close()
	w, err := s.NewBackupWriter(t.Context(), name)
	require.NoError(t, err)
	defer w.Abort()
	aw, err := archivetest.WriteObjects(w, func(kind string) string { return resourceOf[kind] }, objs...)
	require.NoError(t, err)
	require.NoError(t, w.Commit(aw.WriteSibling))
}

// configMaps are n ConfigMaps in ns with a value each that does not compress (a backup of
// 120 is over 100 kB).
func configMaps(ns string, n int) []*unstructured.Unstructured {
	rng := rand.New(rand.NewPCG(1, 2))
	var objs []*unstructured.Unstructured
	for k := range n {
		b := make([]byte, 1000)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		objs = append(objs, configMap(ns, fmt.Sprintf("cm-%03d", k), hex.EncodeToString(b)))
	}
	return objs
}

// requireRestored checks that the namespace holds each of objs once, with its data.
func requireRestored(t *testing.T, client dynamic.Interface, ns string, objs []*unstructured.Unstructured) {
	t.Helper()
	list, err := client.Resource(configMapsGVR).Namespace(ns).List(t.Context(), metav1.ListOptions{})
	require.NoError(t, err)
	got := map[string]any{}
	for _, u := range list.Items {
		if u.GetName() != "kube-root-ca.crt" {
			got[u.GetName()] = u.Object["data"]
		}
	}
	require.Len(t, got, len(objs))
	for _, o := range objs {
		require.Equal(t, o.Object["data"], got[o.GetName()], o.GetName())
	}
}

// A backup in object storage, on a real S3 server (versitygw) and in a directory through
// file://, restores into the cluster from its URL; on S3 also through a proxy that cuts
// every download of the tarball mid-way, each object created once all the same.
func TestLiveRestoreFromObjectStore(t *testing.T) {
	c := env.Cluster(t)
	srv := s3server.ForTest(t, s3Bucket)
	srv.SetEnv(t)
	client, err := dynamic.NewForConfig(c.RESTConfig())
	require.NoError(t, err)
	kubeconfig := writeKubeconfig(t, c.RESTConfig())
	cut := s3server.NewCutProxy(t, srv.Endpoint, func(method string, _ int) int {
		if method == http.MethodGet {
			return 20000
		}
		return -1
	})
	dir := t.TempDir()
	for _, tc := range []struct {
		name, bucketURL, backupURL string
	}{
		{"s3", srv.BucketURL(s3Bucket, ""), withPath(srv.BucketURL(s3Bucket, ""), "/velero/nightly")},
		{"s3 cut", srv.BucketURL(s3Bucket, ""), withPath(srv.BucketURL(s3Bucket, cut.URL), "/velero/nightly")},
		{"file", "file://" + filepath.ToSlash(dir), "file://" + filepath.ToSlash(dir) + "/nightly"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ns := c.Namespace(t)
			objs := configMaps(ns, 120)
			prefix := ""
			if strings.HasPrefix(tc.bucketURL, "s3:") {
				prefix = "velero"
			}
			// Each case its own backup name would be cleaner; one name, overwritten, keeps
			// the URLs as a user writes them.
			s, err := backupstore.Open(t.Context(), tc.bucketURL, backupstore.WithPrefix(prefix))
			require.NoError(t, err)
			_ = s.Bucket().Delete(t.Context(), s.TarballKey("nightly"))
			_ = s.Bucket().Delete(t.Context(), s.SiblingKey("nightly"))
			require.NoError(t, s.Close())
			uploadBackup(t, tc.bucketURL, prefix, "nightly", objs)
			before := cut.Cuts()

			code, rep, stderr := restoreJSON(t, "--kubeconfig", kubeconfig, "--backup", tc.backupURL)
			require.Equal(t, 0, code, stderr)
			require.Equal(t, map[restore.Result]int{restore.ResultCreated: len(objs)}, rep.Counts, stderr)
			requireRestored(t, client, ns, objs)
			if tc.name == "s3 cut" {
				require.Greater(t, cut.Cuts(), before, "no download was cut")
			}
		})
	}
}

// withPath is the bucket URL u with path p (the backup's prefix and name).
func withPath(u, p string) string {
	base, query, _ := strings.Cut(u, "?")
	return base + p + "?" + query
}

// Wrong credentials, a missing bucket or a missing backup: a non-zero exit, an error naming
// the URL and never the secret, and nothing created in the cluster.
func TestLiveRestoreFromObjectStoreErrors(t *testing.T) {
	c := env.Cluster(t)
	srv := s3server.ForTest(t, s3Bucket)
	client, err := dynamic.NewForConfig(c.RESTConfig())
	require.NoError(t, err)
	kubeconfig := writeKubeconfig(t, c.RESTConfig())
	srv.SetEnv(t)
	ns := c.Namespace(t)
	uploadBackup(t, srv.BucketURL(s3Bucket, ""), "", "nightly", configMaps(ns, 5))
	good := withPath(srv.BucketURL(s3Bucket, ""), "/nightly")
	for _, tc := range []struct {
		name, secret, url, want string
	}{
		{"wrong secret", "not-" + srv.SecretKey, good, backupstore.Redact(srv.BucketURL(s3Bucket, ""))},
		{"missing bucket", srv.SecretKey, withPath(srv.BucketURL("nobucket", ""), "/nightly"), backupstore.Redact(srv.BucketURL("nobucket", ""))},
		{"missing backup", srv.SecretKey, withPath(srv.BucketURL(s3Bucket, ""), "/other"), "backups/other/other.tar.gz"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("AWS_SECRET_ACCESS_KEY", tc.secret)
			var stdout, stderr bytes.Buffer
			code := run(t.Context(), []string{"--kubeconfig", kubeconfig, "--backup", tc.url}, &stdout, &stderr)
			require.NotEqual(t, 0, code)
			require.Contains(t, stderr.String(), tc.want)
			require.NotContains(t, stderr.String()+stdout.String(), tc.secret)
			list, err := client.Resource(configMapsGVR).Namespace(ns).List(t.Context(), metav1.ListOptions{})
			require.NoError(t, err)
			for _, u := range list.Items {
				require.Equal(t, "kube-root-ca.crt", u.GetName(), "created in the cluster")
			}
		})
	}
}

// A backup in object storage with its sibling manifest is planned from the sibling object
// alone: the upload's record binds it to the tarball object, and not one byte of the
// tarball is downloaded.
func TestLivePlanFromObjectStoreReadsNoTarball(t *testing.T) {
	srv := s3server.ForTest(t, s3Bucket)
	srv.SetEnv(t)
	var mu sync.Mutex
	gets := 0
	count := s3server.NewCutProxy(t, srv.Endpoint, func(method string, _ int) int {
		mu.Lock()
		defer mu.Unlock()
		if method == http.MethodGet {
			gets++
		}
		return -1
	})
	objs := configMaps("plan-only", 50)
	uploadBackup(t, srv.BucketURL(s3Bucket, ""), "velero", "planned", objs)
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"--backup", withPath(srv.BucketURL(s3Bucket, count.URL), "/velero/planned"), "-o", "json"}, &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	var plan struct {
		Items    int                 `json:"items"`
		Waves    [][]json.RawMessage `json:"waves"`
		Problems []string            `json:"problems"`
	}
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &plan))
	planned := 0
	for _, w := range plan.Waves {
		planned += len(w)
	}
	require.Equal(t, len(objs), plan.Items)
	require.Equal(t, plan.Items, planned)
	require.Empty(t, plan.Problems)
	mu.Lock()
	defer mu.Unlock()
	require.Zero(t, gets, "tarball downloads while planning")
}

// A restore from object storage names the object and the URL (without its secrets) when
// the backup cannot be read: a tarball cut in half with no sibling fails the plan; reads
// that keep failing after their retries fail every item, and the last line says why. A
// secret in the URL's user information is printed by no run, failing or not.
func TestLiveRestoreFromObjectStoreSaysWhere(t *testing.T) {
	c := env.Cluster(t)
	srv := s3server.ForTest(t, s3Bucket)
	srv.SetEnv(t)
	kubeconfig := writeKubeconfig(t, c.RESTConfig())
	const secret = "Sekr1t-in-the-url/xyz"
	withUser := func(u string) string {
		return strings.Replace(u, "s3://", "s3://AKIAUSER:"+url.PathEscape(secret)+"@", 1)
	}
	var failing atomic.Bool
	p, err := faultproxy.StartPlain(srv.Endpoint, faultproxy.When(func(r *http.Request) bool {
		return failing.Load() && r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, ".tar.gz")
	}, func(*http.Request, int64) faultproxy.Fault { return faultproxy.Status503 }))
	require.NoError(t, err)
	defer p.Close()

	ns := c.Namespace(t)
	objs := configMaps(ns, 20)
	uploadBackup(t, srv.BucketURL(s3Bucket, ""), "", "nightly", objs)
	s, err := backupstore.Open(t.Context(), srv.BucketURL(s3Bucket, ""))
	require.NoError(t, err)
	defer s.Close()
	rc, err := s.Tarball("nightly")(t.Context())
	require.NoError(t, err)
	whole, err := io.ReadAll(rc)
	require.NoError(t, err)
	require.NoError(t, rc.Close())
	require.NoError(t, s.Bucket().WriteAll(t.Context(), s.TarballKey("half"), whole[:len(whole)/2], nil))

	bucketURL := srv.BucketURL(s3Bucket, p.URL())
	for _, tc := range []struct {
		name, backup string
		fail         bool
		want         []string // in the last line of stderr
	}{
		{"cut in half, no sibling", withUser(withPath(bucketURL, "/half")), false,
			[]string{"backups/half/half.tar.gz", backupstore.Redact(bucketURL), "unexpected EOF"}},
		{"every read refused", withUser(withPath(bucketURL, "/nightly")), true,
			[]string{"20 of 20 items not restored", "every failed item", "backups/nightly/nightly.tar.gz", backupstore.Redact(bucketURL), "retries exhausted", "503"}},
		{"restored", withUser(withPath(bucketURL, "/nightly")), false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			failing.Store(tc.fail)
			var stdout, stderr bytes.Buffer
			code := run(t.Context(), []string{"--kubeconfig", kubeconfig, "--backup", tc.backup}, &stdout, &stderr)
			out := stdout.String() + stderr.String()
			for _, s := range []string{secret, url.PathEscape(secret), url.QueryEscape(secret)} {
				require.NotContains(t, out, s)
			}
			if tc.want == nil {
				require.Equal(t, 0, code, out)
				requireRestored(t, mustDynamic(t, c.RESTConfig()), ns, objs)
				return
			}
			require.Equal(t, 1, code, out)
			// The last message: the program's error (an S3 error's text spans lines).
			last := stderr.String()
			if i := strings.LastIndex(last, "\nrestore: "); i >= 0 {
				last = last[i:]
			}
			for _, w := range tc.want {
				require.Contains(t, last, w)
			}
		})
	}
}

func mustDynamic(t *testing.T, cfg *rest.Config) dynamic.Interface {
	t.Helper()
	d, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	return d
}
