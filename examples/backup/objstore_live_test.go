package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/client-go/dynamic"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/backupstore"
	"github.com/backupkit/backupkit/internal/faultproxy"
	"github.com/backupkit/backupkit/internal/s3server"
)

const s3Bucket = "backups"

// withPath is the bucket URL u with path p (the backup's prefix and name).
func withPath(u, p string) string {
	base, query, _ := strings.Cut(u, "?")
	return base + p + "?" + query
}

// objstoreSetup starts an S3 server (its credentials in the environment) and fills a new
// namespace of the test cluster; it returns them with a client and a kubeconfig file.
func objstoreSetup(t *testing.T) (*s3server.Server, dynamic.Interface, string, string) {
	t.Helper()
	c := env.Cluster(t)
	srv := s3server.ForTest(t, s3Bucket)
	srv.SetEnv(t)
	client, err := dynamic.NewForConfig(c.RESTConfig())
	require.NoError(t, err)
	ns := c.Namespace(t)
	populate(t, client, ns)
	return srv, client, ns, writeKubeconfig(t, c.RESTConfig())
}

// --output with a URL uploads the backup while it is written, to a real S3 server
// (versitygw) and to a directory through file://: the tarball in Velero's layout, its
// sibling beside it, bound to it.
func TestBackupToObjectStore(t *testing.T) {
	srv, client, ns, kubeconfig := objstoreSetup(t)
	objs := listNamespace(t, client, ns)
	dir := t.TempDir()
	for _, tc := range []struct{ name, bucketURL, prefix, backupURL string }{
		{"s3", srv.BucketURL(s3Bucket, ""), "velero", withPath(srv.BucketURL(s3Bucket, ""), "/velero/nightly")},
		{"file", "file://" + filepath.ToSlash(dir), "", "file://" + filepath.ToSlash(dir) + "/nightly"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(t.Context(), []string{"--kubeconfig", kubeconfig, "--output", tc.backupURL, "--include-namespaces", ns}, &stdout, &stderr)
			require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())

			s, err := backupstore.Open(t.Context(), tc.bucketURL, backupstore.WithPrefix(tc.prefix))
			require.NoError(t, err)
			defer s.Close()
			names, err := s.List(t.Context())
			require.NoError(t, err)
			require.Equal(t, []string{"nightly"}, names)
			rc, err := s.Tarball("nightly")(t.Context())
			require.NoError(t, err)
			tarball, err := io.ReadAll(rc)
			require.NoError(t, err)
			require.NoError(t, rc.Close())
			idx, err := archive.Scan(t.Context(), bytes.NewReader(tarball), archive.WithManifest())
			require.NoError(t, err)
			require.Empty(t, idx.Problems)
			require.Equal(t, len(objs)+2, idx.Manifest.Len())
			sib, err := s.ReadSibling(t.Context(), "nightly")
			require.NoError(t, err)
			require.NoError(t, sib.Verify(t.Context(), bytes.NewReader(tarball)))
			require.Equal(t, idx.GroupVersions, sib.GroupVersions)

			// Velero's Backup object, last: what the run was asked and how it went.
			data, err := s.Bucket().ReadAll(t.Context(), s.MetadataKey("nightly"))
			require.NoError(t, err)
			var meta struct {
				Metadata struct{ Name string }
				Spec     struct{ IncludedNamespaces []string }
				Status   struct {
					Phase, FormatVersion string
					Progress             struct{ ItemsBackedUp, TotalItems int }
				}
			}
			require.NoError(t, json.Unmarshal(data, &meta))
			require.Equal(t, "nightly", meta.Metadata.Name)
			require.Equal(t, []string{ns}, meta.Spec.IncludedNamespaces)
			require.Equal(t, "Completed", meta.Status.Phase)
			require.Equal(t, "1.1.0", meta.Status.FormatVersion)
			require.Equal(t, idx.Manifest.Len(), meta.Status.Progress.ItemsBackedUp)
			require.Equal(t, idx.Manifest.Len(), meta.Status.Progress.TotalItems)
		})
	}
}

// An upload cut mid-way, wrong credentials, a missing bucket: a non-zero exit, an error
// naming the URL and never the secret, and nothing in the store that looks like a backup.
func TestBackupToObjectStoreErrors(t *testing.T) {
	srv, _, ns, kubeconfig := objstoreSetup(t)
	cut := s3server.NewCutProxy(t, srv.Endpoint, func(method string, _ int) int {
		if method == http.MethodPut || method == http.MethodPost {
			return 500
		}
		return -1
	})
	for _, tc := range []struct{ name, secret, url, want string }{
		{"upload cut", srv.SecretKey, withPath(srv.BucketURL(s3Bucket, cut.URL), "/nightly"), "backups/nightly/nightly.tar.gz"},
		{"wrong secret", "not-" + srv.SecretKey, withPath(srv.BucketURL(s3Bucket, ""), "/nightly"), backupstore.Redact(srv.BucketURL(s3Bucket, ""))},
		{"missing bucket", srv.SecretKey, withPath(srv.BucketURL("nobucket", ""), "/nightly"), backupstore.Redact(srv.BucketURL("nobucket", ""))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("AWS_SECRET_ACCESS_KEY", tc.secret)
			var stdout, stderr bytes.Buffer
			code := run(t.Context(), []string{"--kubeconfig", kubeconfig, "--output", tc.url, "--include-namespaces", ns}, &stdout, &stderr)
			require.NotEqual(t, 0, code, "stdout:\n%s", stdout.String())
			require.Contains(t, stderr.String(), tc.want)
			require.NotContains(t, stderr.String()+stdout.String(), tc.secret)
		})
	}
	require.Positive(t, cut.Cuts())
	t.Setenv("AWS_SECRET_ACCESS_KEY", srv.SecretKey)
	s, err := backupstore.Open(t.Context(), srv.BucketURL(s3Bucket, ""))
	require.NoError(t, err)
	defer s.Close()
	it := s.Bucket().List(nil)
	obj, err := it.Next(t.Context())
	require.ErrorIs(t, err, io.EOF, "the store holds %v", obj)
}

// A secret in the URL (its user information, a credential-like query parameter) is never
// printed, whether the backup succeeds or fails; a sibling that cannot be written (503 on
// every try) fails the backup, leaves nothing under its name, and the same backup is then
// taken again.
func TestBackupToObjectStoreSecretsAndHalfCommits(t *testing.T) {
	srv, _, ns, kubeconfig := objstoreSetup(t)
	const secret = "Sekr1t-in-the-url/xyz"
	sibling503, err := faultproxy.StartPlain(srv.Endpoint, faultproxy.When(func(r *http.Request) bool {
		return r.Method == http.MethodPut && strings.HasSuffix(r.URL.Path, "-manifest.json.gz")
	}, func(*http.Request, int64) faultproxy.Fault { return faultproxy.Status503 }))
	require.NoError(t, err)
	defer sibling503.Close()
	withUser := func(u string) string {
		return strings.Replace(u, "s3://", "s3://AKIAUSER:"+url.PathEscape(secret)+"@", 1)
	}
	for _, tc := range []struct {
		name, url string
		ok        bool
		want      string // in the output
	}{
		{"credentials in the user information", withUser(withPath(srv.BucketURL(s3Bucket, ""), "/sec/nightly")), true, "s3://" + s3Bucket + "/sec/nightly?"},
		{"a secret in the query", withPath(srv.BucketURL(s3Bucket, ""), "/sec/other") + "&aws_secret_access_key=" + url.QueryEscape(secret), false, "aws_secret_access_key=REDACTED"},
		{"the sibling refused", withUser(withPath(srv.BucketURL(s3Bucket, sibling503.URL()), "/half/nightly")), false, "backups/nightly/nightly-manifest.json.gz"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(t.Context(), []string{"--kubeconfig", kubeconfig, "--output", tc.url, "--include-namespaces", ns}, &stdout, &stderr)
			out := stdout.String() + stderr.String()
			require.Equal(t, tc.ok, code == 0, out)
			require.Contains(t, out, tc.want)
			for _, s := range []string{secret, url.PathEscape(secret), url.QueryEscape(secret)} {
				require.NotContains(t, out, s)
			}
		})
	}
	require.Positive(t, sibling503.Counts()[faultproxy.Status503])
	s, err := backupstore.Open(t.Context(), srv.BucketURL(s3Bucket, ""), backupstore.WithPrefix("half"))
	require.NoError(t, err)
	defer s.Close()
	names, err := s.List(t.Context())
	require.NoError(t, err)
	require.Empty(t, names, "the half-committed backup is gone")
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"--kubeconfig", kubeconfig, "--output", withPath(srv.BucketURL(s3Bucket, ""), "/half/nightly"), "--include-namespaces", ns}, &stdout, &stderr)
	require.Equal(t, 0, code, "the same backup again:\n%s", stderr.String())
}
