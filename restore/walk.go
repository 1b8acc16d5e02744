package restore

import (
	"fmt"

	"k8s.io/apimachinery/pkg/types"

	"github.com/backupkit/backupkit/manifest"
)

// walkManifest is the manifest the restore walks: the items the plan restores, with the
// edges the plan found between them (owners, Namespaces, CRDs, depends-on, the references
// read from the objects) and the resource order.
func (p *Plan) walkManifest() (*manifest.Manifest, error) {
	m := manifest.New()
	m.Grow(p.restorable())
	for _, wave := range p.Waves {
		for _, it := range wave {
			src, ok := p.manifest.Get(types.UID(it.UID))
			if !ok {
				return nil, fmt.Errorf("restore: %s is planned but not in the backup's manifest", it.Item)
			}
			if _, err := m.Add(src.Clone()); err != nil {
				return nil, fmt.Errorf("restore: %s: %w", it.Item, err)
			}
		}
	}
	for _, d := range p.deps {
		_, from := m.Get(d.From)
		_, to := m.Get(d.To)
		if !from || !to {
			continue // an end the plan does not restore
		}
		if err := m.AddDependency(d.From, d.To); err != nil {
			return nil, fmt.Errorf("restore: %w", err)
		}
	}
	m.SetResourceOrder(p.order)
	return m, nil
}
