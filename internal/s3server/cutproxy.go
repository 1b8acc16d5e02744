package s3server

import (
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// CutProxy is a reverse proxy (net/http/httputil) in front of a server that cuts bodies
// mid-way: the answer to a GET of a tarball (a path ending in .tar.gz), or an upload (PUT
// or POST with a body), after the number of bytes its Cut function says. internal/faultproxy
// is the one for kube-apiserver; this one speaks plain HTTP to anything, S3 included.
type CutProxy struct {
	*httptest.Server
	mu   sync.Mutex
	cut  func(method string, n int) int
	seen map[string]int
	cuts atomic.Int64
}

// NewCutProxy starts a CutProxy in front of target (a base URL) for t, closed when t ends.
// cut is asked, for the n-th (0-based) tarball GET or upload of each method, how many of its
// body's bytes pass before the connection is dropped; -1 for none.
func NewCutProxy(t testing.TB, target string, cut func(method string, n int) int) *CutProxy {
	t.Helper()
	tu, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &CutProxy{cut: cut, seen: map[string]int{}}
	rp := httputil.NewSingleHostReverseProxy(tu)
	rp.ErrorLog = log.New(io.Discard, "", 0)
	rp.FlushInterval = -1 // each write goes out at once: a cut comes after what passed
	rp.ModifyResponse = func(resp *http.Response) error {
		if resp.Request.Method != http.MethodGet || resp.StatusCode/100 != 2 ||
			!strings.HasSuffix(resp.Request.URL.Path, ".tar.gz") {
			return nil
		}
		if n := p.decide(http.MethodGet); n >= 0 {
			resp.Body = &cutBody{rc: resp.Body, left: n, p: p}
		}
		return nil
	}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if (r.Method == http.MethodPut || r.Method == http.MethodPost) && r.ContentLength > 0 {
			if n := p.decide(r.Method); n >= 0 {
				_, _ = io.CopyN(io.Discard, r.Body, int64(n))
				p.cuts.Add(1)
				panic(http.ErrAbortHandler) // drops the connection
			}
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(p.Close)
	return p
}

// Cuts is the number of bodies cut so far.
func (p *CutProxy) Cuts() int64 { return p.cuts.Load() }

func (p *CutProxy) decide(method string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := p.seen[method]
	p.seen[method]++
	return p.cut(method, n)
}

type cutBody struct {
	rc   io.ReadCloser
	left int
	p    *CutProxy
}

var errCut = errors.New("s3server: body cut by the proxy")

func (b *cutBody) Read(q []byte) (int, error) {
	if b.left <= 0 {
		b.p.cuts.Add(1)
		return 0, errCut
	}
	if len(q) > b.left {
		q = q[:b.left]
	}
	n, err := b.rc.Read(q)
	b.left -= n
	return n, err
}

func (b *cutBody) Close() error { return b.rc.Close() }
