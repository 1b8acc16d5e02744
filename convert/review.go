package convert

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"unsafe"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// The ConversionReview wire format of apiextensions.k8s.io v1 and v1beta1 (both share
// one JSON shape), declared here so that this package needs no apiextensions module.

// The review API versions the webhook accepts and the kind it expects.
const (
	ReviewAPIVersionV1      = "apiextensions.k8s.io/v1"
	ReviewAPIVersionV1beta1 = "apiextensions.k8s.io/v1beta1"
	ReviewKind              = "ConversionReview"
)

// ErrBadReview: a webhook request body is not a ConversionReview this package accepts.
var ErrBadReview = errors.New("convert: bad ConversionReview")

// ConversionReview is the body of a CRD conversion webhook call and of its answer.
type ConversionReview struct {
	APIVersion string              `json:"apiVersion"`
	Kind       string              `json:"kind"`
	Request    *ConversionRequest  `json:"request,omitempty"`
	Response   *ConversionResponse `json:"response,omitempty"`
}

// ConversionRequest asks for Objects, raw JSON, converted to DesiredAPIVersion
// (group/version).
type ConversionRequest struct {
	UID               types.UID         `json:"uid"`
	DesiredAPIVersion string            `json:"desiredAPIVersion"`
	Objects           []json.RawMessage `json:"objects"`
}

// ConversionResponse answers a request: the same UID, on success one converted object per
// request object, in order, and a Result whose Status is metav1.StatusSuccess or
// metav1.StatusFailure.
type ConversionResponse struct {
	UID              types.UID         `json:"uid"`
	ConvertedObjects []json.RawMessage `json:"convertedObjects,omitempty"`
	Result           metav1.Status     `json:"result"`
}

// decodeReview parses a request body. It accepts exactly a JSON ConversionReview of a
// known apiVersion with a request; keys are case-sensitive, as the API server's are. The
// objects alias body.
func decodeReview(body []byte) (*ConversionReview, error) {
	r, _, err := decodeReviewHeads(body, nil)
	return r, err
}

// reviewScratch holds the slices of a review being read, reused from one request to the
// next by the webhook (bufferCache).
type reviewScratch struct {
	objects []json.RawMessage
	heads   []objectHead
}

// objectHead is the head of one object of a review as read by fastReview; ok is false
// when it could not be read there (then convertRaw reads it).
type objectHead struct {
	rawHead
	ok bool
}

// decodeReviewHeads is decodeReview, and the heads of the objects when the review was
// read by fastReview (else nil). With scratch, the slices of the result are built in the
// scratch's, and the caller must be done with them before it reuses scratch.
func decodeReviewHeads(body []byte, scratch *reviewScratch) (*ConversionReview, []objectHead, error) {
	r, heads, ok := fastReview(body, scratch)
	if !ok {
		heads = nil
		r = &ConversionReview{}
		if err := utiljson.Unmarshal(body, r); err != nil {
			return nil, nil, fmt.Errorf("%w: %v", ErrBadReview, err)
		}
	}
	switch r.APIVersion {
	case ReviewAPIVersionV1, ReviewAPIVersionV1beta1:
	case "":
		return nil, nil, fmt.Errorf("%w: apiVersion is missing", ErrBadReview)
	default:
		return nil, nil, fmt.Errorf("%w: apiVersion %q is neither %s nor %s", ErrBadReview, r.APIVersion, ReviewAPIVersionV1, ReviewAPIVersionV1beta1)
	}
	if r.Kind != ReviewKind {
		return nil, nil, fmt.Errorf("%w: kind %q is not %s", ErrBadReview, r.Kind, ReviewKind)
	}
	if r.Request == nil {
		return nil, nil, fmt.Errorf("%w: request is missing", ErrBadReview)
	}
	if r.Request.DesiredAPIVersion == "" {
		return nil, nil, fmt.Errorf("%w: request.desiredAPIVersion is missing", ErrBadReview)
	}
	return r, heads, nil
}

// fastReview reads a review in one pass over body, each object validated once and kept as
// a slice of body, its head (apiVersion, kind, name, namespace) read on the way. It
// returns what utiljson.Unmarshal would, except that it gives up (false) on anything
// unusual: invalid JSON, a value of an unexpected type, a duplicate key, a response
// member; decodeReview then asks utiljson, for the result and the error.
func fastReview(body []byte, scratch *reviewScratch) (*ConversionReview, []objectHead, bool) {
	d := decoder{b: body, share: true, chunk: max(256, min(4096, len(body)/16))} // heads: a few short strings an object
	if scratch == nil {
		scratch = &reviewScratch{}
	}
	heads := scratch.heads[:0]
	r := &ConversionReview{}
	var seen seenKeys
	if done, ok := d.objectStart(); done || !ok {
		return nil, nil, false
	}
	ok := d.members(func(key []byte) bool {
		switch string(key) {
		case "apiVersion":
			return seen.first(0) && decodeString(&d, unsafe.Pointer(&r.APIVersion))
		case "kind":
			return seen.first(1) && decodeString(&d, unsafe.Pointer(&r.Kind))
		case "request":
			if !seen.first(2) {
				return false
			}
			d.ws()
			if d.peek() == 'n' {
				return d.literal("null")
			}
			r.Request = &ConversionRequest{}
			return fastRequest(&d, r.Request, scratch.objects[:0], &heads)
		case "response":
			return false
		default:
			return d.skip()
		}
	})
	if r.Request != nil && r.Request.Objects != nil {
		scratch.objects = r.Request.Objects
	}
	scratch.heads = heads
	if !ok {
		return nil, nil, false
	}
	d.ws()
	return r, heads, d.i == len(d.b)
}

// seenKeys records which of an object's expected keys were read, so a duplicate key
// (whose merging rules are utiljson's) makes the fast path give up.
type seenKeys [3]bool

// first marks key i read and reports whether it was not read before.
func (s *seenKeys) first(i int) bool {
	if s[i] {
		return false
	}
	s[i] = true
	return true
}

func fastRequest(d *decoder, req *ConversionRequest, objects []json.RawMessage, heads *[]objectHead) bool {
	headFn := decoderOf(reflect.TypeFor[rawHead]())
	var seen seenKeys
	if done, ok := d.objectStart(); done || !ok {
		return false
	}
	return d.members(func(key []byte) bool {
		switch string(key) {
		case "uid":
			return seen.first(0) && decodeString(d, unsafe.Pointer(&req.UID))
		case "desiredAPIVersion":
			return seen.first(1) && decodeString(d, unsafe.Pointer(&req.DesiredAPIVersion))
		case "objects":
			if !seen.first(2) {
				return false
			}
			d.ws()
			switch d.peek() {
			case 'n':
				return d.literal("null")
			case '[':
			default:
				return false
			}
			d.i++
			req.Objects = objects[:0]
			if req.Objects == nil {
				req.Objects = []json.RawMessage{} // [] is an empty list, not nil
			}
			*heads = (*heads)[:0]
			d.ws()
			if d.peek() == ']' {
				d.i++
				return true
			}
			for {
				d.ws()
				start := d.i
				var h objectHead
				sub := *d
				if headFn != nil && headFn(&sub, unsafe.Pointer(&h.rawHead)) {
					*d, h.ok = sub, true // the head read, the object checked, in one pass
				} else if !d.skip() {
					return false
				}
				req.Objects = append(req.Objects, d.b[start:d.i:d.i])
				*heads = append(*heads, h)
				d.ws()
				switch d.peek() {
				case ',':
					d.i++
				case ']':
					d.i++
					return true
				default:
					return false
				}
			}
		default:
			return d.skip()
		}
	})
}
