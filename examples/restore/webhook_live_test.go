package main

import (
	"crypto/tls"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"

	"github.com/backupkit/backupkit/internal/testcluster"
)

// webhookServer is a validating admission webhook served over HTTPS from this machine: it
// allows every request and counts them. The API server reaches it through a Service whose
// EndpointSlice holds its address (see hostAddress).
type webhookServer struct {
	ip    net.IP
	port  int
	ca    *testcluster.CA
	calls atomic.Int64
}

// hostAddress returns an address of this machine the API server can reach that endpoint
// validation accepts: up, neither loopback nor link-local nor multicast; IPv4 first. It fails
// t when there is none.
func hostAddress(t *testing.T) net.IP {
	t.Helper()
	ifaces, err := net.Interfaces()
	require.NoError(t, err)
	var v6 net.IP
	for _, iface := range ifaces {
		if iface.Flags&net.FlagUp == 0 || iface.Flags&net.FlagLoopback != 0 {
			continue
		}
		addrs, err := iface.Addrs()
		if err != nil {
			continue
		}
		for _, a := range addrs {
			ipnet, ok := a.(*net.IPNet)
			if !ok || !ipnet.IP.IsGlobalUnicast() || ipnet.IP.IsLoopback() || ipnet.IP.IsLinkLocalUnicast() {
				continue
			}
			if ip4 := ipnet.IP.To4(); ip4 != nil {
				return ip4
			}
			if v6 == nil {
				v6 = ipnet.IP
			}
		}
	}
	if v6 == nil {
		t.Fatal("no network interface of this machine has an address other than loopback or link-local: " +
			"the test's webhook server needs one, as endpoint validation refuses loopback addresses")
	}
	return v6
}

// startWebhookServer serves the webhook on an address of this machine (hostAddress), with a
// certificate for the Service name (<service>.<namespace>.svc, the name the API server
// checks), signed by a CA of its own. It stops when t ends.
func startWebhookServer(t *testing.T, service, namespace string) *webhookServer {
	t.Helper()
	ca, err := testcluster.NewCA("webhook-ca")
	require.NoError(t, err)
	certPEM, keyPEM, err := ca.IssueServing(service + "." + namespace + ".svc")
	require.NoError(t, err)
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	require.NoError(t, err)
	ip := hostAddress(t)
	l, err := net.Listen("tcp", net.JoinHostPort(ip.String(), "0"))
	require.NoError(t, err, "listen on %s", ip)
	ws := &webhookServer{ip: ip, port: l.Addr().(*net.TCPAddr).Port, ca: ca}
	srv := &http.Server{
		Handler:           http.HandlerFunc(ws.serve),
		TLSConfig:         &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12},
		ReadHeaderTimeout: 10 * time.Second,
	}
	done := make(chan error, 1)
	go func() { done <- srv.ServeTLS(l, "", "") }()
	t.Cleanup(func() {
		require.NoError(t, srv.Close())
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("webhook server: %v", err)
		}
	})
	return ws
}

// serve answers an AdmissionReview with allowed: true.
func (ws *webhookServer) serve(w http.ResponseWriter, r *http.Request) {
	var review admissionv1.AdmissionReview
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4<<20)).Decode(&review); err != nil || review.Request == nil {
		http.Error(w, "not an AdmissionReview", http.StatusBadRequest)
		return
	}
	ws.calls.Add(1)
	review.Response = &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true}
	review.Request = nil
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(&review)
}

// addressType is the EndpointSlice address type of the server's address.
func (ws *webhookServer) addressType() string {
	if ws.ip.To4() != nil {
		return "IPv4"
	}
	return "IPv6"
}
