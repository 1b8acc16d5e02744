package convert

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// DefaultMaxRequestBytes is the default limit on a webhook request body: 32 MiB. The API
// server sends a whole list in one review when a client lists at a non-storage version,
// so the limit is well above its 3 MiB limit on one object; lower it when lists are small.
const DefaultMaxRequestBytes = 32 << 20

// WebhookOption adjusts NewWebhookHandler.
type WebhookOption func(*webhook)

// WithMaxRequestBytes bounds the request body (default DefaultMaxRequestBytes); a larger
// body is refused with 413 before it is decoded. A limit below 1 means the default.
func WithMaxRequestBytes(n int64) WebhookOption {
	return func(h *webhook) {
		if n > 0 {
			h.max = n
		}
	}
}

// WithParallelism sets how many goroutines may convert the objects of one large review
// (default runtime.GOMAXPROCS(0)); reviews of fewer than 64 objects are converted on the
// request's goroutine. Converters must then be safe for concurrent use, as they already
// must be for concurrent requests. A value below 1 means 1.
func WithParallelism(n int) WebhookOption {
	return func(h *webhook) {
		h.parallelism = max(n, 1)
	}
}

type webhook struct {
	r           *Registry
	max         int64
	parallelism int
}

// NewWebhookHandler returns an http.Handler serving CRD conversion webhooks from r (the
// apiextensions.k8s.io ConversionReview, v1 or v1beta1). Serve it over TLS at the path the
// CRD's conversion.webhook.clientConfig names.
//
//   - Not POST: 405 with an Allow header.
//   - A body over the limit: 413.
//   - A body that is not a ConversionReview of apiextensions.k8s.io/v1 or v1beta1 with a
//     request and a desiredAPIVersion: 400, with the reason as text.
//   - Otherwise 200 and a ConversionReview with the request's apiVersion and kind, whose
//     response has the request's uid and either one converted object per request object,
//     in order, and result Success, or, when any object fails (converter error or panic,
//     unknown desired version, another group, unregistered kind, undecodable object),
//     result Failure with a message naming the first failing object by index, kind, name
//     and versions, and no converted objects.
//
// Objects are converted as Convert does, metadata rules included, through their Go types
// for kinds registered with AddTyped (fields their Go types lack are dropped, as in any
// typed decoding); an object already at the desired version is returned byte for byte.
// One difference, for speed: the object handed to converters is the handler's own
// decoding, and only its labels and annotations are copied beforehand, so a converter
// editing an element of ownerReferences, finalizers or managedFields in place changes the
// response (the API server restores those fields after a webhook conversion anyway). The
// request's context reaches the converters. The handler is safe for concurrent use and
// holds no state but r.
func NewWebhookHandler(r *Registry, opts ...WebhookOption) http.Handler {
	h := &webhook{r: r, max: DefaultMaxRequestBytes, parallelism: runtime.GOMAXPROCS(0)}
	for _, o := range opts {
		o(h)
	}
	return h
}

func (h *webhook) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "convert: method "+req.Method+" not allowed, use POST", http.StatusMethodNotAllowed)
		return
	}
	body, err := readBody(w, req, h.max)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			http.Error(w, fmt.Sprintf("convert: request body over %d bytes", h.max), http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "convert: reading request body: "+err.Error(), http.StatusBadRequest)
		return
	}
	review, err := decodeReview(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	converted, err := h.r.convertReview(req.Context(), review.Request, h.parallelism)
	out := encodeResponse(review, converted, err)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(out)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(out)
}

// convertReview converts every object of req, stopping at the first failure.
// Large reviews are split among up to parallelism goroutines; the first failing object
// by index is reported whichever goroutine met it.
func (r *Registry) convertReview(ctx context.Context, req *ConversionRequest, parallelism int) ([][]byte, error) {
	desired, err := schema.ParseGroupVersion(req.DesiredAPIVersion)
	if err != nil || desired.Version == "" {
		if len(req.Objects) == 0 {
			return nil, nil
		}
		return nil, fmt.Errorf("desiredAPIVersion %q: %w: not group/version", req.DesiredAPIVersion, ErrUnknownVersion)
	}
	out := make([][]byte, len(req.Objects))
	errs := make([]error, len(req.Objects))
	convertRange := func(from, to int) {
		for i := from; i < to; i++ {
			if err := ctx.Err(); err != nil {
				errs[i] = err
				return
			}
			if out[i], errs[i] = r.convertRaw(ctx, req.Objects[i], desired); errs[i] != nil {
				return
			}
		}
	}
	workers := min(parallelism, len(req.Objects)/minObjectsPerWorker)
	if workers <= 1 {
		convertRange(0, len(out))
	} else {
		var wg sync.WaitGroup
		per := (len(out) + workers - 1) / workers
		for from := 0; from < len(out); from += per {
			wg.Go(func() { convertRange(from, min(from+per, len(out))) })
		}
		wg.Wait()
	}
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("objects[%d]: %w", i, err)
		}
	}
	return out, nil
}

// minObjectsPerWorker is the smallest share of a review worth a goroutine of its own.
const minObjectsPerWorker = 32

// rawHead is the part of an object read before deciding how to decode the rest.
type rawHead struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
}

// convertRaw converts one JSON object to desired.
func (r *Registry) convertRaw(ctx context.Context, raw []byte, desired schema.GroupVersion) (_ []byte, err error) {
	defer guard(&err, desired.String())
	head, ok := peekHead(raw)
	if !ok {
		head = rawHead{}
		if err := utiljson.Unmarshal(raw, &head); err != nil {
			return nil, &ConversionError{To: desired.String(), Err: fmt.Errorf("%w: %v", ErrInvalidObject, err)}
		}
	}
	gvk := schema.FromAPIVersionAndKind(head.APIVersion, head.Kind)
	fail := func(err error) error {
		return &ConversionError{GroupKind: gvk.GroupKind(), Namespace: head.Metadata.Namespace, Name: head.Metadata.Name, From: gvk.Version, To: desired.String(), Err: err}
	}
	if head.Kind == "" || head.APIVersion == "" {
		return nil, fail(fmt.Errorf("%w: apiVersion or kind missing", ErrInvalidObject))
	}
	if gvk.Group != desired.Group {
		return nil, fail(fmt.Errorf("%w: object is in group %q, desired %q", ErrWrongGroup, gvk.Group, desired.Group))
	}
	k, to, err := r.resolve(gvk, desired.Version)
	if err != nil {
		return nil, fail(err)
	}
	if gvk.Version == to {
		return raw, nil
	}
	record := r.recordFrom(gvk.Version)
	if k.scheme != nil {
		obj, err := k.scheme.New(gvk)
		if err != nil {
			return nil, fail(fmt.Errorf("%w: %v", ErrInvalidObject, err))
		}
		if err := decodeJSON(raw, obj, true); err != nil {
			return nil, fail(fmt.Errorf("%w: decoding into %T: %v", ErrInvalidObject, obj, err))
		}
		snap := shallowSnapshotMeta(obj)
		out, err := r.convertTyped(k, obj, gvk.Version, to)
		if err != nil {
			return nil, fail(err)
		}
		finishTyped(out, k.gk.WithVersion(to), snap, record)
		b, err := json.Marshal(out)
		if err != nil {
			return nil, fail(fmt.Errorf("%w: encoding: %v", ErrInvalidResult, err))
		}
		return b, nil
	}
	var obj map[string]any
	if err := decodeJSON(raw, &obj, true); err != nil {
		return nil, fail(fmt.Errorf("%w: %v", ErrInvalidObject, err))
	}
	snap := shallowSnapshotMap(obj)
	out, err := r.convertOwned(ctx, k, obj, gvk.Version, to)
	if err != nil {
		return nil, fail(err)
	}
	finishMap(out, k.gk.WithVersion(to), snap, record)
	b, err := appendJSON(make([]byte, 0, len(raw)+len(raw)/8), out)
	if err != nil {
		return nil, fail(fmt.Errorf("%w: encoding: %v", ErrInvalidResult, err))
	}
	return b, nil
}

// encodeResponse renders the answer to review: converted objects on success, a Failure
// naming err otherwise. The objects are valid JSON already and are copied as they are.
func encodeResponse(review *ConversionReview, converted [][]byte, err error) []byte {
	result := metav1.Status{Status: metav1.StatusSuccess}
	if err != nil {
		result = metav1.Status{Status: metav1.StatusFailure, Message: err.Error()}
	}
	resultJSON, _ := json.Marshal(result)      // a plain struct: cannot fail
	uid, _ := json.Marshal(review.Request.UID) // a string: cannot fail
	head, _ := json.Marshal(review.APIVersion) // validated constant
	size := 128 + len(resultJSON) + len(uid)
	for _, c := range converted {
		size += len(c) + 1
	}
	var b bytes.Buffer
	b.Grow(size)
	b.WriteString(`{"apiVersion":`)
	b.Write(head)
	b.WriteString(`,"kind":"` + ReviewKind + `","response":{"uid":`)
	b.Write(uid)
	if err == nil {
		b.WriteString(`,"convertedObjects":[`)
		for i, c := range converted {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(c)
		}
		b.WriteByte(']')
	}
	b.WriteString(`,"result":`)
	b.Write(resultJSON)
	b.WriteString("}}")
	return b.Bytes()
}

// readBody reads the request body up to max bytes, in one allocation when the request
// states its length.
func readBody(w http.ResponseWriter, req *http.Request, max int64) ([]byte, error) {
	r := http.MaxBytesReader(w, req.Body, max)
	if n := req.ContentLength; n > 0 && n <= max {
		buf := make([]byte, n+1) // one spare byte: a body longer than stated is read whole
		read, err := io.ReadFull(r, buf)
		switch {
		case err == io.ErrUnexpectedEOF || err == io.EOF:
			return buf[:read], nil
		case err != nil:
			return nil, err
		}
		rest, err := io.ReadAll(r)
		return append(buf, rest...), err
	}
	return io.ReadAll(r)
}
