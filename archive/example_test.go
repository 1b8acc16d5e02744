package archive_test

import (
	"bytes"
	"context"
	"fmt"
	"os"

	"github.com/backupkit/backupkit/archive"
)

// Example writes a backup, scans it in one pass, then extracts and opens it.
func Example() {
	var buf bytes.Buffer
	w := archive.NewWriter(&buf)
	_ = w.SetPreferred("widgets.example.com", "v2")
	_ = w.Add("widgets.example.com", "v2", "shop", "w1", []byte(`{"apiVersion":"example.com/v2","kind":"Widget","metadata":{"name":"w1","namespace":"shop","uid":"1"}}`))
	_ = w.Add("widgets.example.com", "v1", "shop", "w1", []byte(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w1","namespace":"shop","uid":"1"}}`))
	if err := w.Close(); err != nil {
		fmt.Println(err)
		return
	}

	idx, err := archive.Scan(context.Background(), bytes.NewReader(buf.Bytes()), archive.WithManifest())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("format", idx.FormatVersion)
	g := idx.GroupVersions["widgets.example.com"]
	fmt.Println("preferred", g.PreferredVersion.GroupVersion, "of", len(g.Versions), "versions")
	for _, it := range idx.Items {
		fmt.Printf("%-20s %q\n", it.Path[len("resources/widgets.example.com/"):], it.VersionDir)
	}
	fmt.Println("manifest items", idx.Manifest.Len())

	dir, err := os.MkdirTemp("", "backup")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	if err := archive.Extract(context.Background(), bytes.NewReader(buf.Bytes()), dir); err != nil {
		fmt.Println(err)
		return
	}
	b, err := archive.Open(os.DirFS(dir))
	if err != nil {
		fmt.Println(err)
		return
	}
	u, err := b.ReadItem("widgets.example.com", "v1", "shop", "w1")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("read", u.GetAPIVersion(), u.GetNamespace()+"/"+u.GetName())
	m, err := b.Manifest() // the one Writer stored, checked against the files
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, it := range m.Items() {
		fmt.Println("stored manifest:", it.Namespace+"/"+it.Name, "at", it.Versions())
	}
	// Output:
	// format 1.1.0
	// preferred example.com/v2 of 2 versions
	// namespaces/shop/w1.json ""
	// v2-preferredversion/namespaces/shop/w1.json "v2-preferredversion"
	// v1/namespaces/shop/w1.json "v1"
	// manifest items 1
	// read example.com/v1 shop/w1
	// stored manifest: shop/w1 at [v2 v1]
}

// ExampleItemPath shows which components are accepted: a truth table.
func ExampleItemPath() {
	for _, c := range [][4]string{
		{"pods", "", "default", "web-0"},
		{"deployments.apps", "v1-preferredversion", "default", "web"},
		{"nodes", "", "", "node-1"},
		{"pods", "", "default", "../../etc/passwd"},
		{"pods", "..", "default", "web-0"},
	} {
		p, err := archive.ItemPath(c[0], c[1], c[2], c[3])
		fmt.Printf("%q %v\n", p, err)
	}
	// Output:
	// "resources/pods/namespaces/default/web-0.json" <nil>
	// "resources/deployments.apps/v1-preferredversion/namespaces/default/web.json" <nil>
	// "resources/nodes/cluster/node-1.json" <nil>
	// "" archive: item path: insecure path: name "../../etc/passwd" contains a separator or NUL
	// "" archive: item path: insecure path: version directory ".."
}
