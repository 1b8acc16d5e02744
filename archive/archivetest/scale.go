package archivetest

import (
	"fmt"
	"io"
	"strconv"

	"github.com/backupkit/backupkit/archive"
)

// ConfigMapNamespaces is how many namespaces WriteConfigMaps spreads its ConfigMaps over.
const ConfigMapNamespaces = 100

// WriteConfigMaps writes with archive.Writer a backup of n ConfigMaps of about size bytes of
// JSON each (at least the bytes their metadata takes), the workload of the scale
// measurements: "cm-<i>" in namespace "ns-<i mod ConfigMapNamespaces>", uid
// "00000000-0000-4000-8000-<i as 12 digits>", labels app and shard, one annotation, and a
// data value padding the object to size. Each is stored twice (legacy path and
// "v1-preferredversion"), then the manifest. The output is the same for the same n and
// size. It returns the Writer, closed, so that a caller can write its sibling manifest.
func WriteConfigMaps(w io.Writer, n, size int) (*archive.Writer, error) {
	if n < 0 {
		return nil, fmt.Errorf("archivetest: %d ConfigMaps", n)
	}
	bw := archive.NewWriter(w)
	if err := bw.SetPreferred("configmaps", "v1"); err != nil {
		return nil, err
	}
	pad := make([]byte, max(size, 0))
	for i := range pad {
		pad[i] = "abcdefghijklmnopqrstuvwxyz0123456789"[(i*7+i/13)%36]
	}
	buf := make([]byte, 0, size+512)
	for i := range n {
		ns := "ns-" + strconv.Itoa(i%ConfigMapNamespaces)
		name := "cm-" + strconv.Itoa(i)
		buf = append(buf[:0], `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"annotations":{"backupkit.io/scale":"`...)
		buf = strconv.AppendInt(buf, int64(n), 10)
		buf = append(buf, `"},"labels":{"app":"scale","shard":"`...)
		buf = strconv.AppendInt(buf, int64(i%16), 10)
		buf = append(buf, `"},"name":"`...)
		buf = append(buf, name...)
		buf = append(buf, `","namespace":"`...)
		buf = append(buf, ns...)
		buf = append(buf, `","uid":"00000000-0000-4000-8000-`...)
		buf = fmt.Appendf(buf, "%012d", i)
		buf = append(buf, `"},"data":{"pad":"`...)
		if k := size - len(buf) - 4; k > 0 {
			buf = append(buf, pad[:k]...)
		}
		buf = append(buf, `"}}`...)
		if err := bw.Add("configmaps", "v1", ns, name, buf); err != nil {
			return nil, err
		}
	}
	if err := bw.Close(); err != nil {
		return nil, err
	}
	return bw, nil
}
