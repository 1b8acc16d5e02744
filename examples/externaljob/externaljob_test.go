package externaljob_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"

	"github.com/backupkit/backupkit/convert"
	"github.com/backupkit/backupkit/convert/converttest"
	"github.com/backupkit/backupkit/examples/externaljob"
	jobv1 "github.com/backupkit/backupkit/examples/externaljob/v1"
	jobv2 "github.com/backupkit/backupkit/examples/externaljob/v2"
	jobv3 "github.com/backupkit/backupkit/examples/externaljob/v3"
)

var (
	word     = rapid.StringMatching(`[a-z][a-z0-9-]{0,10}`)
	command  = rapid.SliceOfN(word, 0, 4)
	phase    = rapid.SampledFrom([]string{"", "Pending", "Running", "Succeeded", "Failed"})
	runAt    = rapid.SampledFrom([]string{"", "2026-01-02T03:04:05Z", "2030-12-31T23:59:59+02:00", "not a time"})
	schedule = rapid.OneOf(
		rapid.SampledFrom([]string{"", "@at ", "@at 2026-01-02T03:04:05Z", "@daily", "0 3 * * *"}),
		rapid.StringMatching(`@at [0-9T:Z-]{0,20}`),
		rapid.StringMatching(`[0-9*/ ,-]{1,20}`),
	)
)

func objectMeta(t *rapid.T) metav1.ObjectMeta {
	m := metav1.ObjectMeta{
		Name:            word.Draw(t, "name"),
		Namespace:       rapid.SampledFrom([]string{"", "default", "jobs"}).Draw(t, "namespace"),
		UID:             types.UID(rapid.StringMatching(`[0-9a-f]{0,12}`).Draw(t, "uid")),
		ResourceVersion: rapid.StringMatching(`[0-9]{0,5}`).Draw(t, "resourceVersion"),
		Generation:      rapid.Int64Range(0, 9).Draw(t, "generation"),
	}
	if labels := rapid.MapOfN(word, word, 0, 3).Draw(t, "labels"); len(labels) > 0 {
		m.Labels = labels
	}
	if annotations := rapid.MapOfN(word, rapid.String(), 0, 3).Draw(t, "annotations"); len(annotations) > 0 {
		m.Annotations = annotations
	}
	return m
}

var (
	genV1 = rapid.Custom(func(t *rapid.T) *jobv1.ExternalJob {
		return &jobv1.ExternalJob{ObjectMeta: objectMeta(t),
			Spec:   jobv1.ExternalJobSpec{RunAt: runAt.Draw(t, "runAt"), Command: command.Draw(t, "command")},
			Status: jobv1.ExternalJobStatus{Phase: phase.Draw(t, "phase")}}
	})
	genV2 = rapid.Custom(func(t *rapid.T) *jobv2.ExternalJob {
		return &jobv2.ExternalJob{ObjectMeta: objectMeta(t),
			Spec: jobv2.ExternalJobSpec{Schedule: schedule.Draw(t, "schedule"), DeadlineSeconds: rapid.Int64Range(0, 86400).Draw(t, "deadline"),
				Command: command.Draw(t, "command")},
			Status: jobv2.ExternalJobStatus{Phase: phase.Draw(t, "phase")}}
	})
	genV3 = rapid.Custom(func(t *rapid.T) *jobv3.ExternalJob {
		return &jobv3.ExternalJob{ObjectMeta: objectMeta(t),
			Spec: jobv3.ExternalJobSpec{Schedule: schedule.Draw(t, "schedule"), DeadlineSeconds: rapid.Int64Range(0, 86400).Draw(t, "deadline"),
				Retries: rapid.Int32Range(0, 10).Draw(t, "retries"), Command: command.Draw(t, "command")},
			Status: jobv3.ExternalJobStatus{Phase: phase.Draw(t, "phase"), Attempts: rapid.Int32Range(0, 20).Draw(t, "attempts")}}
	})
)

func TestRoundTripV1(t *testing.T) {
	converttest.CheckRoundTrip(t, genV1, genV3)
}

func TestRoundTripV2(t *testing.T) {
	converttest.CheckRoundTrip(t, genV2, genV3)
}

// Each spoke's spec and status, converted alone, come back from the hub as they were.
func TestPartsRoundTrip(t *testing.T) {
	t.Run("v1", func(t *testing.T) { converttest.CheckPartsRoundTrip[*jobv1.ExternalJob, *jobv3.ExternalJob](t, genV1) })
	t.Run("v2", func(t *testing.T) { converttest.CheckPartsRoundTrip[*jobv2.ExternalJob, *jobv3.ExternalJob](t, genV2) })
}

// Through every version and original version, a spec or status converted alone to the
// original version is that of the whole object converted there (no property bag aside).
func TestVersionedPartsAgree(t *testing.T) {
	r, err := externaljob.Registry()
	require.NoError(t, err)
	rapid.Check(t, func(t *rapid.T) {
		var obj convert.Resource
		switch rapid.SampledFrom([]string{"v1", "v2", "v3"}).Draw(t, "version") {
		case "v1":
			obj = genV1.Draw(t, "v1")
		case "v2":
			obj = genV2.Draw(t, "v2")
		default:
			obj = genV3.Draw(t, "v3")
		}
		original := rapid.SampledFrom([]string{"v1", "v2", "v3"}).Draw(t, "original")
		convert.RecordOriginalVersion(obj, original)
		whole, err := r.ConvertObject(context.Background(), obj, original)
		if err != nil {
			t.Fatal(err)
		}
		spec, err := r.GetVersionedSpec(obj)
		if err != nil {
			t.Fatal(err)
		}
		require.Equal(t, whole.(convert.Resource).GetSpec(), spec)
		status, err := r.GetVersionedStatus(obj)
		if err != nil {
			t.Fatal(err)
		}
		require.Equal(t, whole.(convert.Resource).GetStatus(), status)
	})
}

// TestRegistryRoundTrips goes through the registry, unstructured in and out as a restore
// does: every version to every other and back to where it started, and to the original
// version in one call.
func TestRegistryRoundTrips(t *testing.T) {
	r, err := externaljob.Registry()
	require.NoError(t, err)
	rapid.Check(t, func(t *rapid.T) {
		var start *unstructured.Unstructured
		switch v := rapid.SampledFrom([]string{"v1", "v2", "v3"}).Draw(t, "version"); v {
		case "v1":
			start = toUnstructured(t, genV1.Draw(t, "v1"), v)
		case "v2":
			start = toUnstructured(t, genV2.Draw(t, "v2"), v)
		default:
			start = toUnstructured(t, genV3.Draw(t, "v3"), v)
		}
		to := rapid.SampledFrom([]string{"v1", "v2", "v3"}).Draw(t, "to")
		mid, err := r.Convert(context.Background(), start, to)
		if err != nil {
			t.Fatal(err)
		}
		if v, _ := convert.OriginalVersion(mid); to != start.GroupVersionKind().Version && v != start.GroupVersionKind().Version {
			t.Fatalf("original version %q recorded, want %q", v, start.GroupVersionKind().Version)
		}
		hub, err := r.Convert(context.Background(), mid, "v3")
		if err != nil {
			t.Fatal(err)
		}
		back, err := r.ToOriginalVersion(context.Background(), hub)
		if to == start.GroupVersionKind().Version {
			back, err = r.Convert(context.Background(), hub, start.GroupVersionKind().Version)
		}
		if err != nil {
			t.Fatal(err)
		}
		unstructured.RemoveNestedField(back.Object, "metadata", "annotations", convert.OriginalVersionAnnotation)
		if len(back.GetAnnotations()) == 0 {
			unstructured.RemoveNestedField(back.Object, "metadata", "annotations")
		}
		require.Equal(t, start.Object, back.Object)
	})
}

func toUnstructured(t *rapid.T, obj runtime.Object, version string) *unstructured.Unstructured {
	obj.GetObjectKind().SetGroupVersionKind(externaljob.GroupKind.WithVersion(version))
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: m}
}
