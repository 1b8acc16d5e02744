package v1

import (
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/backupkit/backupkit/convert"
)

// ExternalJob is ExternalJob v1: a command run once, at a given time.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:path=externaljobs,singular=externaljob,scope=Namespaced
// +kubebuilder:printcolumn:name="Run at",type=string,JSONPath=`.spec.runAt`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type ExternalJob struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              ExternalJobSpec   `json:"spec"`
	Status            ExternalJobStatus `json:"status,omitempty"`
}

// ExternalJobSpec is what v1 asks for.
type ExternalJobSpec struct {
	// RunAt is the RFC 3339 time of the only run; empty: not scheduled.
	// +optional
	RunAt string `json:"runAt,omitempty"`
	// Command is the program and its arguments.
	// +optional
	Command []string `json:"command,omitempty"`
}

// ExternalJobStatus is what v1 reports.
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

// NewEmptyStatus returns a new, zero v1 status.
func (*ExternalJob) NewEmptyStatus() convert.ConvertibleStatus { return &ExternalJobStatus{} }

// SetStatus sets the status from a *ExternalJobStatus.
func (j *ExternalJob) SetStatus(status convert.ConvertibleStatus) error {
	s, ok := status.(*ExternalJobStatus)
	if !ok {
		return fmt.Errorf("externaljob v1: SetStatus takes a *v1.ExternalJobStatus, not %T", status)
	}
	j.Status = *s
	return nil
}
