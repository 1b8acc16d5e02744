package versionselect_test

import (
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// apiGroup builds a group from versions; a trailing '*' marks the preferred one.
func apiGroup(name string, versions ...string) metav1.APIGroup {
	g := metav1.APIGroup{Name: name}
	for _, v := range versions {
		if p, ok := strings.CutSuffix(v, "*"); ok {
			v = p
			g.PreferredVersion = gv(name, v)
		}
		g.Versions = append(g.Versions, gv(name, v))
	}
	return g
}

func gv(group, version string) metav1.GroupVersionForDiscovery {
	if group == "" {
		return metav1.GroupVersionForDiscovery{GroupVersion: version, Version: version}
	}
	return metav1.GroupVersionForDiscovery{GroupVersion: group + "/" + version, Version: version}
}

// converter allows the listed "from>to" conversions for any group and resource.
type converter map[string]bool

func (c converter) CanConvert(group, resource, from, to string) bool { return c[from+">"+to] }
