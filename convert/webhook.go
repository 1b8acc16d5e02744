package convert

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
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
	cache       bufferCache
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
// writing into the rest of its metadata in place (an element of ownerReferences,
// finalizers or managedFields, what a Go object's deletionTimestamp or
// deletionGracePeriodSeconds points to) changes the response (the API server restores
// those fields after a webhook conversion anyway). And
// the Go objects passed to ConvertTo and ConvertFrom are reused, zeroed, for later objects
// of the same review once the result is encoded, so a converter must not keep a reference
// to them after it returns (none of Kubebuilder's do). The request's context reaches the
// converters. The request and each object are decoded by the API server's rules
// (utiljson's: case-sensitive keys, whole numbers as int64; see the package doc), the
// results encoded with encoding/json; an unstructured result nested deeper than those decoders accept (a cyclic
// map, say) fails its object instead of the process. The body is read as it arrives, never
// sized by Content-Length. The handler is safe for concurrent use; besides r it keeps,
// from one request for the next, only cleared byte buffers (at most 16 MiB in all): nothing
// a request decoded stays referenced once its response is written.
func NewWebhookHandler(r *Registry, opts ...WebhookOption) http.Handler {
	h := &webhook{r: r, max: DefaultMaxRequestBytes, parallelism: runtime.GOMAXPROCS(0)}
	for _, o := range opts {
		if o != nil {
			o(h)
		}
	}
	return h
}

func (h *webhook) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "convert: method "+req.Method+" not allowed, use POST", http.StatusMethodNotAllowed)
		return
	}
	bodyBuf := h.cache.getBuffer()
	defer h.cache.putBuffer(bodyBuf)
	body, err := readBody(w, req, h.max, (*bodyBuf)[:0])
	*bodyBuf = body
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
	chunks, err := h.r.convertReview(req.Context(), review.Request, h.parallelism, &h.cache)
	defer func() {
		for _, c := range chunks {
			h.cache.putBuffer(c)
		}
	}()
	outBuf := h.cache.getBuffer()
	defer h.cache.putBuffer(outBuf)
	out := appendResponse((*outBuf)[:0], review, chunks, err)
	*outBuf = out
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(out)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(out)
}

// convertReview converts every object of req, stopping at the first failure, and returns
// the converted objects as JSON in order, comma-separated, in one or more chunks (pooled
// buffers the caller puts back). Large reviews are split among up to parallelism
// goroutines, one chunk each; the first failing object by index is reported whichever
// goroutine met it, and then no chunk is returned.
func (r *Registry) convertReview(ctx context.Context, req *ConversionRequest, parallelism int, cache *bufferCache) ([]*[]byte, error) {
	desired, err := schema.ParseGroupVersion(req.DesiredAPIVersion)
	if err != nil || desired.Version == "" {
		if len(req.Objects) == 0 {
			return nil, nil
		}
		return nil, fmt.Errorf("desiredAPIVersion %q: %w: not group/version", req.DesiredAPIVersion, ErrUnknownVersion)
	}
	n := len(req.Objects)
	workers := max(1, min(parallelism, n/minObjectsPerWorker))
	chunks := make([]*[]byte, workers)
	type failure struct {
		index int
		err   error
	}
	failures := make([]failure, workers) // each goroutine's first, and only, failure
	convertRange := func(chunk, from, to int) {
		buf := cache.getBuffer()
		chunks[chunk] = buf
		enc := &objectEncoder{} // its spare objects and decoder serve this range only
		enc.b = (*buf)[:0]
		for i := from; i < to; i++ {
			if err := ctx.Err(); err != nil {
				failures[chunk] = failure{i, err}
				break
			}
			if i > from {
				enc.b = append(enc.b, ',')
			}
			if err := r.convertRaw(ctx, req.Objects[i], desired, enc); err != nil {
				failures[chunk] = failure{i, err}
				break
			}
		}
		*buf, enc.b = enc.b, nil
	}
	if workers == 1 {
		convertRange(0, 0, n)
	} else {
		var wg sync.WaitGroup
		per := (n + workers - 1) / workers
		for c := range workers {
			from, to := c*per, min((c+1)*per, n)
			wg.Go(func() { convertRange(c, from, to) })
		}
		wg.Wait()
	}
	for _, f := range failures { // in chunk order, so the first is the lowest index
		if f.err != nil {
			for _, c := range chunks {
				cache.putBuffer(c)
			}
			return nil, fmt.Errorf("objects[%d]: %w", f.index, f.err)
		}
	}
	return chunks, nil
}

// spareObjects hands out typed objects for one goroutine of a review and takes them back
// once the object they served is encoded, zeroed, for the next object: conversions of
// one kind then allocate no object of their own. Objects handed out since the last
// recycle or forget are in use; a failed conversion forgets them (they may be in any
// state). A nil *spareObjects creates every object.
type spareObjects struct {
	inUse []sparedObject
	free  []sparedObject
}

type sparedObject struct {
	gvk schema.GroupVersionKind
	obj kruntime.Object
}

// maxSpareObjects bounds the free list (a few kinds, three objects per conversion).
const maxSpareObjects = 12

func (s *spareObjects) new(scheme *kruntime.Scheme, gvk schema.GroupVersionKind) (kruntime.Object, error) {
	if s == nil {
		return scheme.New(gvk)
	}
	for i := len(s.free) - 1; i >= 0; i-- {
		if s.free[i].gvk == gvk {
			o := s.free[i]
			s.free = slices.Delete(s.free, i, i+1)
			s.inUse = append(s.inUse, o)
			return o.obj, nil
		}
	}
	obj, err := scheme.New(gvk)
	if err == nil && reflect.TypeOf(obj).Kind() == reflect.Pointer {
		s.inUse = append(s.inUse, sparedObject{gvk, obj})
	}
	return obj, err
}

// recycle zeroes the objects in use and frees them.
func (s *spareObjects) recycle() {
	for _, o := range s.inUse {
		if len(s.free) < maxSpareObjects {
			reflect.ValueOf(o.obj).Elem().SetZero()
			s.free = append(s.free, o)
		}
	}
	s.forget()
}

func (s *spareObjects) forget() {
	clear(s.inUse)
	s.inUse = s.inUse[:0]
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

// convertRaw converts one JSON object to desired and appends the result to enc.b; on
// error enc.b may hold part of an object. The object is decoded once, into its Go type
// (AddTyped) or a map, after its head is read; one already at desired is copied as it is.
func (r *Registry) convertRaw(ctx context.Context, raw []byte, desired schema.GroupVersion, enc *objectEncoder) (err error) {
	defer guard(&err, desired.String())
	var head rawHead
	fullHead := func() error { head = rawHead{}; return utiljson.Unmarshal(raw, &head) }
	var ok bool
	if head.APIVersion, head.Kind, ok = enc.head.read(raw); !ok {
		if err := fullHead(); err != nil {
			return &ConversionError{To: desired.String(), Err: fmt.Errorf("%w: %v", ErrInvalidObject, err)}
		}
	}
	gvk := schema.FromAPIVersionAndKind(head.APIVersion, head.Kind)
	fail := func(err error) error {
		if head.Metadata.Name == "" {
			_ = fullHead() // the name for the message; the error is err's
			head.APIVersion, head.Kind = gvk.GroupVersion().String(), gvk.Kind
		}
		return &ConversionError{GroupKind: gvk.GroupKind(), Namespace: head.Metadata.Namespace, Name: head.Metadata.Name, From: gvk.Version, To: desired.String(), Err: err}
	}
	if head.Kind == "" || head.APIVersion == "" {
		return fail(fmt.Errorf("%w: apiVersion or kind missing", ErrInvalidObject))
	}
	if gvk.Group != desired.Group {
		return fail(fmt.Errorf("%w: object is in group %q, desired %q", ErrWrongGroup, gvk.Group, desired.Group))
	}
	k, to, err := r.resolve(gvk, desired.Version)
	if err != nil {
		return fail(err)
	}
	if gvk.Version == to {
		enc.b = append(enc.b, raw...)
		return nil
	}
	record := r.recordFrom(gvk.Version)
	if k.scheme != nil {
		enc.spare.forget() // whatever a failed conversion left in use
		obj, err := enc.spare.new(k.scheme, gvk)
		if err != nil {
			return fail(fmt.Errorf("%w: %v", ErrInvalidObject, err))
		}
		if err := unmarshal(raw, obj); err != nil {
			return fail(fmt.Errorf("%w: decoding into %T: %v", ErrInvalidObject, obj, err))
		}
		if got := obj.GetObjectKind().GroupVersionKind(); got != gvk {
			return fail(fmt.Errorf("%w: apiVersion or kind given twice, %s and %s", ErrInvalidObject, gvk, got))
		}
		snap := shallowSnapshotMeta(obj)
		out, err := r.convertTyped(k, obj, gvk.Version, to, &enc.spare)
		if err != nil {
			return fail(err)
		}
		finishTyped(out, k.gk.WithVersion(to), snap, record)
		if err := enc.encode(out); err != nil {
			enc.spare.forget()
			return fail(fmt.Errorf("%w: encoding: %v", ErrInvalidResult, err))
		}
		enc.spare.recycle() // the objects of this conversion serve the next one
		return nil
	}
	var obj map[string]any
	if err := unmarshal(raw, &obj); err != nil {
		return fail(fmt.Errorf("%w: %v", ErrInvalidObject, err))
	}
	if obj["apiVersion"] != head.APIVersion || obj["kind"] != head.Kind {
		return fail(fmt.Errorf("%w: apiVersion or kind given twice", ErrInvalidObject))
	}
	snap := shallowSnapshotMap(obj)
	out, err := r.convertOwned(ctx, k, obj, gvk.Version, to)
	if err != nil {
		return fail(err)
	}
	finishMap(out, k.gk.WithVersion(to), snap, record)
	if err := checkDepth(out, 0); err != nil {
		return fail(fmt.Errorf("%w: encoding: %v", ErrInvalidResult, err))
	}
	if err := enc.encode(out); err != nil {
		return fail(fmt.Errorf("%w: encoding: %v", ErrInvalidResult, err))
	}
	return nil
}

// maxEncodeDepth is the deepest nesting the webhook encodes: the limit of the decoders the
// API server and this package read objects with (encoding/json and sigs.k8s.io/json
// refuse more than 10,000 levels).
const maxEncodeDepth = 10000

// checkDepth returns an error for an unstructured value nested deeper than maxEncodeDepth,
// which a cyclic map or slice a converter returned always is; encoding it would take the
// stack, and the process, with it.
func checkDepth(v any, depth int) error {
	switch t := v.(type) {
	case map[string]any:
		if depth >= maxEncodeDepth {
			return fmt.Errorf("nesting deeper than %d levels (a cyclic value?)", maxEncodeDepth)
		}
		for _, e := range t {
			if err := checkDepth(e, depth+1); err != nil {
				return err
			}
		}
	case []any:
		if depth >= maxEncodeDepth {
			return fmt.Errorf("nesting deeper than %d levels (a cyclic value?)", maxEncodeDepth)
		}
		for _, e := range t {
			if err := checkDepth(e, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// appendResponse appends the answer to review to b: the converted objects (chunks, valid
// JSON already, copied as they are) on success, a Failure naming err otherwise.
func appendResponse(b []byte, review *ConversionReview, chunks []*[]byte, err error) []byte {
	resultJSON := successJSON
	if err != nil {
		resultJSON, _ = json.Marshal(metav1.Status{Status: metav1.StatusFailure, Message: err.Error()}) // a plain struct: cannot fail
	}
	apiVersion, _ := json.Marshal(review.APIVersion) // strings: cannot fail
	uid, _ := json.Marshal(review.Request.UID)
	size := 128 + len(resultJSON) + len(apiVersion) + len(uid)
	for _, c := range chunks {
		size += len(*c) + 1
	}
	b = slices.Grow(b, size)
	b = append(b, `{"apiVersion":`...)
	b = append(b, apiVersion...)
	b = append(b, `,"kind":"`+ReviewKind+`","response":{"uid":`...)
	b = append(b, uid...)
	if err == nil {
		b = append(b, `,"convertedObjects":[`...)
		first := true
		for _, c := range chunks {
			if len(*c) == 0 {
				continue
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			b = append(b, *c...)
		}
		b = append(b, ']')
	}
	b = append(b, `,"result":`...)
	b = append(b, resultJSON...)
	return append(b, "}}"...)
}

// successJSON is the result of a review that succeeded.
var successJSON, _ = json.Marshal(metav1.Status{Status: metav1.StatusSuccess})

// objectEncoder appends converted objects to b; each goroutine of a review has one, with
// the Go objects it reuses from one object to the next and its head reader.
type objectEncoder struct {
	b     []byte
	head  headReader
	enc   *json.Encoder // made when first needed
	spare spareObjects
}

// Write lets the json.Encoder append to b.
func (e *objectEncoder) Write(p []byte) (int, error) {
	e.b = append(e.b, p...)
	return len(p), nil
}

// encode appends v as json.Marshal encodes it.
func (e *objectEncoder) encode(v any) error {
	if e.enc == nil {
		e.enc = json.NewEncoder(e) // HTML escaping on, as json.Marshal
	}
	if err := e.enc.Encode(v); err != nil {
		return err
	}
	e.b = e.b[:len(e.b)-1] // Encode ends with a newline
	return nil
}

// bufferCache keeps the byte buffers (request bodies, responses, converted objects) of
// finished requests, cleared, for the next ones; nothing else outlives a request. Unlike a
// sync.Pool it survives garbage collections, which a busy webhook triggers several times a
// review; it holds at most maxCachedBytes, in buffers no larger than maxPooledBuffer.
type bufferCache struct {
	mu    sync.Mutex
	bufs  []*[]byte
	bytes int
}

const (
	maxPooledBuffer = 8 << 20
	maxCachedBytes  = 16 << 20
	maxCachedItems  = 16
)

func (c *bufferCache) getBuffer() *[]byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n := len(c.bufs); n > 0 {
		b := c.bufs[n-1]
		c.bufs[n-1], c.bufs = nil, c.bufs[:n-1]
		c.bytes -= cap(*b)
		return b
	}
	return new([]byte)
}

func (c *bufferCache) putBuffer(b *[]byte) {
	if b == nil || cap(*b) > maxPooledBuffer {
		return
	}
	clear((*b)[:cap(*b)]) // no request's bytes outlive it
	*b = (*b)[:0]
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.bufs) < maxCachedItems && c.bytes+cap(*b) <= maxCachedBytes {
		c.bufs = append(c.bufs, b)
		c.bytes += cap(*b)
	}
}

// readBody appends the request body, up to max bytes, to buf. Memory grows with the bytes
// that arrive, whatever Content-Length announces: a slow client announcing a large body
// holds no more than it sent.
func readBody(w http.ResponseWriter, req *http.Request, max int64, buf []byte) ([]byte, error) {
	r := http.MaxBytesReader(w, req.Body, max)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf[:0], err
		}
	}
}
