package references

import "sort"

// Labels are labels as pairs sorted by key: key, value, key, value. A workload's pod labels
// and a Service's selector are kept as Labels, not a map, for every workload a plan reads:
// a small Go map costs several times the pairs it holds. It implements
// k8s.io/apimachinery/pkg/labels.Labels.
type Labels []string

// Get returns the value of key, "" when there is none.
func (l Labels) Get(key string) string {
	v, _ := l.Lookup(key)
	return v
}

// Has reports whether key is one of the labels.
func (l Labels) Has(key string) bool {
	_, ok := l.Lookup(key)
	return ok
}

// Lookup returns the value of key and whether it is one of the labels (the method newer
// apimachinery versions add to labels.Labels).
func (l Labels) Lookup(key string) (string, bool) {
	n := len(l) / 2
	i := sort.Search(n, func(i int) bool { return l[2*i] >= key })
	if i < n && l[2*i] == key {
		return l[2*i+1], true
	}
	return "", false
}

// Len is how many labels there are.
func (l Labels) Len() int { return len(l) / 2 }
