package originalversion_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/backupkit/backupkit/convert"
	"github.com/backupkit/backupkit/examples/externaljob"
	jobv1 "github.com/backupkit/backupkit/examples/externaljob/v1"
	jobv2 "github.com/backupkit/backupkit/examples/externaljob/v2"
	jobv3 "github.com/backupkit/backupkit/examples/externaljob/v3"
	"github.com/backupkit/backupkit/internal/testcluster"
)

var versions = []string{"v1", "v2", "v3"}

func jobs(version string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: externaljob.Group, Version: version, Resource: externaljob.Resource}
}

// specAt is the spec an author writes at each version, as the API server returns it.
var specAt = map[string]map[string]any{
	"v1": {"runAt": "2026-07-01T00:00:00Z", "command": []any{"backup"}},
	"v2": {"schedule": "0 3 * * *", "deadlineSeconds": int64(600), "command": []any{"backup"}},
	"v3": {"schedule": "0 3 * * *", "deadlineSeconds": int64(600), "retries": int64(2), "command": []any{"backup"}},
}

func job(version, name string) *unstructured.Unstructured {
	spec, _ := runtime.DeepCopyJSONValue(specAt[version]).(map[string]any)
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": externaljob.Group + "/" + version,
		"kind":       externaljob.Kind,
		"metadata":   map[string]any{"name": name, "labels": map[string]any{"created-at": version}},
		"spec":       spec,
	}}
}

// typed decodes u into its version's Go type, as a controller reads it.
func typed(t *testing.T, u *unstructured.Unstructured) convert.Resource {
	t.Helper()
	obj, err := externaljob.NewScheme().New(u.GroupVersionKind())
	require.NoError(t, err)
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, obj))
	obj.GetObjectKind().SetGroupVersionKind(u.GroupVersionKind())
	return obj.(convert.Resource)
}

// The CRD the cluster serves is controller-gen's, with the webhook: three versions, each
// with its own schema, printer columns and the status subresource, v3 stored.
func TestGeneratedCRDServed(t *testing.T) {
	c := env.Cluster(t)
	dyn, err := dynamic.NewForConfig(c.RESTConfig())
	require.NoError(t, err)
	reg, err := externaljob.Registry()
	require.NoError(t, err)
	generated, err := externaljob.CRD()
	require.NoError(t, err)
	require.NoError(t, reg.CheckCRD(generated), "the registry accepts the generated CRD")

	got, err := dyn.Resource(testcluster.CRDResource).Get(t.Context(), generated.GetName(), metav1.GetOptions{})
	require.NoError(t, err)
	require.NoError(t, reg.CheckCRD(got), "and the one the API server serves")
	strategy, _, _ := unstructured.NestedString(got.Object, "spec", "conversion", "strategy")
	require.Equal(t, "Webhook", strategy)
	url, _, _ := unstructured.NestedString(got.Object, "spec", "conversion", "webhook", "clientConfig", "url")
	require.Equal(t, webhookURL, url)
	served, _, err := unstructured.NestedSlice(got.Object, "spec", "versions")
	require.NoError(t, err)
	require.Len(t, served, len(versions))
	for i, e := range served {
		v := e.(map[string]any)
		require.Equal(t, versions[i], v["name"])
		require.Equal(t, versions[i] == "v3", v["storage"], "%s stored", v["name"])
		require.Equal(t, map[string]any{"status": map[string]any{}}, v["subresources"], "%s subresources", v["name"])
		require.NotEmpty(t, v["additionalPrinterColumns"], "%s printer columns", v["name"])
		props, _, _ := unstructured.NestedMap(v, "schema", "openAPIV3Schema", "properties", "spec", "properties")
		for field := range specAt[versions[i]] {
			require.Contains(t, props, field, "%s schema", v["name"])
		}
		require.Len(t, props, map[string]int{"v1": 2, "v2": 3, "v3": 4}[versions[i]], "%s schema: its own fields only", v["name"])
	}
}

// An object created at each version (and at the hub), read back at every version, updated
// at another, stored and read again: its original version is recoverable, as the package
// doc of convert says, and what happens at the hub is what it says too.
func TestOriginalVersionThroughAPIServer(t *testing.T) {
	c := env.Cluster(t)
	dyn, err := dynamic.NewForConfig(c.RESTConfig())
	require.NoError(t, err)
	ns := c.Namespace(t)
	reg, err := externaljob.Registry()
	require.NoError(t, err)
	ctx := context.Background()
	// updateAt is the version each object is updated at: another one.
	updateAt := map[string]string{"v1": "v2", "v2": "v3", "v3": "v1"}

	for _, created := range versions {
		t.Run("created at "+created, func(t *testing.T) {
			name := "job-" + created
			made, err := dyn.Resource(jobs(created)).Namespace(ns).Create(t.Context(), job(created, name), metav1.CreateOptions{})
			require.NoError(t, err)
			require.Equal(t, specAt[created], made.Object["spec"])

			// Read at every version. An object created at a spoke was converted to the hub to
			// be stored, and recorded then: every read shows its version. One created at the
			// hub was stored as it came, with no record: read at the hub it has none, and
			// read at a spoke the webhook, converting it from the hub, records the hub.
			for _, read := range versions {
				got, err := dyn.Resource(jobs(read)).Namespace(ns).Get(t.Context(), name, metav1.GetOptions{})
				require.NoError(t, err, "read at %s", read)
				require.Equal(t, made.GetUID(), got.GetUID())
				original, ok := convert.OriginalVersion(got)
				switch {
				case created == "v3" && read == "v3":
					require.False(t, ok, "created at the hub, read at the hub: no record, got %q", original)
					_, err := reg.ToOriginalVersion(ctx, got)
					require.ErrorIs(t, err, convert.ErrNoOriginalVersion)
					gvk, err := reg.OriginalGVK(got)
					require.NoError(t, err)
					require.Equal(t, "v3", gvk.Version, "OriginalGVK takes the object's own version")
				default:
					require.True(t, ok, "read at %s: a record", read)
					require.Equal(t, created, original, "read at %s", read)
				}
				if read == created {
					require.Equal(t, specAt[created], got.Object["spec"], "read at the version it was created at")
				}
				back, err := reg.Convert(ctx, got, created)
				require.NoError(t, err)
				require.Equal(t, specAt[created], back.Object["spec"], "read at %s, converted to %s", read, created)
			}

			// Updated at another version, as a client of that version does: read, change, write.
			other := updateAt[created]
			cur, err := dyn.Resource(jobs(other)).Namespace(ns).Get(t.Context(), name, metav1.GetOptions{})
			require.NoError(t, err)
			labels := cur.GetLabels()
			labels["updated-at"] = other
			cur.SetLabels(labels)
			updated, err := dyn.Resource(jobs(other)).Namespace(ns).Update(t.Context(), cur, metav1.UpdateOptions{})
			require.NoError(t, err)
			require.NotEqual(t, made.GetResourceVersion(), updated.GetResourceVersion(), "stored anew")

			// Read again at the hub, what was stored: the record is the version it was created
			// at, now for the object created at the hub too (its update at v1 wrote the record
			// the read at v1 had shown). One call turns it back into what its author wrote.
			stored, err := dyn.Resource(jobs("v3")).Namespace(ns).Get(t.Context(), name, metav1.GetOptions{})
			require.NoError(t, err)
			require.Equal(t, map[string]string{"created-at": created, "updated-at": other}, stored.GetLabels())
			original, ok := convert.OriginalVersion(stored)
			require.True(t, ok, "stored with a record")
			require.Equal(t, created, original)
			atHub, err := reg.Convert(ctx, job(created, name), "v3")
			require.NoError(t, err)
			require.Equal(t, atHub.Object["spec"], stored.Object["spec"], "nothing was lost at the hub, whatever the version updated at")
			back, err := reg.ToOriginalVersion(ctx, stored)
			require.NoError(t, err)
			require.Equal(t, externaljob.Group+"/"+created, back.GetAPIVersion())
			require.Equal(t, specAt[created], back.Object["spec"])

			// A controller reading the hub gets the spec at the original version alone.
			gvk, err := reg.OriginalGVK(stored)
			require.NoError(t, err)
			require.Equal(t, externaljob.GroupKind.WithVersion(created), gvk)
			spec, err := reg.GetVersionedSpec(typed(t, stored))
			require.NoError(t, err)
			require.Equal(t, typed(t, back).GetSpec(), spec)
			empty, err := reg.NewEmptyVersionedStatus(typed(t, stored))
			require.NoError(t, err)
			require.IsType(t, map[string]convert.ConvertibleStatus{"v1": &jobv1.ExternalJobStatus{}, "v2": &jobv2.ExternalJobStatus{}, "v3": &jobv3.ExternalJobStatus{}}[created], empty)
		})
	}
}
