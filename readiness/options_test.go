package readiness_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/wait"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/backupkit/backupkit/readiness"
)

// Wait-only options are not ComputeOptions: readiness.Compute(u, readiness.WithTimeout(d))
// does not compile. WithNow is not a WaitOption. The options that decide are both.
func TestOptionKinds(t *testing.T) {
	tests := []struct {
		name             string
		opt              any
		compute, waiting bool
	}{
		{"WithNow", readiness.WithNow(t0), true, false},
		{"WithBaseline", readiness.WithBaseline(nil), true, false},
		{"WithBaselines", readiness.WithBaselines(nil), false, true},
		{"WithLenient", readiness.WithLenient(), true, true},
		{"WithRegistry", readiness.WithRegistry(readiness.NewRegistry()), true, true},
		{"WithUnschedulableWindow", readiness.WithUnschedulableWindow(time.Minute), true, true},
		{"WithClock", readiness.WithClock(testingclock.NewFakeClock(t0)), false, true},
		{"WithTimeout", readiness.WithTimeout(time.Second), false, true},
		{"WithRequestTimeout", readiness.WithRequestTimeout(time.Second), false, true},
		{"WithItemTimeout", readiness.WithItemTimeout(time.Second), false, true},
		{"WithBackoff", readiness.WithBackoff(wait.Backoff{Duration: time.Second}), false, true},
		{"WithProgress", readiness.WithProgress(func(readiness.Event) {}), false, true},
		{"WithListThreshold", readiness.WithListThreshold(1), false, true},
		{"WithKeepGoing", readiness.WithKeepGoing(), false, true},
		{"WithoutWatch", readiness.WithoutWatch(), false, true},
		{"WithTransient", readiness.WithTransient(readiness.Transient), false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, isCompute := tt.opt.(readiness.ComputeOption)
			_, isWait := tt.opt.(readiness.WaitOption)
			require.Equal(t, tt.compute, isCompute, "ComputeOption")
			require.Equal(t, tt.waiting, isWait, "WaitOption")
		})
	}
}

func TestNilOptionsChangeNothing(t *testing.T) {
	u := obj(t, `{`+deployHead+`,"spec":{"replicas":1}}`)
	require.Equal(t, readiness.Compute(u), readiness.Compute(u, nil, readiness.Option(nil)))
}
