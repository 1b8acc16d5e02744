package versionselect_test

import (
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	vs "github.com/backupkit/backupkit/versionselect"
)

// benchInput builds n backed-up resources over n/10 groups, with a target that serves most
// groups at overlapping versions and user priorities for every seventh resource, so that
// every rule is exercised.
func benchInput(n int) (map[string]metav1.APIGroup, []metav1.APIGroup, vs.Priorities) {
	source := make(map[string]metav1.APIGroup, n)
	var target []metav1.APIGroup
	users := vs.Priorities{}
	shapes := [][2][]string{
		{{"v1*", "v1beta1"}, {"v1*"}},                       // P1
		{{"v2beta1*", "v1"}, {"v3*", "v2beta1"}},            // P2
		{{"v1*", "v2beta2", "v2beta1"}, {"v3*", "v2beta2"}}, // P3
		{{"v1alpha1*"}, {"v2*"}},                            // none
		{{"v1*", "v1beta1"}, nil},                           // absent
	}
	groups := n / 10
	if groups == 0 {
		groups = 1
	}
	for g := 0; g < groups; g++ {
		name := fmt.Sprintf("group%d.example.io", g)
		shape := shapes[g%len(shapes)]
		if shape[1] != nil {
			target = append(target, apiGroup(name, shape[1]...))
		}
		for r := 0; r < n/groups; r++ {
			key := fmt.Sprintf("things%d.%s", r, name)
			source[key] = apiGroup(name, shape[0]...)
			if r%7 == 0 {
				users[key] = []string{"v9", "v1beta1"}
			}
		}
	}
	return source, target, users
}

func BenchmarkChoose(b *testing.B) {
	for _, n := range []int{5000} {
		source, target, users := benchInput(n)
		b.Run(fmt.Sprintf("resources=%d", len(source)), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				vs.Choose(source, target, vs.WithPriorities(users))
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(source)), "ns/resource")
		})
	}
}
