package readiness_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"pgregory.net/rapid"

	"github.com/backupkit/backupkit/readiness"
)

var validStatus = map[readiness.Status]bool{
	readiness.Current: true, readiness.InProgress: true, readiness.Failed: true,
	readiness.Terminating: true, readiness.Unknown: true,
}

// anyValue generates JSON-like values whose keys are the field names the rules read, so
// that wrong types reach every rule.
func anyValue(depth int) *rapid.Generator[any] {
	keys := []string{"replicas", "readyReplicas", "updatedReplicas", "availableReplicas", "observedGeneration",
		"conditions", "type", "status", "reason", "phase", "containerStatuses", "state", "waiting",
		"updateStrategy", "rollingUpdate", "partition", "loadBalancer", "ingress", "suspend",
		"desiredNumberScheduled", "numberReady", "lastTransitionTime", "generation", "deletionTimestamp"}
	return rapid.Custom(func(t *rapid.T) any {
		kind := rapid.IntRange(0, 7).Draw(t, "kind")
		if depth <= 0 && kind >= 5 {
			kind = 0
		}
		switch kind {
		case 0:
			return rapid.Int64Range(-3, 5).Draw(t, "int")
		case 1:
			return rapid.SampledFrom([]string{"", "True", "False", "Unknown", "Running", "Bound", "CrashLoopBackOff",
				"OnDelete", "LoadBalancer", "Unschedulable", "Ready", "Available", "2026-11-22T11:00:00Z"}).Draw(t, "str")
		case 2:
			return rapid.Bool().Draw(t, "bool")
		case 3:
			return nil
		case 4:
			return rapid.Float64Range(-2, 4).Draw(t, "float")
		case 5:
			return rapid.SliceOfN(anyValue(depth-1), 0, 3).Draw(t, "list")
		default:
			m := map[string]any{}
			for range rapid.IntRange(0, 4).Draw(t, "n") {
				m[rapid.SampledFrom(keys).Draw(t, "key")] = anyValue(depth-1).Draw(t, "val")
			}
			return m
		}
	})
}

func TestComputeNeverPanics(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		kind := rapid.SampledFrom([][2]string{{"apps/v1", "Deployment"}, {"apps/v1", "StatefulSet"}, {"apps/v1", "DaemonSet"},
			{"apps/v1", "ReplicaSet"}, {"v1", "Pod"}, {"batch/v1", "Job"}, {"v1", "Service"}, {"v1", "Namespace"},
			{"v1", "PersistentVolumeClaim"}, {"v1", "PersistentVolume"}, {"apiextensions.k8s.io/v1", "CustomResourceDefinition"},
			{"apiregistration.k8s.io/v1", "APIService"}, {"example.com/v1", "Widget"}}).Draw(t, "kind")
		o := map[string]any{"apiVersion": kind[0], "kind": kind[1]}
		for _, part := range []string{"metadata", "spec", "status"} {
			if rapid.Bool().Draw(t, "has "+part) {
				o[part] = anyValue(3).Draw(t, part)
			}
		}
		u := &unstructured.Unstructured{Object: o}
		before := u.DeepCopy()
		r := readiness.Compute(u, readiness.WithNow(t0))
		if !validStatus[r.Status] || r.Reason == "" || r.Message == "" {
			t.Fatalf("invalid result %#v for %v", r, o)
		}
		if r2 := readiness.Compute(u, readiness.WithNow(t0)); r2 != r {
			t.Fatalf("not deterministic: %v then %v", r, r2)
		}
		require.Equal(t, before, u)
	})
}

// FuzzCompute feeds arbitrary JSON, decoded both ways a caller may decode it (apimachinery:
// int64 numbers; encoding/json: float64), to Compute, which must give a valid result.
func FuzzCompute(f *testing.F) {
	f.Add([]byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","generation":2},"spec":{"replicas":3},"status":{"observedGeneration":2,"replicas":3,"updatedReplicas":3,"readyReplicas":3,"availableReplicas":3}}`))
	f.Add([]byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"status":{"phase":"Running","containerStatuses":[{"name":"app","state":{"waiting":{"reason":"CrashLoopBackOff"}}}]}}`))
	f.Add([]byte(`{"apiVersion":"apps/v1","kind":"StatefulSet","spec":{"updateStrategy":{"rollingUpdate":{"partition":"x"}}},"status":{"replicas":1}}`))
	f.Add([]byte(`{"apiVersion":"example.com/v1","kind":"Widget","status":{"conditions":[{"type":"Ready","status":"True"}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var m map[string]any
		if json.Unmarshal(data, &m) == nil && m != nil {
			r := readiness.Compute(&unstructured.Unstructured{Object: m}, readiness.WithNow(t0))
			if !validStatus[r.Status] {
				t.Fatalf("invalid status %q", r.Status)
			}
		}
		u := &unstructured.Unstructured{}
		if u.UnmarshalJSON(data) == nil {
			r := readiness.Compute(u, readiness.WithNow(t0))
			if !validStatus[r.Status] {
				t.Fatalf("invalid status %q", r.Status)
			}
		}
	})
}

// TestWaitReportProperties runs Wait over random scripts of responses and checks the laws of
// its report: one item per ref in order; the error is nil exactly when every item is Current;
// every other item carries an *ItemError whose cause matches its last status; the calls made
// are the reads reported.
func TestWaitReportProperties(t *testing.T) {
	states := []string{"notfound", "transient", "progressing", "ready", "deadline", "forbidden"}
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 4).Draw(rt, "objects")
		g := newFake()
		var refs []readiness.ObjectRef
		for i := range n {
			name := fmt.Sprintf("o%d", i)
			var rs []resp
			for j, s := range rapid.SliceOfN(rapid.SampledFrom(states), 1, 5).Draw(rt, name) {
				switch s {
				case "notfound":
					rs = append(rs, resp{err: apierrors.NewNotFound(deployGR, name)})
				case "transient":
					rs = append(rs, resp{err: apierrors.NewServiceUnavailable(fmt.Sprint("busy ", j))})
				case "forbidden":
					rs = append(rs, resp{err: apierrors.NewForbidden(deployGR, name, errors.New("rbac"))})
				default:
					rs = append(rs, resp{obj: deploy("a", name, "u-"+name, s)})
				}
			}
			g.add("a", name, rs...)
			refs = append(refs, ref("a", name))
		}
		var opts []readiness.WaitOption
		if rapid.Bool().Draw(rt, "keepGoing") {
			opts = append(opts, readiness.WithKeepGoing())
		}
		opts = append(opts, readiness.WithTimeout(time.Duration(rapid.IntRange(0, 8).Draw(rt, "timeout"))*time.Second))
		rep, _, err := runWait(t, context.Background(), g, refs, opts...)
		if len(rep.Items) != n {
			rt.Fatalf("%d items for %d refs", len(rep.Items), n)
		}
		allCurrent, checks := true, 0
		for i, it := range rep.Items {
			checks += it.Checks
			if it.Ref != refs[i] {
				rt.Fatalf("item %d is %v, want %v", i, it.Ref, refs[i])
			}
			if it.Result.Status == readiness.Current && it.Err == nil {
				continue
			}
			allCurrent = false
			var ie *readiness.ItemError
			if !errors.As(it.Err, &ie) {
				rt.Fatalf("item %d (%v) has no ItemError: %v", i, it.Result, it.Err)
			}
			if it.Result.Status == readiness.Failed && !errors.Is(it.Err, readiness.ErrFailed) {
				rt.Fatalf("item %d Failed without ErrFailed: %v", i, it.Err)
			}
			if it.Result.Reason == readiness.ReasonPermanentError && !apierrors.IsForbidden(it.Err) {
				rt.Fatalf("item %d: permanent error lost: %v", i, it.Err)
			}
			if apierrors.IsForbidden(it.Err) && (it.Result.Status == readiness.Current || strings.Count(it.Err.Error(), "forbidden") != 1) {
				rt.Fatalf("item %d: forbidden, with status %v; the cause must be named once: %v", i, it.Result, it.Err)
			}
		}
		if allCurrent != (err == nil) {
			rt.Fatalf("all current %v, error %v", allCurrent, err)
		}
		if rep.Ready() != n && err == nil {
			rt.Fatalf("ready %d of %d without error", rep.Ready(), n)
		}
		if checks != rep.Calls || rep.Calls != g.gets {
			rt.Fatalf("checks %d, calls %d, gets %d", checks, rep.Calls, g.gets)
		}
	})
}
