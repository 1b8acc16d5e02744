package measure

import (
	"bytes"
	"fmt"
)

// Goal is one line of an issue's table of goals, judged on one run.
type Goal struct {
	Work, Target, Measured string
	Met                    bool
}

// WriteGoals writes the table of goals under heading (a Markdown heading line), intro (if
// not empty) as a paragraph before it; nothing when gs is empty.
func WriteGoals(b *bytes.Buffer, heading, intro string, gs []Goal) {
	if len(gs) == 0 {
		return
	}
	b.WriteString("\n" + heading + "\n\n")
	if intro != "" {
		b.WriteString(intro + "\n\n")
	}
	b.WriteString("| work | goal | measured | |\n|---|---|---|---|\n")
	for _, g := range gs {
		verdict := "**missed**"
		if g.Met {
			verdict = "met"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", g.Work, g.Target, g.Measured, verdict)
	}
}

// Ratio is a / b, 0 when b is 0.
func Ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// NewGoal is a Goal: work, what it must reach (target), what it did (measured), and whether
// that is met.
func NewGoal(work, target, measured string, met bool) Goal {
	return Goal{Work: work, Target: target, Measured: measured, Met: met}
}
