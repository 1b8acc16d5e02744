package readiness

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilnet "k8s.io/apimachinery/pkg/util/net"
)

// Transient reports whether err, the error of one API request, is worth sending the same
// request again, because it may well succeed a moment later. It is the default of
// WithTransient and the one rule of the project: readiness' reads, examples/backup's
// listings and the restore's creates retry what it calls transient. It fits reads, which
// are harmless to repeat, and creates that meet AlreadyExists when sent twice; it does not
// say whether a request that failed was applied. In this order:
//
//   - nil is not transient;
//   - a context's end is not: context.Canceled or context.DeadlineExceeded (the values of
//     package context, wherever wrapped), or client-go's rate limiter declining to wait
//     past a context's deadline ("rate: Wait(n=1) would exceed context deadline"): the
//     context that bounds the request ended, and that context is the caller's (a caller
//     that bounds each request itself, as Wait does with WithRequestTimeout, knows when its
//     own bound ran out while its context goes on; Wait then retries);
//   - an answer of the API server (an apierrors.APIStatus) is transient when it says "not
//     now": 429 Too Many Requests, 408 Request Timeout, any 5xx, the reasons
//     TooManyRequests, ServerTimeout and Timeout, or a server-suggested retry
//     (details.retryAfterSeconds > 0); every other answer is permanent, whatever its text
//     says: 400, 401, 403, 404, 405, 409, 410, 422 and the other 4xx say that this request,
//     as made, will not succeed by repetition;
//   - a kind the RESTMapper does not know (meta.IsNoMatchError) is permanent, as far as
//     Transient goes (Wait waits for it like a NotFound, before asking Transient);
//   - the connection failing is transient: refused, reset, aborted, a broken pipe, closed
//     (net.ErrClosed, "use of closed network connection"), an EOF or unexpected EOF before
//     or in the middle of an answer, client-go's "... when reading response body. Please
//     retry ..." (HTTP/1.1 and HTTP/2 alike), an HTTP/2 connection lost, a GOAWAY, an
//     HTTP/2 stream or connection error;
//   - a timeout that is not a context's is transient: a net.Error whose Timeout is true,
//     such as a dial or TLS handshake timeout, net/http's "timeout awaiting response
//     headers" or http.Client's Timeout;
//   - an answer that does not decode (JSON that does not parse, an object without kind or
//     apiVersion) is transient: a corrupt answer is far more often a proxy or a cut
//     connection than what the API server meant (Wait bounds how many it retries, see
//     DecodeFailureLimit);
//   - everything else is permanent, an invalid configuration or URL, a certificate not
//     trusted or an unknown host included: retrying an error nobody recognizes until a
//     deadline would only hide it.
//
// Some HTTP/2 errors and client-go's wrapping of a cut body have no exported type; they
// are recognized by their wording.
func Transient(err error) bool {
	if err == nil || isContextEnd(err) {
		return false
	}
	var st apierrors.APIStatus
	if errors.As(err, &st) {
		return transientStatus(st.Status())
	}
	if meta.IsNoMatchError(err) {
		return false
	}
	if isConnectionFailure(err) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	return isDecodeError(err)
}

// transientStatus: see Transient.
func transientStatus(s metav1.Status) bool {
	switch {
	case s.Code == http.StatusTooManyRequests || s.Code == http.StatusRequestTimeout || s.Code >= 500:
		return true
	case s.Reason == metav1.StatusReasonTooManyRequests || s.Reason == metav1.StatusReasonServerTimeout ||
		s.Reason == metav1.StatusReasonTimeout:
		return true
	}
	return s.Details != nil && s.Details.RetryAfterSeconds > 0
}

// isContextEnd reports whether err says that the context bounding its request ended: the
// values of package context in its chain (not errors that only match them through an Is
// method, as net/http's and net's own timeouts do), or client-go's rate limiter refusing
// to wait past the context's deadline (it wraps no context error).
func isContextEnd(err error) bool {
	for _, e := range chain(err) {
		if e == context.Canceled || e == context.DeadlineExceeded {
			return true
		}
	}
	return strings.Contains(err.Error(), "would exceed context deadline")
}

// chain returns err and every error it wraps, depth first.
func chain(err error) []error {
	var out []error
	stack := []error{err}
	for len(stack) > 0 && len(out) < 100 {
		e := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if e == nil {
			continue
		}
		out = append(out, e)
		switch u := e.(type) {
		case interface{ Unwrap() error }:
			stack = append(stack, u.Unwrap())
		case interface{ Unwrap() []error }:
			es := u.Unwrap()
			for i := len(es) - 1; i >= 0; i-- {
				stack = append(stack, es[i])
			}
		}
	}
	return out
}

// isConnectionFailure: see Transient.
func isConnectionFailure(err error) bool {
	if utilnet.IsConnectionRefused(err) || utilnet.IsConnectionReset(err) || utilnet.IsProbableEOF(err) ||
		utilnet.IsHTTP2ConnectionLost(err) {
		return true
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	msg := err.Error()
	if strings.Contains(msg, "when reading response body") && strings.Contains(msg, "Please retry") {
		return true
	}
	for _, s := range connectionFailureWording {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// connectionFailureWording is how net/http (and golang.org/x/net/http2, which client-go
// configures) word the failures of a connection that have no exported type.
var connectionFailureWording = [...]string{
	"http: server closed idle connection",
	"broken pipe",
	"GOAWAY",                   // "http2: server sent GOAWAY and closed the connection; ...", "... received Server's graceful shutdown GOAWAY"
	"stream error: stream ID ", // an HTTP/2 stream reset (RST_STREAM)
	"connection error: ",       // an HTTP/2 connection error
	"http2: client connection force closed",
	"http2: client conn is closed",
	"http2: client conn not usable",
	"http2: client conn could not be established",
	"http2: Transport: cannot retry err", // a connection lost after the request body was sent
}
