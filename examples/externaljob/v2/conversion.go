package v2

import (
	"fmt"
	"slices"

	"github.com/backupkit/backupkit/convert"
	v3 "github.com/backupkit/backupkit/examples/externaljob/v3"
)

// ConvertSpecTo converts the spec to the hub's.
func (s *ExternalJobSpec) ConvertSpecTo(hub convert.ConvertibleSpec) error {
	h, ok := hub.(*v3.ExternalJobSpec)
	if !ok {
		return fmt.Errorf("externaljob v2: spec converts to *v3.ExternalJobSpec, not %T", hub)
	}
	*h = v3.ExternalJobSpec{Schedule: s.Schedule, DeadlineSeconds: s.DeadlineSeconds, Command: slices.Clone(s.Command)}
	return nil
}

// ConvertSpecFrom fills the spec from the hub's; retries are dropped (ConvertFrom stashes
// them).
func (s *ExternalJobSpec) ConvertSpecFrom(hub convert.ConvertibleSpec) error {
	h, ok := hub.(*v3.ExternalJobSpec)
	if !ok {
		return fmt.Errorf("externaljob v2: spec converts from *v3.ExternalJobSpec, not %T", hub)
	}
	*s = ExternalJobSpec{Schedule: h.Schedule, DeadlineSeconds: h.DeadlineSeconds, Command: slices.Clone(h.Command)}
	return nil
}

// ConvertStatusTo converts the status to the hub's.
func (s *ExternalJobStatus) ConvertStatusTo(hub convert.ConvertibleStatus) error {
	h, ok := hub.(*v3.ExternalJobStatus)
	if !ok {
		return fmt.Errorf("externaljob v2: status converts to *v3.ExternalJobStatus, not %T", hub)
	}
	*h = v3.ExternalJobStatus{Phase: s.Phase}
	return nil
}

// ConvertStatusFrom fills the status from the hub's; attempts are dropped (ConvertFrom
// stashes them).
func (s *ExternalJobStatus) ConvertStatusFrom(hub convert.ConvertibleStatus) error {
	h, ok := hub.(*v3.ExternalJobStatus)
	if !ok {
		return fmt.Errorf("externaljob v2: status converts from *v3.ExternalJobStatus, not %T", hub)
	}
	*s = ExternalJobStatus{Phase: h.Phase}
	return nil
}

// ConvertTo converts the whole object to the hub: the spec and status as ConvertSpecTo and
// ConvertStatusTo do, then stashed retries and attempts come back from the property bag.
func (j *ExternalJob) ConvertTo(dst convert.Hub) error {
	h, ok := dst.(*v3.ExternalJob)
	if !ok {
		return fmt.Errorf("externaljob v2: converts to *v3.ExternalJob, not %T", dst)
	}
	h.ObjectMeta = j.ObjectMeta
	if err := j.Spec.ConvertSpecTo(&h.Spec); err != nil {
		return err
	}
	if err := j.Status.ConvertStatusTo(&h.Status); err != nil {
		return err
	}
	bag, err := convert.Unstash(h, "v2")
	if err != nil {
		return err
	}
	if _, err := bag.Get("retries", &h.Spec.Retries); err != nil {
		return err
	}
	_, err = bag.Get("attempts", &h.Status.Attempts)
	return err
}

// ConvertFrom converts the hub to v2: the spec and status as ConvertSpecFrom and
// ConvertStatusFrom do, and retries and attempts into the property bag.
func (j *ExternalJob) ConvertFrom(src convert.Hub) error {
	h, ok := src.(*v3.ExternalJob)
	if !ok {
		return fmt.Errorf("externaljob v2: converts from *v3.ExternalJob, not %T", src)
	}
	j.ObjectMeta = h.ObjectMeta
	if err := j.Spec.ConvertSpecFrom(&h.Spec); err != nil {
		return err
	}
	if err := j.Status.ConvertStatusFrom(&h.Status); err != nil {
		return err
	}
	stash := map[string]any{}
	if h.Spec.Retries != 0 {
		stash["retries"] = h.Spec.Retries
	}
	if h.Status.Attempts != 0 {
		stash["attempts"] = h.Status.Attempts
	}
	return convert.Stash(j, "v2", stash)
}

var (
	_ convert.Convertible = (*ExternalJob)(nil)
	_ convert.Resource    = (*ExternalJob)(nil)
)
