package v3

import (
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/backupkit/backupkit/convert"
)

// ExternalJob is ExternalJob v3, the hub: a command run on a cron schedule, retried.
//
// +kubebuilder:object:root=true
// +kubebuilder:storageversion
// +kubebuilder:subresource:status
// +kubebuilder:resource:path=externaljobs,singular=externaljob,scope=Namespaced
// +kubebuilder:printcolumn:name="Schedule",type=string,JSONPath=`.spec.schedule`
// +kubebuilder:printcolumn:name="Retries",type=integer,JSONPath=`.spec.retries`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Attempts",type=integer,JSONPath=`.status.attempts`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type ExternalJob struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              ExternalJobSpec   `json:"spec"`
	Status            ExternalJobStatus `json:"status,omitempty"`
}

// ExternalJobSpec is what v3 asks for.
type ExternalJobSpec struct {
	// Schedule is a cron expression, or "@at <RFC 3339 time>" for one run.
	// +optional
	Schedule string `json:"schedule,omitempty"`
	// DeadlineSeconds bounds each run; 0: no deadline.
	// +kubebuilder:validation:Minimum=0
	// +optional
	DeadlineSeconds int64 `json:"deadlineSeconds,omitempty"`
	// Retries is how many times a failed run is retried.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Retries int32 `json:"retries,omitempty"`
	// Command is the program and its arguments.
	// +optional
	Command []string `json:"command,omitempty"`
}

// ExternalJobStatus is what v3 reports.
type ExternalJobStatus struct {
	// Phase is Pending, Running, Succeeded or Failed.
	// +optional
	Phase string `json:"phase,omitempty"`
	// Attempts counts the runs of the current schedule, retries included.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Attempts int32 `json:"attempts,omitempty"`
}

// Hub marks ExternalJob v3 as the hub version.
func (*ExternalJob) Hub() {}

// DeepCopyObject returns a deep copy.
func (j *ExternalJob) DeepCopyObject() runtime.Object {
	c := *j
	j.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	c.Spec.Command = slices.Clone(j.Spec.Command)
	return &c
}

// GetSpec returns a pointer to the spec.
func (j *ExternalJob) GetSpec() convert.ConvertibleSpec { return &j.Spec }

// GetStatus returns a pointer to the status.
func (j *ExternalJob) GetStatus() convert.ConvertibleStatus { return &j.Status }

// NewEmptyStatus returns a new, zero v3 status.
func (*ExternalJob) NewEmptyStatus() convert.ConvertibleStatus { return &ExternalJobStatus{} }

// SetStatus sets the status from a *ExternalJobStatus.
func (j *ExternalJob) SetStatus(status convert.ConvertibleStatus) error {
	s, ok := status.(*ExternalJobStatus)
	if !ok {
		return fmt.Errorf("externaljob v3: SetStatus takes a *v3.ExternalJobStatus, not %T", status)
	}
	j.Status = *s
	return nil
}

// errHub is what the hub's part methods return: the registry never calls them, the
// spokes' methods convert to and from the hub.
func errHub(method string) error {
	return fmt.Errorf("externaljob v3: %s: the hub converts nothing itself", method)
}

// ConvertSpecTo is never called: the hub's spec is the hub.
func (*ExternalJobSpec) ConvertSpecTo(convert.ConvertibleSpec) error {
	return errHub("ConvertSpecTo")
}

// ConvertSpecFrom is never called: the hub's spec is the hub.
func (*ExternalJobSpec) ConvertSpecFrom(convert.ConvertibleSpec) error {
	return errHub("ConvertSpecFrom")
}

// ConvertStatusTo is never called: the hub's status is the hub.
func (*ExternalJobStatus) ConvertStatusTo(convert.ConvertibleStatus) error {
	return errHub("ConvertStatusTo")
}

// ConvertStatusFrom is never called: the hub's status is the hub.
func (*ExternalJobStatus) ConvertStatusFrom(convert.ConvertibleStatus) error {
	return errHub("ConvertStatusFrom")
}

var (
	_ convert.Hub      = (*ExternalJob)(nil)
	_ convert.Resource = (*ExternalJob)(nil)
)
