package externaljob_test

import (
	"context"
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/backupkit/backupkit/convert"
	"github.com/backupkit/backupkit/examples/externaljob"
	jobv1 "github.com/backupkit/backupkit/examples/externaljob/v1"
	jobv2 "github.com/backupkit/backupkit/examples/externaljob/v2"
	jobv3 "github.com/backupkit/backupkit/examples/externaljob/v3"
)

// A v3 job with retries, read at v2 (which has no retries) and written back: the retries
// travel in v2's property bag, and the original version is recorded.
func Example() {
	r, err := externaljob.Registry()
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	hub := &jobv3.ExternalJob{
		ObjectMeta: metav1.ObjectMeta{Name: "nightly", Namespace: "jobs"},
		Spec:       jobv3.ExternalJobSpec{Schedule: "0 3 * * *", DeadlineSeconds: 600, Retries: 2, Command: []string{"backup"}},
	}
	v2, err := r.ConvertObject(ctx, hub, "v2")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%+v\n", v2.(*jobv2.ExternalJob).Spec)
	fmt.Println(v2.(*jobv2.ExternalJob).Annotations[convert.StashAnnotation])

	back, err := r.ConvertObject(ctx, v2, "v3")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%+v\n", back.(*jobv3.ExternalJob).Spec)
	fmt.Println(back.(*jobv3.ExternalJob).Annotations)

	v1, err := r.ConvertObject(ctx, &jobv3.ExternalJob{Spec: jobv3.ExternalJobSpec{Schedule: "@at 2026-07-01T00:00:00Z"}}, "v1")
	fmt.Printf("%+v %v\n", v1.(*jobv1.ExternalJob).Spec, err)
	// Output:
	// {Schedule:0 3 * * * DeadlineSeconds:600 Command:[backup]}
	// {"version":"v2","fields":{"retries":2}}
	// {Schedule:0 3 * * * DeadlineSeconds:600 Retries:2 Command:[backup]}
	// map[convert.backupkit.io/original-version:v3]
	// {RunAt:2026-07-01T00:00:00Z Command:[]} <nil>
}

// A controller reads every ExternalJob at the hub, v3, but drives an external scheduler
// that speaks the version each job was written in: it sends the spec at the job's
// original version, converting only the spec, and takes the status the scheduler reports,
// at that version, back into the hub object.
func Example_controller() {
	r, err := externaljob.Registry()
	if err != nil {
		fmt.Println(err)
		return
	}
	// As read from the API server: created at v1, stored at v3 with its original version.
	job := &jobv3.ExternalJob{
		ObjectMeta: metav1.ObjectMeta{Name: "once", Namespace: "jobs",
			Annotations: map[string]string{convert.OriginalVersionAnnotation: "v1"}},
		Spec: jobv3.ExternalJobSpec{Schedule: "@at 2026-07-01T00:00:00Z", Command: []string{"backup"}},
	}
	gvk, err := r.OriginalGVK(job)
	if err != nil {
		fmt.Println(err)
		return
	}
	spec, err := r.GetVersionedSpec(job)
	if err != nil {
		fmt.Println(err)
		return
	}
	body, _ := json.Marshal(spec)
	fmt.Println("send to the", gvk.Version, "scheduler:", string(body))

	// The scheduler answers with a v1 status.
	status, err := r.NewEmptyVersionedStatus(job)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := json.Unmarshal([]byte(`{"phase":"Running"}`), status); err != nil {
		fmt.Println(err)
		return
	}
	if err := r.SetVersionedStatus(job, status); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%T %+v\n", status, job.Status)
	// Output:
	// send to the v1 scheduler: {"runAt":"2026-07-01T00:00:00Z","command":["backup"]}
	// *v1.ExternalJobStatus {Phase:Running Attempts:0}
}
