package restore

// The items a plan's filter leaves out that the restore creates only when an item action
// names them as its additional items (Plan.additional; see Filter): numbered after the
// planned items, read from the backup only when asked for (itemStream's on-demand items),
// never walked.

// numberAdditional numbers the plan's additional-only items after the items in waves.
func (r *restorer) numberAdditional() {
	for k, it := range r.plan.additional {
		if pos, ok := r.plan.manifest.Position(it.it); ok {
			r.index[pos] = r.inWaves + int32(k) + 1
		}
	}
}

// total is the number of items the run restores or tries to: the planned ones, and the
// additional-only ones an item action asked for.
func (r *restorer) total() int {
	n := int(r.inWaves)
	for i := r.inWaves; int(i) < len(r.states); i++ {
		if r.states[i].decided.Load() {
			n++
		}
	}
	return n
}
