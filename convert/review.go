package convert

import (
	"encoding/json"
	"errors"
	"fmt"
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
	r, ok := fastReview(body)
	if !ok {
		r = &ConversionReview{}
		if err := utiljson.Unmarshal(body, r); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrBadReview, err)
		}
	}
	switch r.APIVersion {
	case ReviewAPIVersionV1, ReviewAPIVersionV1beta1:
	case "":
		return nil, fmt.Errorf("%w: apiVersion is missing", ErrBadReview)
	default:
		return nil, fmt.Errorf("%w: apiVersion %q is neither %s nor %s", ErrBadReview, r.APIVersion, ReviewAPIVersionV1, ReviewAPIVersionV1beta1)
	}
	if r.Kind != ReviewKind {
		return nil, fmt.Errorf("%w: kind %q is not %s", ErrBadReview, r.Kind, ReviewKind)
	}
	if r.Request == nil {
		return nil, fmt.Errorf("%w: request is missing", ErrBadReview)
	}
	if r.Request.DesiredAPIVersion == "" {
		return nil, fmt.Errorf("%w: request.desiredAPIVersion is missing", ErrBadReview)
	}
	return r, nil
}

// fastReview reads a review in one pass over body, each object validated once and kept as
// a slice of body. It returns what utiljson.Unmarshal would, except that it gives up
// (false) on anything unusual: invalid JSON, a value of an unexpected type, a duplicate
// key, a response member; decodeReview then asks utiljson, for the result and the error.
func fastReview(body []byte) (*ConversionReview, bool) {
	d := decoder{b: body}
	r := &ConversionReview{}
	var seen [3]bool
	once := func(i int) bool {
		if seen[i] {
			return false
		}
		seen[i] = true
		return true
	}
	if done, ok := d.objectStart(); done || !ok {
		return nil, false
	}
	ok := d.members(func(key []byte) bool {
		switch string(key) {
		case "apiVersion":
			return once(0) && decodeString(&d, unsafe.Pointer(&r.APIVersion))
		case "kind":
			return once(1) && decodeString(&d, unsafe.Pointer(&r.Kind))
		case "request":
			if !once(2) {
				return false
			}
			d.ws()
			if d.peek() == 'n' {
				return d.literal("null")
			}
			r.Request = &ConversionRequest{}
			return fastRequest(&d, r.Request)
		case "response":
			return false
		default:
			return d.skip()
		}
	})
	if !ok {
		return nil, false
	}
	d.ws()
	return r, d.i == len(d.b)
}

func fastRequest(d *decoder, req *ConversionRequest) bool {
	var seen [3]bool
	once := func(i int) bool {
		if seen[i] {
			return false
		}
		seen[i] = true
		return true
	}
	if done, ok := d.objectStart(); done || !ok {
		return false
	}
	return d.members(func(key []byte) bool {
		switch string(key) {
		case "uid":
			return once(0) && decodeString(d, unsafe.Pointer(&req.UID))
		case "desiredAPIVersion":
			return once(1) && decodeString(d, unsafe.Pointer(&req.DesiredAPIVersion))
		case "objects":
			if !once(2) {
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
			req.Objects = []json.RawMessage{} // [] is an empty list, not nil
			d.ws()
			if d.peek() == ']' {
				d.i++
				return true
			}
			for {
				d.ws()
				start := d.i
				if !d.skip() {
					return false
				}
				req.Objects = append(req.Objects, d.b[start:d.i:d.i])
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
