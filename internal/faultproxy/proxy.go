package faultproxy

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/rest"
)

// Fault is what the proxy does with one request.
type Fault string

const (
	// None forwards the request and its answer untouched.
	None Fault = "None"
	// Status429 answers 429 Too Many Requests with Retry-After: 1 and a Status body, without
	// forwarding (client-go retries it by itself, after a second, up to 10 times).
	Status429 Fault = "Status429"
	// Status500 answers 500 Internal Server Error with a Status body, without forwarding.
	Status500 Fault = "Status500"
	// Status503 answers 503 Service Unavailable with a Status body, without forwarding.
	Status503 Fault = "Status503"
	// Status504 answers 504 Gateway Timeout with a Status body (reason Timeout), without
	// forwarding.
	Status504 Fault = "Status504"
	// Hang holds the request, forwarding nothing and answering nothing, until the client
	// gives up (its context ends, closing the connection) or the proxy closes.
	Hang Fault = "Hang"
	// ResetBeforeAnswer forwards nothing and closes the client's connection with a TCP RST.
	ResetBeforeAnswer Fault = "ResetBeforeAnswer"
	// ForwardThenStatus503 forwards the request (the API server applies it), then answers
	// 503 instead of the real answer.
	ForwardThenStatus503 Fault = "ForwardThenStatus503"
	// ForwardThenReset forwards the request (the API server applies it), then resets the
	// client's connection without an answer.
	ForwardThenReset Fault = "ForwardThenReset"
	// CutBodyFIN forwards the request, sends the real status line and headers (with the
	// real Content-Length) and the first half of the real body, then closes the connection
	// cleanly: the client reads an unexpected EOF.
	CutBodyFIN Fault = "CutBodyFIN"
	// CutBodyRST is CutBodyFIN ending with a reset: the client reads "connection reset by
	// peer" in the middle of the body.
	CutBodyRST Fault = "CutBodyRST"
	// CorruptBody answers 200 with a JSON content type and a body that is not valid JSON,
	// without forwarding.
	CorruptBody Fault = "CorruptBody"
	// StallBody forwards the request, sends the real status line and headers (with the real
	// Content-Length) and the first half of the real body, then sends nothing more and holds
	// the connection open until the client gives up (closes it) or the proxy closes.
	StallBody Fault = "StallBody"
	// WatchCutAfterOneEvent, on a watch request (?watch=true), forwards it and passes the
	// first event line of the stream, then ends the stream cleanly. On other requests it is
	// None (and is not counted).
	WatchCutAfterOneEvent Fault = "WatchCutAfterOneEvent"
)

// Faults lists every Fault but None, in the order of their declarations.
func Faults() []Fault {
	return []Fault{Status429, Status500, Status503, Status504, Hang, ResetBeforeAnswer,
		ForwardThenStatus503, ForwardThenReset, CutBodyFIN, CutBodyRST, StallBody, CorruptBody, WatchCutAfterOneEvent}
}

// Decider picks the fault of one request; n is the 0-based number of the request among all
// the proxy has seen. It is called from the request's goroutine, so concurrently; it must
// not read r's body. A nil Decider means None for every request; so does "" as a result.
type Decider func(r *http.Request, n int64) Fault

// Proxy is a running fault-injecting proxy; see the package doc.
type Proxy struct {
	target *rest.Config
	decide Decider
	rp     *httputil.ReverseProxy
	tr     *http.Transport
	conns  *connSet // the transport's connections to the API server
	ln     net.Listener
	srv    *http.Server
	addr   string

	ctx    context.Context // ended by Close: hung and forwarded requests end
	cancel context.CancelFunc

	n      atomic.Int64
	mu     sync.Mutex
	counts map[Fault]int

	handlers  sync.WaitGroup
	served    chan struct{}
	closeOnce sync.Once
	closeErr  error
}

// resetPause is how long CutBodyRST lets the client read the partial body before the reset,
// which would otherwise discard it from the client's receive buffer.
const resetPause = 20 * time.Millisecond

// StartPlain starts a proxy to the plain-HTTP server at targetURL ("http://127.0.0.1:port":
// an S3 server, say) on 127.0.0.1, faulting requests as decide says. Unlike Start, it passes
// each request's Host header on unchanged, as a request signed for the address it was sent
// to (S3's SigV4 signs the host) needs. Close it when done.
func StartPlain(targetURL string, decide Decider) (*Proxy, error) {
	return start(&rest.Config{Host: targetURL}, decide, false)
}

// Start starts a proxy to target's API server on 127.0.0.1 (a free port), faulting requests
// as decide says. Close it when done.
func Start(target *rest.Config, decide Decider) (*Proxy, error) {
	return start(target, decide, true)
}

// start is Start, with the Host header of forwarded requests set to the target's when
// rewriteHost is true, passed on unchanged when not.
func start(target *rest.Config, decide Decider, rewriteHost bool) (*Proxy, error) {
	if target == nil {
		return nil, errors.New("faultproxy: nil target config")
	}
	host := target.Host
	if host == "" {
		return nil, errors.New("faultproxy: target config has no host")
	}
	u, err := url.Parse(host)
	if err != nil || u.Host == "" {
		if u, err = url.Parse("https://" + host); err != nil {
			return nil, fmt.Errorf("faultproxy: target host %q: %w", host, err)
		}
	}
	tlsConfig, err := rest.TLSConfigFor(target)
	if err != nil {
		return nil, fmt.Errorf("faultproxy: TLS config of %s: %w", host, err)
	}
	// A transport of our own, not client-go's shared cache, whose connections Close closes
	// (all of them: one still busy ending a stream is not idle yet).
	conns := &connSet{m: map[net.Conn]struct{}{}}
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	tr := &http.Transport{
		Proxy: nil,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := dialer.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return conns.add(c), nil
		},
		TLSClientConfig:     tlsConfig,
		ForceAttemptHTTP2:   true,
		MaxIdleConnsPerHost: 100,
		IdleConnTimeout:     30 * time.Second,
		TLSHandshakeTimeout: 10 * time.Second,
	}
	rt, err := rest.HTTPWrappersForConfig(target, tr)
	if err != nil {
		return nil, fmt.Errorf("faultproxy: credentials of %s: %w", host, err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("faultproxy: listen: %w", err)
	}
	p := &Proxy{target: rest.CopyConfig(target), decide: decide, tr: tr, conns: conns, ln: ln,
		addr: "http://" + ln.Addr().String(), counts: map[Fault]int{}, served: make(chan struct{})}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(u)
			if rewriteHost {
				pr.Out.Host = u.Host
			} else {
				pr.Out.Host = pr.In.Host
			}
		},
		Transport:      rt,
		FlushInterval:  -1, // watch events pass at once
		ModifyResponse: p.modifyResponse,
		ErrorHandler:   p.errorHandler,
		ErrorLog:       log.New(io.Discard, "", 0),
	}
	p.srv = &http.Server{
		Handler:           p,
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          log.New(io.Discard, "", 0),
	}
	go func() {
		defer close(p.served)
		_ = p.srv.Serve(ln) // ends with http.ErrServerClosed when Close runs
	}()
	return p, nil
}

// RESTConfig returns a new config for the proxy: the target's credentials and settings,
// with the proxy's http:// address as host, no TLS settings (the proxy presents the target's
// client certificate, if any, itself) and no impersonation (the proxy impersonates as the
// target config says; both adding the headers would double them). The caller may modify it.
func (p *Proxy) RESTConfig() *rest.Config {
	c := rest.CopyConfig(p.target)
	c.Host = p.addr
	c.TLSClientConfig = rest.TLSClientConfig{}
	c.Impersonate = rest.ImpersonationConfig{}
	return c
}

// URL returns the proxy's base URL ("http://127.0.0.1:port").
func (p *Proxy) URL() string { return p.addr }

// Counts returns how many requests got each fault (None excluded), as a new map.
func (p *Proxy) Counts() map[Fault]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[Fault]int, len(p.counts))
	for f, n := range p.counts {
		out[f] = n
	}
	return out
}

// Requests returns how many requests the proxy has seen.
func (p *Proxy) Requests() int64 { return p.n.Load() }

// Close stops listening, ends hung and forwarded requests, closes every connection and
// waits for the proxy's goroutines to end. It is safe to call more than once; every call
// returns the first one's result.
func (p *Proxy) Close() error {
	p.closeOnce.Do(func() {
		p.cancel()
		p.closeErr = p.srv.Close()
		<-p.served
		p.handlers.Wait()
		p.tr.CloseIdleConnections()
		p.conns.closeAll()
		if errors.Is(p.closeErr, http.ErrServerClosed) {
			p.closeErr = nil
		}
	})
	return p.closeErr
}

// ServeHTTP handles one request as the Decider says.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.handlers.Add(1)
	defer p.handlers.Done()
	n := p.n.Add(1) - 1
	f := None
	if p.decide != nil {
		f = p.decide(r, n)
	}
	if f == "" || (f == WatchCutAfterOneEvent && !isWatch(r)) {
		f = None
	}
	if f != None {
		p.mu.Lock()
		p.counts[f]++
		p.mu.Unlock()
	}

	// The request ends with the client or with the proxy.
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	stop := context.AfterFunc(p.ctx, cancel)
	defer stop()

	switch f {
	case Status429:
		writeStatus(w, http.StatusTooManyRequests, "TooManyRequests")
	case Status500:
		writeStatus(w, http.StatusInternalServerError, "InternalError")
	case Status503:
		writeStatus(w, http.StatusServiceUnavailable, "ServiceUnavailable")
	case Status504:
		writeStatus(w, http.StatusGatewayTimeout, "Timeout")
	case Hang:
		<-ctx.Done()
		if p.ctx.Err() != nil {
			if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
				_ = conn.Close()
			}
		}
	case ResetBeforeAnswer:
		reset(w)
	case CorruptBody:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(corruptBody)
	default: // None and the faults that forward
		p.rp.ServeHTTP(w, r.WithContext(context.WithValue(ctx, faultKey{}, f)))
	}
}

// corruptBody is not JSON: it opens an object and breaks off inside it.
var corruptBody = []byte(`{"apiVersion":"v1","kind":"Status","metadata":{<<faultproxy: corrupt>>`)

type faultKey struct{}

func faultOf(ctx context.Context) Fault {
	f, _ := ctx.Value(faultKey{}).(Fault)
	return f
}

func isWatch(r *http.Request) bool {
	v := r.URL.Query().Get("watch")
	return v == "true" || v == "1"
}

// writeStatus answers code with a metav1.Status body, as the API server would.
func writeStatus(w http.ResponseWriter, code int, reason string) {
	body := fmt.Sprintf(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"faultproxy: injected %d","reason":%q,"code":%d}`,
		code, reason, code)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	if code == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", "1")
	}
	w.WriteHeader(code)
	_, _ = io.WriteString(w, body)
}

// reset closes the client's connection with a TCP RST.
func reset(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	resetConn(conn)
}

func resetConn(conn net.Conn) {
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}

// cutError carries a forwarded answer from modifyResponse to errorHandler, which breaks it.
type cutError struct {
	fault  Fault
	status int
	header http.Header
	body   []byte
	watch  bool
}

func (e *cutError) Error() string { return "faultproxy: " + string(e.fault) }

func (p *Proxy) modifyResponse(resp *http.Response) error {
	f := faultOf(resp.Request.Context())
	watching := isWatch(resp.Request)
	switch f {
	case WatchCutAfterOneEvent:
		resp.Body = &firstLine{rc: resp.Body}
		return nil
	case ForwardThenStatus503:
		if !watching {
			_, _ = io.Copy(io.Discard, resp.Body)
		}
		_ = resp.Body.Close()
		body := fmt.Sprintf(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"faultproxy: injected 503 after forwarding","reason":"ServiceUnavailable","code":%d}`,
			http.StatusServiceUnavailable)
		resp.StatusCode = http.StatusServiceUnavailable
		resp.Status = "503 Service Unavailable"
		resp.Header = http.Header{"Content-Type": {"application/json"}, "Content-Length": {strconv.Itoa(len(body))}}
		resp.ContentLength = int64(len(body))
		resp.TransferEncoding = nil
		resp.Body = io.NopCloser(bytes.NewReader([]byte(body)))
		return nil
	case ForwardThenReset, CutBodyFIN, CutBodyRST, StallBody:
		var body []byte
		if !watching {
			body, _ = io.ReadAll(resp.Body) // a read error: whatever came is cut anyway
		}
		_ = resp.Body.Close()
		return &cutError{fault: f, status: resp.StatusCode, header: resp.Header, body: body, watch: watching}
	}
	return nil
}

func (p *Proxy) errorHandler(w http.ResponseWriter, _ *http.Request, err error) {
	var ce *cutError
	if !errors.As(err, &ce) {
		w.WriteHeader(http.StatusBadGateway)
		return
	}
	conn, buf, herr := http.NewResponseController(w).Hijack()
	if herr != nil {
		return
	}
	if ce.fault == ForwardThenReset {
		resetConn(conn)
		return
	}
	writeCut(buf.Writer, ce)
	_ = buf.Flush()
	if ce.fault == StallBody {
		// The client sends nothing more on this connection: a read ends when it closes it.
		stop := context.AfterFunc(p.ctx, func() { _ = conn.Close() })
		_, _ = io.Copy(io.Discard, conn)
		stop()
		_ = conn.Close()
		return
	}
	if ce.fault == CutBodyRST {
		t := time.NewTimer(resetPause)
		select {
		case <-t.C:
		case <-p.ctx.Done():
			t.Stop()
		}
		resetConn(conn)
		return
	}
	_ = conn.Close()
}

// writeCut writes the status line and headers of ce, and half its body: a body of n bytes
// is announced as n bytes (at least 1), a watch's as chunked.
func writeCut(w *bufio.Writer, ce *cutError) {
	fmt.Fprintf(w, "HTTP/1.1 %d %s\r\n", ce.status, http.StatusText(ce.status))
	for k, vs := range ce.header {
		switch k {
		case "Content-Length", "Transfer-Encoding", "Connection":
			continue
		}
		for _, v := range vs {
			fmt.Fprintf(w, "%s: %s\r\n", k, v)
		}
	}
	if ce.watch {
		_, _ = w.WriteString("Transfer-Encoding: chunked\r\n\r\n")
		return
	}
	fmt.Fprintf(w, "Content-Length: %d\r\n\r\n", max(len(ce.body), 1))
	_, _ = w.Write(ce.body[:len(ce.body)/2])
}

// firstLine passes its reader up to and including the first newline, then reports EOF.
type firstLine struct {
	rc   io.ReadCloser
	done bool
}

func (f *firstLine) Read(b []byte) (int, error) {
	if f.done {
		return 0, io.EOF
	}
	n, err := f.rc.Read(b)
	if i := bytes.IndexByte(b[:n], '\n'); i >= 0 {
		f.done = true
		return i + 1, nil
	}
	return n, err
}

func (f *firstLine) Close() error { return f.rc.Close() }

// connSet holds the open connections of the proxy's transport.
type connSet struct {
	mu     sync.Mutex
	m      map[net.Conn]struct{}
	closed bool
}

func (s *connSet) add(c net.Conn) net.Conn {
	tc := &trackedConn{Conn: c, set: s}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		_ = c.Close()
		return tc
	}
	s.m[tc] = struct{}{}
	return tc
}

func (s *connSet) closeAll() {
	s.mu.Lock()
	s.closed = true
	conns := make([]net.Conn, 0, len(s.m))
	for c := range s.m {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	for _, c := range conns {
		_ = c.Close()
	}
}

// trackedConn leaves its connSet when closed.
type trackedConn struct {
	net.Conn
	set *connSet
}

func (c *trackedConn) Close() error {
	c.set.mu.Lock()
	delete(c.set.m, c)
	c.set.mu.Unlock()
	return c.Conn.Close()
}
