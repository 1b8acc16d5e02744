package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/client-go/dynamic"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/backup"
)

// TestConnectListsRaw: backup.Run through a Cluster made by backup.Connect (each object's
// JSON as the API server sent it) writes the same files, holding the same objects, as
// through the same cluster's dynamic client alone (each object decoded and encoded
// again), for Kubernetes' own kinds (whose list items have no apiVersion or kind) and a
// custom resource at two versions. Objects a controller changed between the two backups
// (another resourceVersion) are left out of the comparison.
func TestConnectListsRaw(t *testing.T) {
	c := env.Cluster(t)
	cfg := c.RESTConfig()
	client, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	ns := c.Namespace(t)
	populated := populate(t, client, ns)

	raw, err := backup.Connect(cfg)
	require.NoError(t, err)
	secret := "resources/secrets/namespaces/" + ns + "/db-password.json"
	var secretJSON []string // its bytes as written, per backup
	files := func(cl backup.Cluster) map[string]map[string]any {
		plan, err := backup.NewPlan(t.Context(), cl, backup.WithFilter(backup.Filter{IncludedNamespaces: []string{ns}}))
		require.NoError(t, err)
		var buf bytes.Buffer
		_, err = backup.Run(t.Context(), plan, archive.NewWriter(&buf), backup.WithPageSize(2))
		require.NoError(t, err)
		zr, err := gzip.NewReader(&buf)
		require.NoError(t, err)
		out := map[string]map[string]any{}
		tr := tar.NewReader(zr)
		for {
			hdr, err := tr.Next()
			if errors.Is(err, io.EOF) {
				return out
			}
			require.NoError(t, err)
			if !strings.HasPrefix(hdr.Name, "resources/") {
				continue
			}
			data, err := io.ReadAll(tr)
			require.NoError(t, err)
			if hdr.Name == secret {
				secretJSON = append(secretJSON, string(data))
			}
			var m map[string]any
			require.NoError(t, json.Unmarshal(data, &m), hdr.Name)
			out[hdr.Name] = m
		}
	}
	viaRaw := files(raw)
	viaDynamic := files(backup.Cluster{Discovery: raw.Discovery, Dynamic: raw.Dynamic})
	require.Equal(t, slices.Sorted(maps.Keys(viaDynamic)), slices.Sorted(maps.Keys(viaRaw)))
	compared, kinds := 0, map[string]bool{}
	for p, want := range viaDynamic {
		got := viaRaw[p]
		rv := func(m map[string]any) any { return m["metadata"].(map[string]any)["resourceVersion"] }
		if rv(got) != rv(want) {
			continue
		}
		require.Equal(t, want, got, p)
		require.NotEmpty(t, got["apiVersion"], p)
		compared++
		kinds[got["apiVersion"].(string)+"/"+got["kind"].(string)] = true
	}
	require.GreaterOrEqual(t, compared, 2*len(populated), "files compared")
	// Written as the server sent it (metadata first) through Connect's client; encoded
	// again, keys sorted, through the dynamic client.
	require.Len(t, secretJSON, 2)
	require.True(t, strings.HasPrefix(secretJSON[0], `{"apiVersion":"v1","kind":"Secret","metadata":{`), secretJSON[0])
	require.True(t, strings.HasPrefix(secretJSON[1], `{"apiVersion":"v1","data":{`), secretJSON[1])
	for _, k := range []string{"v1/ConfigMap", "v1/Secret", "v1/ServiceAccount", "apps/v1/Deployment", "shop.example.com/v1/Gadget", "shop.example.com/v2beta1/Gadget"} {
		require.True(t, kinds[k], "no %s compared: %v", k, kinds)
	}
}
