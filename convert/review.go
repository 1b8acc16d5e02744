package convert

import (
	"encoding/json"
	"errors"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
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
// known apiVersion with a request; keys are case-sensitive, as the API server reads them
// (decodeOptions). Each object is its own copy.
func decodeReview(body []byte) (*ConversionReview, error) {
	r := &ConversionReview{}
	if err := unmarshal(body, r); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadReview, err)
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
