package main

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"
)

func TestProgressLine(t *testing.T) {
	tests := []struct {
		done, failed, total int
		elapsed             time.Duration
		want                string
	}{
		{0, 0, 31000, 0, "restore: 0/31000 items, 0 failed, 0 items/s, unknown time left"},
		{12000, 0, 31000, 10 * time.Second, "restore: 12000/31000 items, 0 failed, 1200 items/s, 16s left"},
		{100, 3, 400, 2 * time.Second, "restore: 100/400 items, 3 failed, 50 items/s, 6s left"},
		{31000, 0, 31000, 33*time.Second + 440*time.Millisecond, "restore: 31000/31000 items, 0 failed, 927 items/s, finished in 33.4s"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			require.Equal(t, tt.want, progressLine(tt.done, tt.failed, tt.total, tt.elapsed))
		})
	}
}

func TestSetRateLimit(t *testing.T) {
	tests := []struct {
		qps       float64
		burst     int
		wantQPS   float32
		wantBurst int
	}{
		{0, 0, -1, 0}, // client-go's limiter off
		{100, 0, 100, 200},
		{100, 50, 100, 50},
		{0.2, 0, 0.2, 1},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%v/%d", tt.qps, tt.burst), func(t *testing.T) {
			cfg := &rest.Config{}
			setRateLimit(cfg, tt.qps, tt.burst)
			require.Equal(t, tt.wantQPS, cfg.QPS)
			require.Equal(t, tt.wantBurst, cfg.Burst)
		})
	}
}
