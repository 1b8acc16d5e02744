package externaljob

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Group is the API group of ExternalJob; Kind its kind; Resource the resource it is served as.
const (
	Group    = "batch.backupkit.io"
	Kind     = "ExternalJob"
	Resource = "externaljobs"
)

// GroupKind is ExternalJob's group and kind.
var GroupKind = schema.GroupKind{Group: Group, Kind: Kind}

// V1 is ExternalJob v1: one run at a given time.
type V1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              V1Spec   `json:"spec"`
	Status            V1Status `json:"status,omitempty"`
}

// V1Spec is what v1 asks for.
type V1Spec struct {
	// RunAt is the RFC 3339 time of the only run; empty: not scheduled.
	RunAt string `json:"runAt,omitempty"`
	// Command is the program and its arguments.
	Command []string `json:"command,omitempty"`
}

// V1Status is what v1 reports.
type V1Status struct {
	// Phase is Pending, Running, Succeeded or Failed.
	Phase string `json:"phase,omitempty"`
}

// V2 is ExternalJob v2: runs on a cron schedule with a deadline.
type V2 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              V2Spec   `json:"spec"`
	Status            V2Status `json:"status,omitempty"`
}

// V2Spec is what v2 asks for.
type V2Spec struct {
	// Schedule is a cron expression, or "@at <RFC 3339 time>" for one run.
	Schedule string `json:"schedule,omitempty"`
	// DeadlineSeconds bounds each run; 0: no deadline.
	DeadlineSeconds int64 `json:"deadlineSeconds,omitempty"`
	// Command is the program and its arguments.
	Command []string `json:"command,omitempty"`
}

// V2Status is what v2 reports.
type V2Status struct {
	// Phase is Pending, Running, Succeeded or Failed.
	Phase string `json:"phase,omitempty"`
}

// V3 is ExternalJob v3, the hub: v2 plus retries.
type V3 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              V3Spec   `json:"spec"`
	Status            V3Status `json:"status,omitempty"`
}

// V3Spec is what v3 asks for.
type V3Spec struct {
	// Schedule is a cron expression, or "@at <RFC 3339 time>" for one run.
	Schedule string `json:"schedule,omitempty"`
	// DeadlineSeconds bounds each run; 0: no deadline.
	DeadlineSeconds int64 `json:"deadlineSeconds,omitempty"`
	// Retries is how many times a failed run is retried.
	Retries int32 `json:"retries,omitempty"`
	// Command is the program and its arguments.
	Command []string `json:"command,omitempty"`
}

// V3Status is what v3 reports.
type V3Status struct {
	// Phase is Pending, Running, Succeeded or Failed.
	Phase string `json:"phase,omitempty"`
	// Attempts counts the runs of the current schedule, retries included.
	Attempts int32 `json:"attempts,omitempty"`
}

// Hub marks V3 as the hub version.
func (*V3) Hub() {}

// DeepCopyObject returns a deep copy.
func (j *V1) DeepCopyObject() runtime.Object {
	c := *j
	j.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	c.Spec.Command = cloneStrings(j.Spec.Command)
	return &c
}

// DeepCopyObject returns a deep copy.
func (j *V2) DeepCopyObject() runtime.Object {
	c := *j
	j.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	c.Spec.Command = cloneStrings(j.Spec.Command)
	return &c
}

// DeepCopyObject returns a deep copy.
func (j *V3) DeepCopyObject() runtime.Object {
	c := *j
	j.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	c.Spec.Command = cloneStrings(j.Spec.Command)
	return &c
}

func cloneStrings(s []string) []string {
	if s == nil {
		return nil
	}
	return append([]string{}, s...)
}
