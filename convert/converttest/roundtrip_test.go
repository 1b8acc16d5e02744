package converttest_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"pgregory.net/rapid"

	"github.com/backupkit/backupkit/convert"
	"github.com/backupkit/backupkit/convert/converttest"
)

// Hub has a name and a count; Lossy (a spoke) drops the count; Stashing keeps it in the
// property bag; Panicky panics.
type Hub struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Name              string `json:"name,omitempty"`
	Count             int    `json:"count,omitempty"`
}

type Lossy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Name              string `json:"name,omitempty"`
}

type Stashing struct{ Lossy }

type Panicky struct{ Lossy }

func (h *Hub) DeepCopyObject() runtime.Object {
	c := *h
	h.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	return &c
}

func (*Hub) Hub() {}

func (l *Lossy) DeepCopyObject() runtime.Object {
	c := *l
	l.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	return &c
}

func (l *Lossy) ConvertTo(dst convert.Hub) error {
	h := dst.(*Hub)
	h.ObjectMeta, h.Name = l.ObjectMeta, l.Name
	return nil
}

func (l *Lossy) ConvertFrom(src convert.Hub) error {
	h := src.(*Hub)
	l.ObjectMeta, l.Name = h.ObjectMeta, h.Name
	return nil
}

func (s *Stashing) DeepCopyObject() runtime.Object {
	return &Stashing{Lossy: *s.Lossy.DeepCopyObject().(*Lossy)}
}

func (s *Stashing) ConvertTo(dst convert.Hub) error {
	h := dst.(*Hub)
	h.ObjectMeta, h.Name = s.ObjectMeta, s.Name
	bag, err := convert.Unstash(h, "stashing")
	if err != nil {
		return err
	}
	_, err = bag.Get("count", &h.Count)
	return err
}

func (s *Stashing) ConvertFrom(src convert.Hub) error {
	h := src.(*Hub)
	s.ObjectMeta, s.Name = h.ObjectMeta, h.Name
	if h.Count == 0 {
		return nil
	}
	return convert.Stash(s, "stashing", map[string]any{"count": h.Count})
}

func (p *Panicky) DeepCopyObject() runtime.Object {
	return &Panicky{Lossy: *p.Lossy.DeepCopyObject().(*Lossy)}
}

func (p *Panicky) ConvertTo(convert.Hub) error { panic("to") }

func (p *Panicky) ConvertFrom(convert.Hub) error { return errors.New("no way") }

func TestSpokeAndHubRoundTrip(t *testing.T) {
	hub := &Hub{ObjectMeta: metav1.ObjectMeta{Name: "h"}, Name: "n", Count: 3}
	err := converttest.HubRoundTrip[*Lossy](hub)
	var loss *converttest.LossError
	require.ErrorAs(t, err, &loss)
	require.ErrorIs(t, err, converttest.ErrLossy)
	require.Equal(t, `converttest: round trip is lossy: hub→spoke→hub (*converttest_test.Hub→*converttest_test.Lossy→*converttest_test.Hub) (- before, + after):
  {
    "metadata": {
      "name": "h"
    },
-   "name": "n",
-   "count": 3
+   "name": "n"
  }
`, err.Error())
	require.Equal(t, 3, hub.Count, "the input is not modified")

	require.NoError(t, converttest.HubRoundTrip[*Stashing](hub))
	require.NoError(t, converttest.SpokeRoundTrip[*Lossy, *Hub](&Lossy{Name: "n"}))
	require.NoError(t, converttest.SpokeRoundTrip[*Stashing, *Hub](&Stashing{Lossy{Name: "n"}}))

	err = converttest.SpokeRoundTrip[*Panicky, *Hub](&Panicky{})
	require.EqualError(t, err, "converttest: ConvertTo: convert: converter panicked: to")
	require.ErrorIs(t, err, convert.ErrPanic)
	require.EqualError(t, converttest.HubRoundTrip[*Panicky](hub), "converttest: ConvertFrom: no way")
}

var genHub = rapid.Custom(func(t *rapid.T) *Hub {
	return &Hub{
		ObjectMeta: metav1.ObjectMeta{Name: rapid.StringMatching(`[a-z]{0,5}`).Draw(t, "meta")},
		Name:       rapid.String().Draw(t, "name"),
		Count:      rapid.IntRange(-5, 5).Draw(t, "count"),
	}
})

var genStashing = rapid.Custom(func(t *rapid.T) *Stashing {
	return &Stashing{Lossy{Name: rapid.String().Draw(t, "name")}}
})

func TestCheckRoundTrip(t *testing.T) {
	converttest.CheckRoundTrip(t, genStashing, genHub)
	converttest.CheckRoundTrip[*Stashing, *Hub](t, nil, genHub)
}
