package externaljob_test

import (
	"context"
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
