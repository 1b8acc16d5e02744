package backupstore

import (
	"context"
	"net"
	"net/http"
	"time"
)

// Timeouts bound every request a store makes, so that an object store that stops answering
// ends a read, an upload or a call with an error instead of holding it forever. A zero or
// negative field takes its value from DefaultTimeouts.
type Timeouts struct {
	// Connect bounds opening a connection: the TCP dial, and the TLS handshake after it.
	Connect time.Duration
	// ResponseHeader bounds the wait for an answer's headers once a request is sent (a
	// part upload the server never answers, say). The AWS SDK retries a request that
	// timed out, as it retries a 5xx, within its own retry budget.
	ResponseHeader time.Duration
	// Stall bounds how long a connection may move no byte while the store reads from it or
	// writes to it (a body that stops arriving, a server that stops reading an upload), and
	// how long a read of an object opened by Tarball or SiblingManifest may deliver nothing
	// once its answer began, whatever the bucket's client: such a read is cut and resumed
	// from where it stopped, as any cut read, within WithReadRetries' budget.
	Stall time.Duration
	// Abort bounds the clean-up sent after an upload failed or was given up (the abort of
	// an S3 multipart upload, the delete of a tarball whose sibling could not be written),
	// on a context of its own: the caller's may be the one that ended.
	Abort time.Duration
}

// DefaultTimeouts are the timeouts a store uses unless WithTimeouts says otherwise.
func DefaultTimeouts() Timeouts {
	return Timeouts{Connect: 30 * time.Second, ResponseHeader: 2 * time.Minute, Stall: time.Minute, Abort: 30 * time.Second}
}

// orDefault returns t with each field that is not positive set to its default.
func (t Timeouts) orDefault() Timeouts {
	d := DefaultTimeouts()
	pick := func(v, def time.Duration) time.Duration {
		if v > 0 {
			return v
		}
		return def
	}
	return Timeouts{Connect: pick(t.Connect, d.Connect), ResponseHeader: pick(t.ResponseHeader, d.ResponseHeader),
		Stall: pick(t.Stall, d.Stall), Abort: pick(t.Abort, d.Abort)}
}

// WithTimeouts sets the store's timeouts (see Timeouts). The connection, response-header and
// stall bounds of requests apply to the HTTP client Open makes for s3:// URLs; the stall
// bound of a read and the abort bound apply to every store. Default: DefaultTimeouts.
func WithTimeouts(t Timeouts) Option {
	return func(s *Store) { s.timeouts = t.orDefault() }
}

// WithHTTPClient makes Open use c for s3:// URLs instead of the client it builds with the
// store's Timeouts; c's own timeouts then bound the requests. Other schemes ignore it. With
// the AWS SDK v1 (s3blob's default) and a custom CA bundle (AWS_CA_BUNDLE), the SDK takes
// only a client whose Transport is an *http.Transport. Default: none.
func WithHTTPClient(c *http.Client) Option {
	return func(s *Store) { s.httpClient = c }
}

// newHTTPClient is the client a store talks to S3 with: an *http.Transport set up by
// boundTransport. The client itself has no overall timeout: a large upload or download may
// take as long as its bytes keep moving.
func newHTTPClient(t Timeouts) *http.Client {
	tr := &http.Transport{Proxy: http.ProxyFromEnvironment, ExpectContinueTimeout: time.Second, MaxIdleConnsPerHost: 16}
	boundTransport(tr, t)
	return &http.Client{Transport: tr}
}

// boundTransport sets tr up so that every connection is opened within t.Connect, every
// answer's headers arrive within t.ResponseHeader, and no read or write on a connection
// waits more than t.Stall for a byte.
func boundTransport(tr *http.Transport, t Timeouts) {
	dialer := &net.Dialer{Timeout: t.Connect, KeepAlive: 30 * time.Second}
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dialer.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &stallConn{Conn: c, stall: t.Stall}, nil
	}
	tr.TLSHandshakeTimeout = t.Connect
	tr.ResponseHeaderTimeout = t.ResponseHeader
	// An idle connection is closed before its pending read would reach the stall bound.
	tr.IdleConnTimeout = min(90*time.Second, t.Stall/2)
}

// stallConn is a connection each of whose reads and writes fails with a timeout once it has
// waited stall without moving a byte.
type stallConn struct {
	net.Conn
	stall time.Duration
}

func (c *stallConn) Read(p []byte) (int, error) {
	if err := c.Conn.SetReadDeadline(time.Now().Add(c.stall)); err != nil {
		return 0, err
	}
	return c.Conn.Read(p)
}

func (c *stallConn) Write(p []byte) (int, error) {
	// A write of many bytes may take long while they keep moving: the bound is renewed
	// for each chunk written.
	written := 0
	for written < len(p) {
		if err := c.Conn.SetWriteDeadline(time.Now().Add(c.stall)); err != nil {
			return written, err
		}
		end := min(len(p), written+writeChunk)
		n, err := c.Conn.Write(p[written:end])
		written += n
		if err != nil {
			return written, err
		}
	}
	return written, nil
}

// writeChunk is the most a stallConn writes under one deadline.
const writeChunk = 256 << 10
