package sample

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/backupkit/backupkit/archive"
)

// legacyResources are the sample's resources a backup written by Velero before 1.4 holds
// in BuildLegacy: those whose backed-up version the sample target serves, since such a
// backup is restored at the version it was written at (there is nothing else to read).
var legacyResources = []string{
	"configmaps", "customresourcedefinitions.apiextensions.k8s.io", "deployments.apps",
	"horizontalpodautoscalers.autoscaling", "namespaces", "pods", "replicasets.apps",
	"serviceaccounts", "services",
}

// BuildLegacy returns the sample shop as Velero before 1.4 wrote it: metadata/version "1",
// every item only at its legacy path (resources/<resource>/{namespaces/<ns>|cluster}/<name>.json)
// at the version it was backed up at, no version directories. The same bytes on every call.
func BuildLegacy() ([]byte, error) {
	files := map[string][]byte{"metadata/version": []byte("1")}
	for _, it := range sampleItems() {
		if !slices.Contains(legacyResources, it.resource) || it.version != samplePreferred[it.resource] {
			continue
		}
		data, err := json.Marshal(it.obj)
		if err != nil {
			return nil, err
		}
		p, err := archive.ItemPath(it.resource, "", it.namespace, it.name)
		if err != nil {
			return nil, fmt.Errorf("sample %s/%s: %w", it.resource, it.name, err)
		}
		files[p] = data
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	modTime := time.Date(2020, 4, 1, 0, 0, 0, 0, time.UTC)
	for _, p := range slices.Sorted(maps.Keys(files)) {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: p, Size: int64(len(files[p])), Mode: 0o644, ModTime: modTime}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(files[p]); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
