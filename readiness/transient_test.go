package readiness_test

import (
	"bufio"
	"context"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/backupkit/backupkit/readiness"
)

// The errors of TestTransientRoundTrips are made by real requests through client-go (and
// net/http where client-go adds nothing) against a server that answers, or breaks the
// connection, as each case's path says.

// statusBody is a metav1.Status answer as the API server writes it.
func statusBody(code int, reason metav1.StatusReason, retryAfter int32) string {
	details := ""
	if retryAfter > 0 {
		details = fmt.Sprintf(`,"details":{"retryAfterSeconds":%d}`, retryAfter)
	}
	return fmt.Sprintf(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"injected","reason":%q,"code":%d%s}`,
		reason, code, details)
}

// faultHandler answers as the request's last path element says.
func faultHandler(t *testing.T, proto *atomic.Int32) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		proto.Store(int32(r.ProtoMajor))
		status := func(code int, reason metav1.StatusReason, retryAfter int32) {
			w.Header().Set("Content-Type", "application/json")
			if code == http.StatusTooManyRequests {
				w.Header().Set("Retry-After", strconv.Itoa(int(retryAfter)))
			}
			w.WriteHeader(code)
			_, _ = io.WriteString(w, statusBody(code, reason, retryAfter))
		}
		hijack := func() (net.Conn, *bufio.ReadWriter) {
			conn, rw, err := http.NewResponseController(w).Hijack()
			if err != nil {
				t.Errorf("hijack: %v", err)
				panic(http.ErrAbortHandler)
			}
			return conn, rw
		}
		rst := func(conn net.Conn) {
			_ = conn.(*net.TCPConn).SetLinger(0)
			_ = conn.Close()
		}
		half := func() { // the headers of a 1000-byte answer and 24 bytes of it
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", "1000")
			w.WriteHeader(http.StatusOK)
			_, _ = io.WriteString(w, `{"kind":"ConfigMapList",`)
			_ = http.NewResponseController(w).Flush()
		}
		switch r.URL.Path[len("/api/v1/namespaces/ns/configmaps/"):] {
		case "429":
			status(http.StatusTooManyRequests, metav1.StatusReasonTooManyRequests, 1)
		case "500":
			status(http.StatusInternalServerError, metav1.StatusReasonInternalError, 0)
		case "503":
			status(http.StatusServiceUnavailable, metav1.StatusReasonServiceUnavailable, 0)
		case "504":
			status(http.StatusGatewayTimeout, metav1.StatusReasonTimeout, 0)
		case "server-timeout":
			status(http.StatusInternalServerError, metav1.StatusReasonServerTimeout, 2)
		case "502-not-a-status":
			w.WriteHeader(http.StatusBadGateway)
			_, _ = io.WriteString(w, "<html>bad gateway</html>")
		case "408":
			w.WriteHeader(http.StatusRequestTimeout)
		case "409-retry-after":
			status(http.StatusConflict, metav1.StatusReasonConflict, 1)
		case "400":
			status(http.StatusBadRequest, metav1.StatusReasonBadRequest, 0)
		case "401":
			status(http.StatusUnauthorized, metav1.StatusReasonUnauthorized, 0)
		case "403":
			status(http.StatusForbidden, metav1.StatusReasonForbidden, 0)
		case "404":
			status(http.StatusNotFound, metav1.StatusReasonNotFound, 0)
		case "405":
			status(http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed, 0)
		case "409":
			status(http.StatusConflict, metav1.StatusReasonAlreadyExists, 0)
		case "410":
			status(http.StatusGone, metav1.StatusReasonExpired, 0)
		case "422":
			status(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, 0)
		case "corrupt":
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{<<corrupt>>`)
		case "no-kind":
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"metadata":{"name":"x"}}`)
		case "reset":
			conn, _ := hijack()
			rst(conn)
		case "close":
			conn, _ := hijack()
			_ = conn.Close()
		case "cut-fin", "cut-rst":
			conn, rw := hijack()
			_, _ = io.WriteString(rw, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"kind\":\"ConfigMap\",")
			_ = rw.Flush()
			if r.URL.Path[len(r.URL.Path)-3:] == "rst" {
				time.Sleep(50 * time.Millisecond) // the client reads the part before the reset
				rst(conn)
				return
			}
			_ = conn.Close()
		case "h2-stream-reset":
			half()
			panic(http.ErrAbortHandler) // HTTP/2: RST_STREAM INTERNAL_ERROR
		case "hang":
			<-r.Context().Done()
		default:
			t.Errorf("unexpected request %s", r.URL.Path)
		}
	}
}

// newFaultServer starts an HTTP/1.1 server, or HTTP/2 over TLS, and returns the config
// client-go needs for it.
func newFaultServer(t *testing.T, h2 bool, proto *atomic.Int32) (*httptest.Server, *rest.Config) {
	srv := httptest.NewUnstartedServer(faultHandler(t, proto))
	srv.Config.ErrorLog = nil
	if !h2 {
		srv.Start()
		t.Cleanup(srv.Close)
		return srv, &rest.Config{Host: srv.URL}
	}
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	return srv, &rest.Config{Host: srv.URL, TLSClientConfig: rest.TLSClientConfig{CAData: ca}}
}

// rawGet is a GET through client-go's REST client, without client-go's own retries (which
// would make a GET of a broken connection, or a 429, take 10 s before it returns the same
// error).
func rawGet(ctx context.Context, t *testing.T, cfg *rest.Config, name string) error {
	c := rest.CopyConfig(cfg)
	c.NegotiatedSerializer = scheme.Codecs.WithoutConversion()
	rc, err := rest.UnversionedRESTClientFor(c)
	require.NoError(t, err)
	return rc.Get().AbsPath("/api/v1/namespaces/ns/configmaps", name).MaxRetries(0).Do(ctx).Error()
}

// dynGet is a GET through client-go's dynamic client, which decodes the answer.
func dynGet(ctx context.Context, t *testing.T, cfg *rest.Config, name string) error {
	dc, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	_, err = dc.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace("ns").Get(ctx, name, metav1.GetOptions{})
	return err
}

func TestTransientRoundTrips(t *testing.T) {
	var proto atomic.Int32
	_, h1 := newFaultServer(t, false, &proto)
	_, h2 := newFaultServer(t, true, &proto)
	tests := []struct {
		name  string
		h2    bool
		get   func(ctx context.Context, t *testing.T, cfg *rest.Config, name string) error
		path  string
		want  bool
		check func(t *testing.T, err error)
	}{
		{name: "429 with Retry-After", get: rawGet, path: "429", want: true, check: func(t *testing.T, err error) {
			require.True(t, apierrors.IsTooManyRequests(err))
			s, ok := apierrors.SuggestsClientDelay(err)
			require.True(t, ok)
			require.Equal(t, 1, s)
		}},
		{name: "500", get: rawGet, path: "500", want: true, check: func(t *testing.T, err error) { require.True(t, apierrors.IsInternalError(err)) }},
		{name: "503", get: rawGet, path: "503", want: true, check: func(t *testing.T, err error) { require.True(t, apierrors.IsServiceUnavailable(err)) }},
		{name: "504", get: rawGet, path: "504", want: true, check: func(t *testing.T, err error) { require.True(t, apierrors.IsTimeout(err)) }},
		{name: "server timeout", get: rawGet, path: "server-timeout", want: true, check: func(t *testing.T, err error) { require.True(t, apierrors.IsServerTimeout(err)) }},
		{name: "502 of a proxy, not a Status", get: rawGet, path: "502-not-a-status", want: true},
		{name: "408 without a body", get: rawGet, path: "408", want: true},
		{name: "409 suggesting a retry", get: rawGet, path: "409-retry-after", want: true, check: func(t *testing.T, err error) { require.True(t, apierrors.IsConflict(err)) }},
		{name: "400", get: rawGet, path: "400", check: func(t *testing.T, err error) { require.True(t, apierrors.IsBadRequest(err)) }},
		{name: "401", get: rawGet, path: "401", check: func(t *testing.T, err error) { require.True(t, apierrors.IsUnauthorized(err)) }},
		{name: "403", get: rawGet, path: "403", check: func(t *testing.T, err error) { require.True(t, apierrors.IsForbidden(err)) }},
		{name: "404", get: dynGet, path: "404", check: func(t *testing.T, err error) { require.True(t, apierrors.IsNotFound(err)) }},
		{name: "405", get: rawGet, path: "405", check: func(t *testing.T, err error) { require.True(t, apierrors.IsMethodNotSupported(err)) }},
		{name: "409 AlreadyExists", get: rawGet, path: "409", check: func(t *testing.T, err error) { require.True(t, apierrors.IsAlreadyExists(err)) }},
		{name: "410 Expired", get: rawGet, path: "410", check: func(t *testing.T, err error) { require.True(t, apierrors.IsResourceExpired(err)) }},
		{name: "422", get: rawGet, path: "422", check: func(t *testing.T, err error) { require.True(t, apierrors.IsInvalid(err)) }},
		{name: "body that is not JSON", get: dynGet, path: "corrupt", want: true},
		{name: "object without kind", get: dynGet, path: "no-kind", want: true},
		{name: "reset before the answer", get: rawGet, path: "reset", want: true},
		{name: "closed before the answer", get: rawGet, path: "close", want: true},
		{name: "body cut, FIN", get: rawGet, path: "cut-fin", want: true, check: func(t *testing.T, err error) { require.ErrorIs(t, err, io.ErrUnexpectedEOF) }},
		{name: "body cut, RST", get: rawGet, path: "cut-rst", want: true},
		{name: "body cut, dynamic client", get: dynGet, path: "cut-fin", want: true},
		{name: "HTTP/2 stream reset in the body", h2: true, get: rawGet, path: "h2-stream-reset", want: true},
		{name: "HTTP/2 429", h2: true, get: rawGet, path: "429", want: true},
		{name: "HTTP/2 403", h2: true, get: rawGet, path: "403"},
		{name: "caller's deadline", get: func(_ context.Context, t *testing.T, cfg *rest.Config, name string) error {
			ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
			defer cancel()
			return rawGet(ctx, t, cfg, name)
		}, path: "hang", check: func(t *testing.T, err error) { require.ErrorIs(t, err, context.DeadlineExceeded) }},
		{name: "caller's cancellation", get: func(_ context.Context, t *testing.T, cfg *rest.Config, name string) error {
			ctx, cancel := context.WithCancel(t.Context())
			time.AfterFunc(50*time.Millisecond, cancel)
			return rawGet(ctx, t, cfg, name)
		}, path: "hang", check: func(t *testing.T, err error) { require.ErrorIs(t, err, context.Canceled) }},
		{name: "HTTP/2, caller's deadline", h2: true, get: func(_ context.Context, t *testing.T, cfg *rest.Config, name string) error {
			ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
			defer cancel()
			return rawGet(ctx, t, cfg, name)
		}, path: "hang", check: func(t *testing.T, err error) { require.ErrorIs(t, err, context.DeadlineExceeded) }},
		{name: "http.Client's own timeout", get: func(ctx context.Context, t *testing.T, cfg *rest.Config, name string) error {
			c := &http.Client{Timeout: 50 * time.Millisecond}
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, cfg.Host+"/api/v1/namespaces/ns/configmaps/"+name, nil)
			require.NoError(t, err)
			_, err = c.Do(req) //nolint:bodyclose // no answer comes
			return err
		}, path: "hang", want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, wantProto := h1, int32(1)
			if tt.h2 {
				cfg, wantProto = h2, 2
			}
			proto.Store(0)
			err := tt.get(t.Context(), t, cfg, tt.path)
			require.Error(t, err)
			require.Equal(t, wantProto, proto.Load(), "the request reached the server over HTTP/%d", wantProto)
			if tt.check != nil {
				tt.check(t, err)
			}
			require.Equal(t, tt.want, readiness.Transient(err), "%T %v", err, err)
		})
	}
}

// TestTransientWithoutAServer: errors made before any answer, by the dial or the client's
// configuration.
func TestTransientWithoutAServer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := "http://" + l.Addr().String()
	require.NoError(t, l.Close())
	untrusted := httptest.NewTLSServer(http.NotFoundHandler())
	defer untrusted.Close()

	tests := []struct {
		name string
		err  func() error
		want bool
	}{
		{"connection refused", func() error { return rawGet(t.Context(), t, &rest.Config{Host: closed}, "x") }, true},
		{"a create refused too", func() error {
			dc, err := dynamic.NewForConfig(&rest.Config{Host: closed})
			require.NoError(t, err)
			_, err = dc.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace("ns").
				Create(t.Context(), &unstructured.Unstructured{Object: map[string]any{
					"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "x"}}}, metav1.CreateOptions{})
			return err
		}, true},
		{"certificate not trusted", func() error { return rawGet(t.Context(), t, &rest.Config{Host: untrusted.URL}, "x") }, false},
		{"unsupported scheme", func() error {
			_, err := http.Get("ftp://127.0.0.1/x") //nolint:bodyclose,noctx // fails before any answer
			return err
		}, false},
		{"invalid URL", func() error {
			_, err := http.Get("http://[::1/x") //nolint:bodyclose,noctx // fails before any answer
			return err
		}, false},
		{"kind not served", func() error {
			return &meta.NoKindMatchError{GroupKind: schema.GroupKind{Group: "shop.example.com", Kind: "Gadget"}, SearchedVersions: []string{"v1"}}
		}, false},
		{"dial timeout", func() error {
			d := net.Dialer{Timeout: time.Nanosecond}
			_, err := d.Dial("tcp", "127.0.0.1:1")
			return err
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.err()
			require.Error(t, err)
			require.Equal(t, tt.want, readiness.Transient(err), "%T %v", err, err)
		})
	}
}

// freezer relays TCP connections to a server until frozen; then it passes nothing more in
// either direction, as a network that lost the server would.
type freezer struct {
	l      net.Listener
	frozen atomic.Bool
	mu     sync.Mutex
	conns  []net.Conn
	wg     sync.WaitGroup
}

func newFreezer(t *testing.T, target string) *freezer {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	f := &freezer{l: l}
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				_ = c.Close()
				continue
			}
			f.mu.Lock()
			f.conns = append(f.conns, c, s)
			f.mu.Unlock()
			f.wg.Add(2)
			go f.pipe(c, s)
			go f.pipe(s, c)
		}
	}()
	t.Cleanup(func() {
		_ = l.Close()
		f.mu.Lock()
		for _, c := range f.conns {
			_ = c.Close()
		}
		f.mu.Unlock()
		f.wg.Wait()
	})
	return f
}

func (f *freezer) pipe(dst, src net.Conn) {
	defer f.wg.Done()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && !f.frozen.Load() { // once frozen, swallowed

			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// TestTransientHTTP2ConnectionLost: an HTTP/2 connection whose server stops answering, even
// its pings, is closed by client-go's health check with "http2: client connection lost"
// (the case examples/backup's own rule missed).
func TestTransientHTTP2ConnectionLost(t *testing.T) {
	t.Setenv("HTTP2_READ_IDLE_TIMEOUT_SECONDS", "1")
	t.Setenv("HTTP2_PING_TIMEOUT_SECONDS", "1")
	var f *freezer
	reached := make(chan struct{}, 1)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.frozen.Store(true)
		reached <- struct{}{}
		<-r.Context().Done()
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close) // after the freezer's connections close (cleanups run last first)
	f = newFreezer(t, srv.Listener.Addr().String())
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	cfg := &rest.Config{Host: "https://" + f.l.Addr().String(), TLSClientConfig: rest.TLSClientConfig{CAData: ca, ServerName: "example.com"}}
	err := rawGet(t.Context(), t, cfg, "x")
	<-reached
	require.Error(t, err)
	require.ErrorContains(t, err, "http2: client connection lost")
	require.True(t, readiness.Transient(err), "%T %v", err, err)
}

// TestTransientWording: errors whose types are not exported (x/net/http2's GOAWAY after a
// server closed the connection, which needs a server that drops in-flight streams) or
// that client-go formats without a type, in the wording their makers use.
func TestTransientWording(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"GOAWAY", fmt.Errorf("Get %q: %w", "https://x", errors.New(`http2: server sent GOAWAY and closed the connection; LastStreamID=1, ErrCode=NO_ERROR, debug=""`)), true},
		{"graceful GOAWAY", errors.New("http2: Transport received Server's graceful shutdown GOAWAY"), true},
		{"HTTP/2 connection error", errors.New("connection error: PROTOCOL_ERROR"), true},
		{"HTTP/2 conn closed", errors.New("http2: client conn is closed"), true},
		{"cannot retry after the body was written", errors.New("http2: Transport: cannot retry err [http2: client connection lost] after Request.Body was written; define Request.GetBody to avoid this error"), true},
		{"server closed idle connection", errors.New("http: server closed idle connection"), true},
		{"a 403 mentioning GOAWAY", apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "x", errors.New("GOAWAY")), false},
		{"a body cut by the caller's cancellation", fmt.Errorf("unexpected error when reading response body. Please retry. Original error: %w", context.Canceled), false},
		{"joined with a context's end", errors.Join(io.ErrUnexpectedEOF, context.Canceled), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { require.Equal(t, tt.want, readiness.Transient(tt.err)) })
	}
}
