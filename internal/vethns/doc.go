// Package vethns gives a test a TCP listener that the test cluster's kube-apiserver
// (internal/testcluster) can reach at an address a Service's EndpointSlice may hold, without
// serving on an address of this machine's own interfaces.
//
// Endpoint validation refuses loopback addresses (127.0.0.0/8, ::1) in an EndpointSlice,
// and an ExternalName Service is refused by the API server's endpoint routing
// (--enable-aggregator-routing, which testcluster's Full mode uses): a webhook named by a
// Service cannot be served on loopback. [Listen] therefore makes a network namespace of its
// own, links it to this one with a veth pair on a /30 of 198.18.0.0/15 (the range RFC 2544
// sets aside for benchmark tests; RFC 6890 lists it as not globally reachable), and listens
// in the namespace on the pair's far end. Traffic to the listener crosses only that pair;
// nothing is served on an address of the machine's interfaces.
//
// A server the API server reaches by URL (a webhook's clientConfig.url, a CRD conversion
// webhook's) needs none of this: it listens on 127.0.0.1, as httptest.NewServer does.
//
// Listen needs root (CAP_SYS_ADMIN for the namespace, CAP_NET_ADMIN for the link), and
// Linux; without them it fails with an error that matches os.ErrPermission or
// errors.ErrUnsupported.
package vethns
