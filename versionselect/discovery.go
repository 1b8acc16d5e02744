package versionselect

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
)

// TargetGroups returns the API groups a cluster serves, each with its versions in the
// server's priority order, ready for Choose.
//
// The result is a deep copy: unlike Velero, which sorts discovery's cached slices in place,
// TargetGroups never changes what a caching discovery client holds, and the caller may
// modify the result freely. ServerGroups takes no context; when ctx ends first, TargetGroups
// returns ctx's error at once and the request finishes in the background.
func TargetGroups(ctx context.Context, d discovery.ServerGroupsInterface) ([]metav1.APIGroup, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("versionselect: discovering target groups: %w", err)
	}
	type result struct {
		list *metav1.APIGroupList
		err  error
	}
	done := make(chan result, 1)
	go func() {
		list, err := d.ServerGroups()
		done <- result{list, err}
	}()
	var r result
	select {
	case <-ctx.Done():
		return nil, fmt.Errorf("versionselect: discovering target groups: %w", ctx.Err())
	case r = <-done:
	}
	if r.err != nil {
		return nil, fmt.Errorf("versionselect: discovering target groups: %w", r.err)
	}
	if r.list == nil {
		return []metav1.APIGroup{}, nil
	}
	out := make([]metav1.APIGroup, len(r.list.Groups))
	for i := range r.list.Groups {
		r.list.Groups[i].DeepCopyInto(&out[i])
	}
	return out, nil
}
