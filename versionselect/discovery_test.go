package versionselect_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	vs "github.com/backupkit/backupkit/versionselect"
)

// cachingDiscovery returns the same list every time, as a memory-cached client does.
type cachingDiscovery struct {
	list  *metav1.APIGroupList
	err   error
	block chan struct{}
}

func (c *cachingDiscovery) ServerGroups() (*metav1.APIGroupList, error) {
	if c.block != nil {
		<-c.block
	}
	return c.list, c.err
}

func TestTargetGroups(t *testing.T) {
	cached := &metav1.APIGroupList{Groups: []metav1.APIGroup{
		apiGroup("", "v1*"),
		apiGroup(music, "v1alpha1", "v2beta1*", "v1"), // server priority order, not Compare order
	}}
	before := cached.DeepCopy()
	d := &cachingDiscovery{list: cached}

	got, err := vs.TargetGroups(context.Background(), d)
	require.NoError(t, err)
	require.Equal(t, before.Groups, got, "versions keep the server's order")

	// Sorting and editing the result leaves the client's cache alone.
	got[1].Versions[0], got[1].Versions[2] = got[1].Versions[2], got[1].Versions[0]
	got[1].Versions[1].Version = "changed"
	require.Equal(t, before, cached)
}

func TestTargetGroupsErrors(t *testing.T) {
	t.Run("discovery error is wrapped", func(t *testing.T) {
		boom := errors.New("boom")
		_, err := vs.TargetGroups(context.Background(), &cachingDiscovery{err: boom})
		require.ErrorIs(t, err, boom)
		require.EqualError(t, err, "versionselect: discovering target groups: boom")
	})
	t.Run("cancelled before", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := vs.TargetGroups(ctx, &cachingDiscovery{list: &metav1.APIGroupList{}})
		require.ErrorIs(t, err, context.Canceled)
	})
	t.Run("cancelled while discovery hangs", func(t *testing.T) {
		block := make(chan struct{})
		defer close(block)
		ctx, cancel := context.WithCancel(context.Background())
		d := &cachingDiscovery{list: &metav1.APIGroupList{}, block: block}
		go cancel()
		_, err := vs.TargetGroups(ctx, d)
		require.ErrorIs(t, err, context.Canceled)
	})
	t.Run("nil list is empty", func(t *testing.T) {
		got, err := vs.TargetGroups(context.Background(), &cachingDiscovery{})
		require.NoError(t, err)
		require.Empty(t, got)
	})
}
