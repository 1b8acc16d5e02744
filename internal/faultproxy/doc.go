// Package faultproxy is a fault-injecting reverse proxy for tests: it stands between a
// client-go client and a real kube-apiserver (internal/testcluster) and, request by request,
// forwards, answers with an error, hangs, resets the connection or cuts the answer short.
//
//	p, err := faultproxy.Start(cluster.RESTConfig(), faultproxy.Random(1, 0.3,
//		faultproxy.Status503, faultproxy.CutBodyFIN, faultproxy.Hang))
//	...
//	defer p.Close()
//	client, err := dynamic.NewForConfig(p.RESTConfig())
//
// A [Decider] picks the [Fault] of each request from the request and its 0-based number;
// [Random] is a deterministic one, [OnlyMethods], [OnlyWatches], [When], [Not] and
// [Sequence] restrict or script faults. [Proxy.Counts] says how many of each were injected.
//
// What client-go's dynamic client returns for each (TestFaultsAsClientGoSeesThem holds it):
// Status500, Status503 and Status504 give the matching apierrors (IsInternalError,
// IsServiceUnavailable, IsTimeout); Status429 is retried by client-go itself after a second;
// ResetBeforeAnswer and ForwardThenReset give a connection reset or EOF (which client-go
// retries by itself for a GET, not for other verbs); CutBodyFIN and CutBodyRST give
// "unexpected error when reading response body. Please retry. Original error: ..." wrapping
// io.ErrUnexpectedEOF or the reset; CorruptBody gives a JSON decoding error; Hang gives the
// caller's context error.
//
// # Transport
//
// The proxy listens on 127.0.0.1 over plain HTTP/1.1: resetting a connection or cutting a
// body needs the raw TCP connection (http.Hijacker), which HTTP/2 does not give, and
// client-go speaks HTTP/2 only over TLS, so a config from [Proxy.RESTConfig] (the target's
// with the proxy's http:// address and no TLS settings) makes client-go speak HTTP/1.1
// unchanged. HTTP/2 stream errors are therefore not produced; a cut body shows up as an
// unexpected EOF or a connection reset while reading it, which client-go wraps as
// "unexpected error when reading response body. Please retry. Original error: ...". Towards
// the API server the proxy uses the target config's TLS and credentials.
//
// # What each fault does
//
// Faults that forward ([ForwardThenStatus503], [ForwardThenReset], [CutBodyFIN],
// [CutBodyRST], [WatchCutAfterOneEvent]) let the API server apply the request, so a create
// that the client sees fail may well have happened. On a watch request the Forward* and
// CutBody* faults send at most the response headers before their ending: a watch body has
// no end to wait for. [WatchCutAfterOneEvent] on a request that is not a watch forwards it
// untouched and is not counted. A reset (RST) is made by setting SO_LINGER to 0 on the
// hijacked connection before closing it; [CutBodyRST] waits a moment after writing the
// partial body so that the client reads it before the reset discards it.
//
// A Proxy is safe for concurrent use; [Proxy.Close] ends hung requests and leaves no
// goroutine of its own behind.
package faultproxy
