package readiness_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"pgregory.net/rapid"

	"github.com/backupkit/backupkit/readiness"
)

// Services and their statuses, as restored or as backed up.
const (
	lbSpec       = `"spec":{"type":"LoadBalancer","ports":[{"port":80}]}`
	lbNoStatus   = `{` + svcHead + `,` + lbSpec + `}`
	lbNoIngress  = `{` + svcHead + `,` + lbSpec + `,"status":{"loadBalancer":{}}}`
	lbEmptyEntry = `{` + svcHead + `,` + lbSpec + `,"status":{"loadBalancer":{"ingress":[{}]}}}`
	lbIngress    = `{` + svcHead + `,` + lbSpec + `,"status":{"loadBalancer":{"ingress":[{"ip":"203.0.113.7"}]}}}`
	clusterIP    = `{` + svcHead + `,"spec":{"type":"ClusterIP","ports":[{"port":80}]},"status":{"loadBalancer":{}}}`
	// deploy0Available: a Deployment of 2 replicas, none available.
	deploy0Available = `{` + deployHead + `,"spec":{"replicas":2},"status":{"observedGeneration":2,"replicas":2,"updatedReplicas":2,"readyReplicas":0,"availableReplicas":0}}`
)

const asBackedUpNoIngress = "not met when backed up either, so not waited for: load balancer has no ingress yet (NoIngress)"

func TestComputeWithBaseline(t *testing.T) {
	gatewayGK := schema.GroupKind{Group: "gateway.networking.k8s.io", Kind: "Gateway"}
	// A Gateway's rule: InProgress/NoAddress until status.addresses has an entry.
	gatewayRule := func(u *unstructured.Unstructured, _ readiness.Env) readiness.Result {
		addrs, _, _ := unstructured.NestedSlice(u.Object, "status", "addresses")
		if len(addrs) == 0 {
			return readiness.Result{Status: readiness.InProgress, Reason: "NoAddress", Message: "no address yet"}
		}
		return readiness.Result{Status: readiness.Current, Reason: "Addressed", Message: "addressed"}
	}
	external := readiness.NewRegistry()
	external.Register(gatewayGK, gatewayRule, readiness.External("NoAddress"))
	notExternal := readiness.NewRegistry()
	notExternal.Register(gatewayGK, gatewayRule)
	// The built-in Service rule registered without External: NoIngress is then waited for.
	svcRule, ok := readiness.NewRegistry().Lookup(schema.GroupKind{Kind: "Service"})
	require.True(t, ok)
	svcNotExternal := readiness.NewRegistry()
	svcNotExternal.Register(schema.GroupKind{Kind: "Service"}, svcRule)
	// A Gateway whose rule gives the Service's external reason, NoIngress.
	shared := readiness.NewRegistry()
	shared.Register(gatewayGK, func(u *unstructured.Unstructured, env readiness.Env) readiness.Result {
		if r := gatewayRule(u, env); r.Status != readiness.Current {
			return readiness.Result{Status: readiness.InProgress, Reason: readiness.ReasonNoIngress, Message: "no address yet"}
		}
		return readiness.Result{Status: readiness.Current, Reason: "Addressed", Message: "addressed"}
	}, readiness.External(readiness.ReasonNoIngress))
	// The built-in Pod rule with its image-pull reasons marked external.
	podRule, ok := readiness.NewRegistry().Lookup(schema.GroupKind{Kind: "Pod"})
	require.True(t, ok)
	pullExternal := readiness.NewRegistry()
	pullExternal.Register(schema.GroupKind{Kind: "Pod"}, podRule, readiness.RequireStatus(), readiness.External("ErrImagePull", "ImagePullBackOff"))
	// External of a reason Compute's generic steps give: never relaxed.
	genericExternal := readiness.NewRegistry()
	genericExternal.Register(schema.GroupKind{Group: "apps", Kind: "Deployment"}, func(*unstructured.Unstructured, readiness.Env) readiness.Result {
		return readiness.Result{Status: readiness.Current, Reason: "Fine", Message: "fine"}
	}, readiness.RequireStatus(), readiness.External(readiness.ReasonNoStatus, readiness.ReasonStaleGeneration))
	const (
		gateway          = `{"apiVersion":"gateway.networking.k8s.io/v1","kind":"Gateway","metadata":{"name":"gw","namespace":"shop"}}`
		gatewayAddressed = `{"apiVersion":"gateway.networking.k8s.io/v1","kind":"Gateway","metadata":{"name":"gw","namespace":"shop"},"status":{"addresses":[{"value":"203.0.113.7"}]}}`
		deployNoStatus   = `{` + deployHead + `,"spec":{"replicas":1}}`
		deployStale      = `{` + deployHead + `,"spec":{"replicas":1},"status":{"observedGeneration":1}}`
		podPull          = `{` + podHead + `,"status":{"phase":"Pending","containerStatuses":[{"name":"app","state":{"waiting":{"reason":"ImagePullBackOff"}}}]}}`
		ingress          = `{"apiVersion":"networking.k8s.io/v1","kind":"Ingress","metadata":{"name":"front","namespace":"shop"},"status":{"loadBalancer":{}}}`
	)

	tests := []struct {
		name     string
		restored string
		baseline string // "" is no baseline (nil)
		opts     []readiness.ComputeOption
		want     readiness.Result // Message checked only when set
	}{
		// LoadBalancer: ingress in the backup × ingress now.
		{"lb none now, none backed up", lbNoIngress, lbNoIngress, nil, readiness.Result{Status: readiness.Current, Reason: readiness.ReasonAsBackedUp, Message: asBackedUpNoIngress}},
		{"lb none now, no status backed up", lbNoStatus, lbNoStatus, nil, readiness.Result{Status: readiness.Current, Reason: readiness.ReasonAsBackedUp}},
		{"lb none now, an entry without address backed up", lbNoStatus, lbEmptyEntry, nil, readiness.Result{Status: readiness.Current, Reason: readiness.ReasonAsBackedUp}},
		{"lb none now, ingress backed up", lbNoIngress, lbIngress, nil, readiness.Result{Status: readiness.InProgress, Reason: readiness.ReasonNoIngress, Message: "load balancer has no ingress yet"}},
		{"lb ingress now, none backed up", lbIngress, lbNoIngress, nil, readiness.Result{Status: readiness.Current, Reason: readiness.ReasonLoadBalancerReady}},
		{"lb ingress now, ingress backed up", lbIngress, lbIngress, nil, readiness.Result{Status: readiness.Current, Reason: readiness.ReasonLoadBalancerReady}},
		{"lb none now, no baseline", lbNoIngress, "", nil, readiness.Result{Status: readiness.InProgress, Reason: readiness.ReasonNoIngress}},
		{"lb none now, lenient, none backed up", lbNoStatus, lbNoStatus, []readiness.ComputeOption{readiness.WithLenient()}, readiness.Result{Status: readiness.Current, Reason: readiness.ReasonAsBackedUp}},
		{"lb none now, registry, none backed up", lbNoIngress, lbNoIngress, []readiness.ComputeOption{readiness.WithRegistry(readiness.NewRegistry())}, readiness.Result{Status: readiness.Current, Reason: readiness.ReasonAsBackedUp}},
		// ClusterIP: nothing to relax; a ClusterIP backed up does not relax a LoadBalancer.
		{"clusterip, lb none backed up", clusterIP, lbNoIngress, nil, readiness.Result{Status: readiness.Current, Reason: readiness.ReasonServiceReady}},
		{"lb none now, clusterip backed up", lbNoIngress, clusterIP, nil, readiness.Result{Status: readiness.InProgress, Reason: readiness.ReasonNoIngress}},
		// Reasons not external are never relaxed.
		{"deployment 0 available, 0 backed up", deploy0Available, deploy0Available, nil, readiness.Result{Status: readiness.InProgress, Reason: readiness.ReasonLessAvailable}},
		{"deployment no status, none backed up", deployNoStatus, deployNoStatus, nil, readiness.Result{Status: readiness.InProgress, Reason: readiness.ReasonNoStatus}},
		{"pvc pending, pending backed up", `{` + pvcHead + `,"status":{"phase":"Pending"}}`, `{` + pvcHead + `,"status":{"phase":"Pending"}}`, nil, readiness.Result{Status: readiness.InProgress, Reason: readiness.ReasonPending}},
		{"service rule registered without External", lbNoIngress, lbNoIngress, []readiness.ComputeOption{readiness.WithRegistry(svcNotExternal)}, readiness.Result{Status: readiness.InProgress, Reason: readiness.ReasonNoIngress}},
		{"External of generic NoStatus", deployNoStatus, deployNoStatus, []readiness.ComputeOption{readiness.WithRegistry(genericExternal)}, readiness.Result{Status: readiness.InProgress, Reason: readiness.ReasonNoStatus}},
		{"External of generic ObservedGenerationStale", deployStale, deployStale, []readiness.ComputeOption{readiness.WithRegistry(genericExternal)}, readiness.Result{Status: readiness.InProgress, Reason: readiness.ReasonStaleGeneration}},
		{"pod image pull backoff, so backed up", podPull, podPull, nil, readiness.Result{Status: readiness.InProgress, Reason: "ImagePullBackOff"}},
		{"pod image pull backoff, so backed up, marked external", podPull, podPull, []readiness.ComputeOption{readiness.WithRegistry(pullExternal)}, readiness.Result{Status: readiness.Current, Reason: readiness.ReasonAsBackedUp}},
		{"pod image pull backoff, running backed up, marked external", podPull, `{` + podHead + `,"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}`, []readiness.ComputeOption{readiness.WithRegistry(pullExternal)}, readiness.Result{Status: readiness.InProgress, Reason: "ImagePullBackOff"}},
		// An Ingress has no rule: it is not waited for, baseline or not.
		{"ingress without an address, none backed up", ingress, ingress, nil, readiness.Result{Status: readiness.Current, Reason: readiness.ReasonNoConditions}},
		// A kind registered with External.
		{"gateway external, none backed up", gateway, gateway, []readiness.ComputeOption{readiness.WithRegistry(external)}, readiness.Result{Status: readiness.Current, Reason: readiness.ReasonAsBackedUp, Message: "not met when backed up either, so not waited for: no address yet (NoAddress)"}},
		{"gateway external, addressed backed up", gateway, gatewayAddressed, []readiness.ComputeOption{readiness.WithRegistry(external)}, readiness.Result{Status: readiness.InProgress, Reason: "NoAddress"}},
		{"gateway not external, none backed up", gateway, gateway, []readiness.ComputeOption{readiness.WithRegistry(notExternal)}, readiness.Result{Status: readiness.InProgress, Reason: "NoAddress"}},
		{"gateway without its rule, none backed up", gateway, gateway, nil, readiness.Result{Status: readiness.Current, Reason: readiness.ReasonNoConditions}},
		// The restored object decides first: its own Terminating or malformed status stands.
		{"lb terminating now", `{"apiVersion":"v1","kind":"Service","metadata":{"name":"front","deletionTimestamp":"2026-11-22T11:00:00Z"},` + lbSpec + `}`, lbNoIngress, nil, readiness.Result{Status: readiness.Terminating, Reason: readiness.ReasonTerminating}},
		{"lb malformed now", `{` + svcHead + `,` + lbSpec + `,"status":{"loadBalancer":{"ingress":["x"]}}}`, lbNoIngress, nil, readiness.Result{Status: readiness.Unknown, Reason: readiness.ReasonMalformed}},
		// A malformed or mismatched baseline relaxes nothing: the restored object is judged
		// as without one.
		{"baseline malformed ingress entry", lbNoIngress, `{` + svcHead + `,` + lbSpec + `,"status":{"loadBalancer":{"ingress":["x"]}}}`, nil, readiness.Result{Status: readiness.InProgress, Reason: readiness.ReasonNoIngress}},
		{"baseline malformed ingress list", lbNoIngress, `{` + svcHead + `,` + lbSpec + `,"status":{"loadBalancer":{"ingress":"203.0.113.7"}}}`, nil, readiness.Result{Status: readiness.InProgress, Reason: readiness.ReasonNoIngress}},
		{"baseline malformed status", lbNoIngress, `{` + svcHead + `,` + lbSpec + `,"status":"weird"}`, nil, readiness.Result{Status: readiness.InProgress, Reason: readiness.ReasonNoIngress}},
		{"baseline malformed spec", lbNoIngress, `{` + svcHead + `,"spec":"LoadBalancer"}`, nil, readiness.Result{Status: readiness.InProgress, Reason: readiness.ReasonNoIngress}},
		{"baseline malformed metadata", lbNoIngress, `{"apiVersion":"v1","kind":"Service","metadata":"front",` + lbSpec + `}`, nil, readiness.Result{Status: readiness.InProgress, Reason: readiness.ReasonNoIngress}},
		{"baseline terminating", lbNoIngress, `{"apiVersion":"v1","kind":"Service","metadata":{"name":"front","deletionTimestamp":"2026-11-22T11:00:00Z"},` + lbSpec + `}`, nil, readiness.Result{Status: readiness.InProgress, Reason: readiness.ReasonNoIngress}},
		{"baseline of another kind", lbNoIngress, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"front"}}`, nil, readiness.Result{Status: readiness.InProgress, Reason: readiness.ReasonNoIngress}},
		{"baseline of another group", lbNoIngress, `{"apiVersion":"example.com/v1","kind":"Service","metadata":{"name":"front"},` + lbSpec + `}`, nil, readiness.Result{Status: readiness.InProgress, Reason: readiness.ReasonNoIngress}},
		{"baseline of another kind with the same External reason", lbNoIngress, lbNoIngress, []readiness.ComputeOption{readiness.WithRegistry(shared)}, readiness.Result{Status: readiness.Current, Reason: readiness.ReasonAsBackedUp}},
		{"baseline of another kind with the same External reason, another kind", gateway, lbNoIngress, []readiness.ComputeOption{readiness.WithRegistry(shared)}, readiness.Result{Status: readiness.InProgress, Reason: readiness.ReasonNoIngress}},
		{"baseline of another kind with the same External reason, the other way", lbNoIngress, gateway, []readiness.ComputeOption{readiness.WithRegistry(shared)}, readiness.Result{Status: readiness.InProgress, Reason: readiness.ReasonNoIngress}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := obj(t, tt.restored)
			var base *unstructured.Unstructured
			if tt.baseline != "" {
				base = obj(t, tt.baseline)
			}
			baseBefore := base.DeepCopy()
			got := readiness.Compute(u, append(tt.opts, readiness.WithBaseline(base))...)
			require.Equal(t, tt.want.Status, got.Status, got.String())
			require.Equal(t, tt.want.Reason, got.Reason, got.String())
			if tt.want.Message != "" {
				require.Equal(t, tt.want.Message, got.Message)
			}
			require.Equal(t, baseBefore, base, "the baseline is not modified")
			if got.Reason != readiness.ReasonAsBackedUp {
				require.Equal(t, readiness.Compute(u, tt.opts...), got, "not relaxed: the result without a baseline")
			}
		})
	}
	t.Run("nil, empty and kindless baselines change nothing", func(t *testing.T) {
		u := obj(t, lbNoIngress)
		kindless := map[string]any{"metadata": map[string]any{"name": "front"}, "spec": map[string]any{"type": "LoadBalancer"}}
		for _, base := range []*unstructured.Unstructured{nil, {}, {Object: map[string]any{}}, {Object: kindless}} {
			require.Equal(t, readiness.Compute(u), readiness.Compute(u, readiness.WithBaseline(base)))
		}
	})
	t.Run("External adds to earlier calls and copies its reasons", func(t *testing.T) {
		reasons := []readiness.Reason{"NoAddress"}
		reg := readiness.NewRegistry()
		reg.Register(gatewayGK, gatewayRule, readiness.External("Other"), readiness.External(reasons...))
		reasons[0] = "Changed"
		got := readiness.Compute(obj(t, gateway), readiness.WithRegistry(reg), readiness.WithBaseline(obj(t, gateway)))
		require.Equal(t, readiness.ReasonAsBackedUp, got.Reason)
	})
}

func svcRef(ns, name string) readiness.ObjectRef {
	return readiness.ObjectRef{GroupKind: schema.GroupKind{Kind: "Service"}, Namespace: ns, Name: name}
}

func TestWaitWithBaselines(t *testing.T) {
	// The restored Service never gets an ingress: no load-balancer controller.
	setup := func(t *testing.T) *fakeGetter {
		g := newFake()
		g.add("shop", "front", resp{obj: obj(t, lbNoIngress)})
		return g
	}
	refs := []readiness.ObjectRef{svcRef("shop", "front")}
	backup := map[readiness.ObjectRef]string{svcRef("shop", "front"): lbNoIngress}
	baselines := func(t *testing.T, backup map[readiness.ObjectRef]string, asked *[]readiness.ObjectRef) func(readiness.ObjectRef) *unstructured.Unstructured {
		return func(r readiness.ObjectRef) *unstructured.Unstructured {
			*asked = append(*asked, r)
			if js, ok := backup[r]; ok {
				return obj(t, js)
			}
			return nil
		}
	}

	t.Run("no ingress when backed up: Current at once", func(t *testing.T) {
		var asked []readiness.ObjectRef
		rep, elapsed, err := runWait(t, context.Background(), setup(t), refs,
			readiness.WithTimeout(10*time.Second), readiness.WithBaselines(baselines(t, backup, &asked)))
		require.NoError(t, err)
		require.Zero(t, elapsed)
		require.Equal(t, 1, rep.Calls)
		require.Equal(t, readiness.Result{Status: readiness.Current, Reason: readiness.ReasonAsBackedUp, Message: asBackedUpNoIngress}, rep.Items[0].Result)
		require.Equal(t, refs, asked, "called once per ref, with the ref as given")
	})
	t.Run("no baselines: times out", func(t *testing.T) {
		rep, elapsed, err := runWait(t, context.Background(), setup(t), refs, readiness.WithTimeout(10*time.Second))
		require.ErrorIs(t, err, readiness.ErrTimeout)
		require.Equal(t, 10*time.Second, elapsed)
		require.Equal(t, readiness.ReasonNoIngress, rep.Items[0].Result.Reason)
	})
	t.Run("ingress when backed up: times out", func(t *testing.T) {
		var asked []readiness.ObjectRef
		rep, _, err := runWait(t, context.Background(), setup(t), refs, readiness.WithTimeout(10*time.Second),
			readiness.WithBaselines(baselines(t, map[readiness.ObjectRef]string{svcRef("shop", "front"): lbIngress}, &asked)))
		require.ErrorIs(t, err, readiness.ErrTimeout)
		require.Equal(t, readiness.ReasonNoIngress, rep.Items[0].Result.Reason)
		require.Equal(t, 11, rep.Calls, "read at 0s..10s")
		require.Len(t, asked, 1, "called once, not per read")
	})
	t.Run("no backed-up object of the ref: times out", func(t *testing.T) {
		var asked []readiness.ObjectRef
		rep, _, err := runWait(t, context.Background(), setup(t), refs, readiness.WithTimeout(10*time.Second),
			readiness.WithBaselines(baselines(t, nil, &asked)))
		require.ErrorIs(t, err, readiness.ErrTimeout)
		require.Equal(t, readiness.ReasonNoIngress, rep.Items[0].Result.Reason)
	})
	t.Run("ingress comes later, with a baseline that had one", func(t *testing.T) {
		g := newFake()
		g.add("shop", "front", resp{obj: obj(t, lbNoIngress)}, resp{obj: obj(t, lbNoIngress)}, resp{obj: obj(t, lbIngress)})
		var asked []readiness.ObjectRef
		rep, elapsed, err := runWait(t, context.Background(), g, refs, readiness.WithTimeout(10*time.Second),
			readiness.WithBaselines(baselines(t, map[readiness.ObjectRef]string{svcRef("shop", "front"): lbIngress}, &asked)))
		require.NoError(t, err)
		require.Equal(t, 2*time.Second, elapsed)
		require.Equal(t, readiness.ReasonLoadBalancerReady, rep.Items[0].Result.Reason)
	})
	t.Run("other kinds are still waited for", func(t *testing.T) {
		g := setup(t)
		g.add("shop", "web", resp{obj: deploy("shop", "web", "u1", "progressing")})
		both := append([]readiness.ObjectRef{ref("shop", "web")}, refs...)
		var asked []readiness.ObjectRef
		rep, _, err := runWait(t, context.Background(), g, both, readiness.WithTimeout(3*time.Second), readiness.WithKeepGoing(),
			readiness.WithBaselines(baselines(t, map[readiness.ObjectRef]string{
				ref("shop", "web"):      `{` + deployHead + `,"spec":{"replicas":1},"status":{"observedGeneration":2,"replicas":1,"updatedReplicas":1}}`,
				svcRef("shop", "front"): lbNoIngress,
			}, &asked)))
		require.ErrorIs(t, err, readiness.ErrTimeout)
		require.ErrorIs(t, rep.Items[0].Err, readiness.ErrTimeout)
		require.Equal(t, readiness.ReasonLessAvailable, rep.Items[0].Result.Reason)
		require.NoError(t, rep.Items[1].Err)
		require.Equal(t, readiness.ReasonAsBackedUp, rep.Items[1].Result.Reason)
		require.ElementsMatch(t, both, asked)
	})
	t.Run("AreItemsReady", func(t *testing.T) {
		var asked []readiness.ObjectRef
		ready := readiness.AreItemsReady(context.Background(), setup(t), func(r readiness.ObjectRef) readiness.ObjectRef { return r },
			readiness.WithBaselines(baselines(t, backup, &asked)))
		ok, err := ready(refs)
		require.NoError(t, err)
		require.True(t, ok)
		ok, err = readiness.AreItemsReady(context.Background(), setup(t), func(r readiness.ObjectRef) readiness.ObjectRef { return r })(refs)
		require.NoError(t, err)
		require.False(t, ok)
	})
}

// anyObject draws an object for the baseline laws: a Service most often (a LoadBalancer
// among them often, with or without an ingress), else another kind, each part either of
// the shape the rules read or anything anyValue draws.
func anyObject(t *rapid.T, label string) *unstructured.Unstructured {
	k := rapid.SampledFrom([][2]string{{"v1", "Service"}, {"v1", "Service"}, {"v1", "Service"}, {"example.com/v1", "Service"}, {"example.com/v1", "Service"},
		{"apps/v1", "Deployment"}, {"v1", "PersistentVolumeClaim"}, {"v1", "Pod"}, {"example.com/v1", "Widget"}, {"v1", "ConfigMap"}}).Draw(t, label+" kind")
	o := map[string]any{"apiVersion": k[0], "kind": k[1]}
	if rapid.IntRange(0, 3).Draw(t, label+" metadata") == 0 {
		o["metadata"] = anyValue(2).Draw(t, label+" any metadata")
	} else {
		o["metadata"] = map[string]any{"name": "front", "generation": rapid.Int64Range(0, 2).Draw(t, label+" generation")}
	}
	if rapid.IntRange(0, 3).Draw(t, label+" spec") == 0 {
		o["spec"] = anyValue(2).Draw(t, label+" any spec")
	} else {
		o["spec"] = map[string]any{"type": rapid.SampledFrom([]string{"LoadBalancer", "LoadBalancer", "ClusterIP", "NodePort"}).Draw(t, label+" type"),
			"replicas": rapid.Int64Range(0, 2).Draw(t, label+" replicas")}
	}
	switch rapid.IntRange(0, 6).Draw(t, label+" status") {
	case 0: // absent
	case 1:
		o["status"] = anyValue(3).Draw(t, label+" any status")
	case 2:
		o["status"] = map[string]any{"loadBalancer": map[string]any{}}
	case 3:
		o["status"] = map[string]any{"loadBalancer": map[string]any{"ingress": []any{map[string]any{"ip": "203.0.113.7"}}}}
	case 4:
		o["status"] = map[string]any{"loadBalancer": map[string]any{"ingress": []any{map[string]any{}}}}
	case 5:
		o["status"] = map[string]any{"loadBalancer": map[string]any{"ingress": anyValue(2).Draw(t, label+" any ingress")}}
	default:
		o["status"] = map[string]any{"observedGeneration": rapid.Int64Range(0, 2).Draw(t, label+" observed"),
			"replicas": rapid.Int64Range(0, 2).Draw(t, label+" status replicas"), "phase": "Pending"}
	}
	return &unstructured.Unstructured{Object: o}
}

// TestBaselineLaws: a baseline never makes a result worse: the result with one is the
// result without, or Current (AsBackedUp) where the result without is an External reason
// that the baseline gives too. Without External reasons a baseline changes nothing.
// Neither object is modified.
func TestBaselineLaws(t *testing.T) {
	svcRule, ok := readiness.NewRegistry().Lookup(schema.GroupKind{Kind: "Service"})
	require.True(t, ok)
	noExternal := readiness.NewRegistry()
	noExternal.Register(schema.GroupKind{Kind: "Service"}, svcRule)
	// Two kinds whose rules give the same External reason: only a baseline of the same
	// kind relaxes.
	shared := readiness.NewRegistry()
	shared.Register(schema.GroupKind{Group: "example.com", Kind: "Service"}, svcRule, readiness.External(readiness.ReasonNoIngress))
	rapid.Check(t, func(t *rapid.T) {
		u, base := anyObject(t, "restored"), anyObject(t, "backed up")
		uBefore, baseBefore := u.DeepCopy(), base.DeepCopy()
		var opts []readiness.ComputeOption
		if rapid.Bool().Draw(t, "lenient") {
			opts = append(opts, readiness.WithLenient())
		}
		if rapid.Bool().Draw(t, "shared") {
			opts = append(opts, readiness.WithRegistry(shared))
		}
		without := readiness.Compute(u, opts...)
		with := readiness.Compute(u, append(opts, readiness.WithBaseline(base))...)
		if with != without {
			backedUp := readiness.Compute(base, opts...)
			if with.Status != readiness.Current || with.Reason != readiness.ReasonAsBackedUp ||
				without.Status != readiness.InProgress || without.Reason != readiness.ReasonNoIngress ||
				backedUp.Status != readiness.InProgress || backedUp.Reason != readiness.ReasonNoIngress ||
				base.GroupVersionKind().GroupKind() != u.GroupVersionKind().GroupKind() {
				t.Fatalf("%v with the baseline, %v without, %v backed up\nrestored %v\nbacked up %v", with, without, backedUp, u.Object, base.Object)
			}
		}
		opts = append(opts, readiness.WithRegistry(noExternal))
		if a, b := readiness.Compute(u, opts...), readiness.Compute(u, append(opts, readiness.WithBaseline(base))...); a != b {
			t.Fatalf("no External reason, yet %v with the baseline, %v without", b, a)
		}
		require.Equal(t, uBefore, u)
		require.Equal(t, baseBefore, base)
	})
}
