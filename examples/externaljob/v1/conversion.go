package v1

import (
	"fmt"
	"slices"
	"strings"

	"github.com/backupkit/backupkit/convert"
	v3 "github.com/backupkit/backupkit/examples/externaljob/v3"
)

// atPrefix starts a v3 schedule that runs once, at the time that follows.
const atPrefix = "@at "

// ConvertSpecTo converts the spec to the hub's: runAt becomes the schedule "@at <runAt>".
func (s *ExternalJobSpec) ConvertSpecTo(hub convert.ConvertibleSpec) error {
	h, ok := hub.(*v3.ExternalJobSpec)
	if !ok {
		return fmt.Errorf("externaljob v1: spec converts to *v3.ExternalJobSpec, not %T", hub)
	}
	*h = v3.ExternalJobSpec{Command: slices.Clone(s.Command)}
	if s.RunAt != "" {
		h.Schedule = atPrefix + s.RunAt
	}
	return nil
}

// ConvertSpecFrom fills the spec from the hub's: a one-run schedule becomes runAt; a cron
// schedule, a deadline and retries are dropped (ConvertFrom stashes them).
func (s *ExternalJobSpec) ConvertSpecFrom(hub convert.ConvertibleSpec) error {
	h, ok := hub.(*v3.ExternalJobSpec)
	if !ok {
		return fmt.Errorf("externaljob v1: spec converts from *v3.ExternalJobSpec, not %T", hub)
	}
	*s = ExternalJobSpec{Command: slices.Clone(h.Command)}
	if at, isAt := strings.CutPrefix(h.Schedule, atPrefix); isAt && at != "" {
		s.RunAt = at
	}
	return nil
}

// ConvertStatusTo converts the status to the hub's.
func (s *ExternalJobStatus) ConvertStatusTo(hub convert.ConvertibleStatus) error {
	h, ok := hub.(*v3.ExternalJobStatus)
	if !ok {
		return fmt.Errorf("externaljob v1: status converts to *v3.ExternalJobStatus, not %T", hub)
	}
	*h = v3.ExternalJobStatus{Phase: s.Phase}
	return nil
}

// ConvertStatusFrom fills the status from the hub's; attempts are dropped (ConvertFrom
// stashes them).
func (s *ExternalJobStatus) ConvertStatusFrom(hub convert.ConvertibleStatus) error {
	h, ok := hub.(*v3.ExternalJobStatus)
	if !ok {
		return fmt.Errorf("externaljob v1: status converts from *v3.ExternalJobStatus, not %T", hub)
	}
	*s = ExternalJobStatus{Phase: h.Phase}
	return nil
}

// ConvertTo converts the whole object to the hub: the spec and status as ConvertSpecTo and
// ConvertStatusTo do, then a stashed schedule, deadline, retries or attempts come back
// from the property bag.
func (j *ExternalJob) ConvertTo(dst convert.Hub) error {
	h, ok := dst.(*v3.ExternalJob)
	if !ok {
		return fmt.Errorf("externaljob v1: converts to *v3.ExternalJob, not %T", dst)
	}
	h.ObjectMeta = j.ObjectMeta
	if err := j.Spec.ConvertSpecTo(&h.Spec); err != nil {
		return err
	}
	if err := j.Status.ConvertStatusTo(&h.Status); err != nil {
		return err
	}
	bag, err := convert.Unstash(h, "v1")
	if err != nil {
		return err
	}
	for key, into := range map[string]any{"schedule": &h.Spec.Schedule, "deadlineSeconds": &h.Spec.DeadlineSeconds, "retries": &h.Spec.Retries, "attempts": &h.Status.Attempts} {
		if _, err := bag.Get(key, into); err != nil {
			return err
		}
	}
	return nil
}

// ConvertFrom converts the hub to v1: the spec and status as ConvertSpecFrom and
// ConvertStatusFrom do, and what they drop (a schedule that is not a one-run one, a
// deadline, retries, attempts) into the property bag.
func (j *ExternalJob) ConvertFrom(src convert.Hub) error {
	h, ok := src.(*v3.ExternalJob)
	if !ok {
		return fmt.Errorf("externaljob v1: converts from *v3.ExternalJob, not %T", src)
	}
	j.ObjectMeta = h.ObjectMeta
	if err := j.Spec.ConvertSpecFrom(&h.Spec); err != nil {
		return err
	}
	if err := j.Status.ConvertStatusFrom(&h.Status); err != nil {
		return err
	}
	stash := map[string]any{}
	if h.Spec.Schedule != "" && j.Spec.RunAt == "" {
		stash["schedule"] = h.Spec.Schedule
	}
	putNonZero(stash, "deadlineSeconds", h.Spec.DeadlineSeconds)
	putNonZero(stash, "retries", h.Spec.Retries)
	putNonZero(stash, "attempts", h.Status.Attempts)
	return convert.Stash(j, "v1", stash)
}

func putNonZero[T comparable](m map[string]any, key string, v T) {
	var zero T
	if v != zero {
		m[key] = v
	}
}

var (
	_ convert.Convertible = (*ExternalJob)(nil)
	_ convert.Resource    = (*ExternalJob)(nil)
)
