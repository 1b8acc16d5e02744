package restore

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"testing"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/backupkit/backupkit/archive"
)

// largePlan plans a backup of n ConfigMaps.
func largePlan(b *testing.B, n int) *Plan {
	b.Helper()
	path := writeConfigMaps(b, b.TempDir(), n)
	plan, err := NewPlan(context.Background(), FromFile(path), []metav1.APIGroup{group("", "v1", "v1")}, WithLimits(archive.Limits{MaxEntries: 3*n + 1000}))
	require.NoError(b, err)
	require.Equal(b, n, plan.Restorable())
	return plan
}

// BenchmarkWritePlanJSON writes the indented plan of a backup of n ConfigMaps as WriteJSON
// does (the waves an item at a time) and as an encoder writes it whole: encoding/json's
// Encoder, and go-json-experiment's MarshalWrite with its v1 options (the same bytes);
// peak-B/item is the heap's peak per item, as BenchmarkPlanMemory reports it.
func BenchmarkWritePlanJSON(b *testing.B) {
	for _, n := range scaleSizes(100000) {
		plan := largePlan(b, n)
		var want bytes.Buffer
		require.NoError(b, plan.WriteJSON(&want, "  "))
		for _, v := range []struct {
			name  string
			write func(w io.Writer) error
		}{
			{"WriteJSON", func(w io.Writer) error { return plan.WriteJSON(w, "  ") }},
			{"encoding-json-Encoder", func(w io.Writer) error {
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				return enc.Encode(plan)
			}},
			{"json-v2-MarshalWrite", func(w io.Writer) error {
				if err := jsonv2.MarshalWrite(w, plan, jsonv1.DefaultOptionsV1(), jsontext.WithIndent("  ")); err != nil {
					return err
				}
				_, err := w.Write([]byte("\n"))
				return err
			}},
		} {
			var got bytes.Buffer
			require.NoError(b, v.write(&got))
			require.Equal(b, want.String(), got.String(), "%s writes other bytes", v.name)
			b.Run(fmt.Sprintf("%s/%d", v.name, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					peak, _ := peakHeap(func() { require.NoError(b, v.write(io.Discard)) })
					b.ReportMetric(float64(peak)/float64(n), "peak-B/item")
				}
			})
		}
	}
}

// BenchmarkWriteReportJSON writes the JSON report of n items created as ReportWriter
// does (an item at a time, as the events come) and as encoding/json's Encoder writes it
// whole from the items gathered (the same fields).
func BenchmarkWriteReportJSON(b *testing.B) {
	for _, n := range scaleSizes(100000) {
		plan := largePlan(b, n)
		var events []Event
		for _, w := range plan.Waves {
			for _, it := range w {
				events = append(events, Event{Item: it, Result: ResultCreated, UID: "0b6bd8b4-5b8e-4c1e-9d53-2f1e3c4d5e6f", Order: int64(len(events) + 1)})
			}
		}
		sum := &Summary{RestoreName: "r", RunID: "0123456789abcdef", Total: n, Restored: n, Counts: map[Result]int{ResultCreated: n}}
		for _, v := range []struct {
			name  string
			write func(w io.Writer) error
		}{
			{"ReportWriter", func(w io.Writer) error {
				rep := NewReportWriter(w, true, "")
				for _, ev := range events {
					rep.Add(ev)
				}
				return rep.Finish(sum)
			}},
			{"encoding-json-Encoder", func(w io.Writer) error {
				doc := struct {
					Items []reportItem `json:"items"`
					*Summary
				}{Summary: sum}
				for _, ev := range events {
					doc.Items = append(doc.Items, reportItem{Item: ev.Item.item(), Version: ev.Item.version(), Result: string(ev.Result), UID: string(ev.UID), Order: ev.Order})
				}
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				return enc.Encode(doc)
			}},
		} {
			b.Run(fmt.Sprintf("%s/%d", v.name, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					peak, _ := peakHeap(func() { require.NoError(b, v.write(io.Discard)) })
					b.ReportMetric(float64(peak)/float64(n), "peak-B/item")
				}
			})
		}
	}
}
