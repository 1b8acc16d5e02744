package v2

import (
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/backupkit/backupkit/convert"
)

// ExternalJob is ExternalJob v2: a command run on a cron schedule with a deadline.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:path=externaljobs,singular=externaljob,scope=Namespaced
// +kubebuilder:printcolumn:name="Schedule",type=string,JSONPath=`.spec.schedule`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type ExternalJob struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              ExternalJobSpec   `json:"spec"`
	Status            ExternalJobStatus `json:"status,omitempty"`
}

// ExternalJobSpec is what v2 asks for.
type ExternalJobSpec struct {
	// Schedule is a cron expression, or "@at <RFC 3339 time>" for one run.
	// +optional
	Schedule string `json:"schedule,omitempty"`
	// DeadlineSeconds bounds each run; 0: no deadline.
	// +kubebuilder:validation:Minimum=0
	// +optional
	DeadlineSeconds int64 `json:"deadlineSeconds,omitempty"`
	// Command is the program and its arguments.
	// +optional
	Command []string `json:"command,omitempty"`
}

// ExternalJobStatus is what v2 reports.
type ExternalJobStatus struct {
	// Phase is Pending, Running, Succeeded or Failed.
	// +optional
	Phase string `json:"phase,omitempty"`
}

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

// NewEmptyStatus returns a new, zero v2 status.
func (*ExternalJob) NewEmptyStatus() convert.ConvertibleStatus { return &ExternalJobStatus{} }

// SetStatus sets the status from a *ExternalJobStatus.
func (j *ExternalJob) SetStatus(status convert.ConvertibleStatus) error {
	s, ok := status.(*ExternalJobStatus)
	if !ok {
		return fmt.Errorf("externaljob v2: SetStatus takes a *v2.ExternalJobStatus, not %T", status)
	}
	j.Status = *s
	return nil
}
