package versionselect_test

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/backupkit/backupkit/versionselect"
)

// A truth table of Compare: positive when the left version ranks first.
func ExampleCompare() {
	pairs := [][2]string{
		{"v2", "v1"},
		{"v1", "v2beta1"},
		{"v1beta2", "v1beta1"},
		{"v1alpha1", "foo"},
		{"foo10", "foo2"},
		{"v1", "v01"},
	}
	for _, p := range pairs {
		fmt.Printf("%-9s %-8s %+d\n", p[0], p[1], versionselect.Compare(p[0], p[1]))
	}
	// Output:
	// v2        v1       +1
	// v1        v2beta1  +1
	// v1beta2   v1beta1  +1
	// v1alpha1  foo      +1
	// foo10     foo2     +1
	// v1        v01      +1
}

func ExampleChoose() {
	// What the backup holds (archive.Backup.GroupVersions gives this map).
	source := map[string]metav1.APIGroup{
		"deployments.apps": {
			Name:             "apps",
			Versions:         []metav1.GroupVersionForDiscovery{{GroupVersion: "apps/v1", Version: "v1"}},
			PreferredVersion: metav1.GroupVersionForDiscovery{GroupVersion: "apps/v1", Version: "v1"},
		},
		"rockbands.music.example.io": {
			Name: "music.example.io",
			Versions: []metav1.GroupVersionForDiscovery{
				{GroupVersion: "music.example.io/v1", Version: "v1"},
				{GroupVersion: "music.example.io/v2beta1", Version: "v2beta1"},
			},
			PreferredVersion: metav1.GroupVersionForDiscovery{GroupVersion: "music.example.io/v1", Version: "v1"},
		},
	}
	// What the target serves (TargetGroups gives this from discovery).
	target := []metav1.APIGroup{
		source["deployments.apps"],
		{
			Name: "music.example.io",
			Versions: []metav1.GroupVersionForDiscovery{
				{GroupVersion: "music.example.io/v2", Version: "v2"},
				{GroupVersion: "music.example.io/v2beta1", Version: "v2beta1"},
			},
			PreferredVersion: metav1.GroupVersionForDiscovery{GroupVersion: "music.example.io/v2", Version: "v2"},
		},
	}
	priorities, err := versionselect.ParsePriorities("# from the enableapigroupversions ConfigMap\nrockbands.music.example.io = v2, v2beta1\n")
	if err != nil {
		fmt.Println(err)
		return
	}
	choices := versionselect.Choose(source, target, versionselect.WithPriorities(priorities))
	fmt.Println(choices["deployments.apps"])
	fmt.Println(choices["rockbands.music.example.io"])
	// Output:
	// apps/v1 from v1-preferredversion (TargetPreferred)
	// music.example.io/v2beta1 from v2beta1 (UserPriority)
}

func ExampleMarkPreferred() {
	fmt.Println(versionselect.MarkPreferred([]string{"v2", "v1", "v1beta1"}, "v1"))
	fmt.Println(versionselect.MarkPreferred(nil, "v1"))
	// Output:
	// v2, v1*, v1beta1
	// -
}
