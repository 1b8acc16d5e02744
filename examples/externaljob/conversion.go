package externaljob

import (
	"fmt"
	"strings"

	"github.com/backupkit/backupkit/convert"
)

// atPrefix starts a v3 schedule that runs once, at the time that follows.
const atPrefix = "@at "

// ConvertTo converts v1 to the hub: runAt becomes the schedule "@at <runAt>"; a stashed
// schedule, deadline, retries or attempts come back from the property bag.
func (j *V1) ConvertTo(dst convert.Hub) error {
	h, ok := dst.(*V3)
	if !ok {
		return fmt.Errorf("externaljob: v1 converts to *V3, not %T", dst)
	}
	h.ObjectMeta = j.ObjectMeta
	h.Spec = V3Spec{Command: cloneStrings(j.Spec.Command)}
	if j.Spec.RunAt != "" {
		h.Spec.Schedule = atPrefix + j.Spec.RunAt
	}
	h.Status = V3Status{Phase: j.Status.Phase}
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

// ConvertFrom converts the hub to v1. A one-run schedule becomes runAt; a cron schedule,
// a deadline, retries and attempts go into the property bag.
func (j *V1) ConvertFrom(src convert.Hub) error {
	h, ok := src.(*V3)
	if !ok {
		return fmt.Errorf("externaljob: v1 converts from *V3, not %T", src)
	}
	j.ObjectMeta = h.ObjectMeta
	j.Spec = V1Spec{Command: cloneStrings(h.Spec.Command)}
	j.Status = V1Status{Phase: h.Status.Phase}
	stash := map[string]any{}
	switch at, isAt := strings.CutPrefix(h.Spec.Schedule, atPrefix); {
	case h.Spec.Schedule == "":
	case isAt && at != "":
		j.Spec.RunAt = at
	default:
		stash["schedule"] = h.Spec.Schedule
	}
	putNonZero(stash, "deadlineSeconds", h.Spec.DeadlineSeconds)
	putNonZero(stash, "retries", h.Spec.Retries)
	putNonZero(stash, "attempts", h.Status.Attempts)
	return convert.Stash(j, "v1", stash)
}

// ConvertTo converts v2 to the hub; retries and attempts come back from the property bag.
func (j *V2) ConvertTo(dst convert.Hub) error {
	h, ok := dst.(*V3)
	if !ok {
		return fmt.Errorf("externaljob: v2 converts to *V3, not %T", dst)
	}
	h.ObjectMeta = j.ObjectMeta
	h.Spec = V3Spec{Schedule: j.Spec.Schedule, DeadlineSeconds: j.Spec.DeadlineSeconds, Command: cloneStrings(j.Spec.Command)}
	h.Status = V3Status{Phase: j.Status.Phase}
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

// ConvertFrom converts the hub to v2; retries and attempts go into the property bag.
func (j *V2) ConvertFrom(src convert.Hub) error {
	h, ok := src.(*V3)
	if !ok {
		return fmt.Errorf("externaljob: v2 converts from *V3, not %T", src)
	}
	j.ObjectMeta = h.ObjectMeta
	j.Spec = V2Spec{Schedule: h.Spec.Schedule, DeadlineSeconds: h.Spec.DeadlineSeconds, Command: cloneStrings(h.Spec.Command)}
	j.Status = V2Status{Phase: h.Status.Phase}
	stash := map[string]any{}
	putNonZero(stash, "retries", h.Spec.Retries)
	putNonZero(stash, "attempts", h.Status.Attempts)
	return convert.Stash(j, "v2", stash)
}

func putNonZero[T comparable](m map[string]any, key string, v T) {
	var zero T
	if v != zero {
		m[key] = v
	}
}

var (
	_ convert.Convertible = (*V1)(nil)
	_ convert.Convertible = (*V2)(nil)
	_ convert.Hub         = (*V3)(nil)
)
