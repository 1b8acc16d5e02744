package main

import (
	"crypto/tls"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"

	"github.com/backupkit/backupkit/internal/testcluster"
	"github.com/backupkit/backupkit/internal/vethns"
)

// webhookServer is a validating admission webhook served over HTTPS from a network
// namespace of the test's own (internal/vethns): it allows every request and counts them. The
// API server reaches it through a Service whose EndpointSlice holds its address, which
// endpoint validation would refuse were it loopback; it is no address of this machine's
// interfaces either.
type webhookServer struct {
	ip    net.IP
	port  int
	ca    *testcluster.CA
	calls atomic.Int64
}

// startWebhookServer serves the webhook on a vethns.Listener, with a certificate for the
// Service name (<service>.<namespace>.svc, the name the API server checks), signed by a CA of
// its own. It stops when t ends: whatever names it must be gone by then (see
// vethns.Listener.Close). Without the privilege to make a network namespace it skips t,
// except in CI, where it fails it.
func startWebhookServer(t *testing.T, service, namespace string) *webhookServer {
	t.Helper()
	ca, err := testcluster.NewCA("webhook-ca")
	require.NoError(t, err)
	certPEM, keyPEM, err := ca.IssueServing(service + "." + namespace + ".svc")
	require.NoError(t, err)
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	require.NoError(t, err)
	l, err := vethns.Listen()
	if (errors.Is(err, os.ErrPermission) || errors.Is(err, errors.ErrUnsupported)) && !testcluster.InCI(os.Getenv) {
		t.Skipf("the webhook server needs a network namespace of its own: %v (run as root, on Linux)", err)
	}
	require.NoError(t, err)
	addr := l.Addr().(*net.TCPAddr)
	ws := &webhookServer{ip: addr.IP, port: addr.Port, ca: ca}
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
		// srv.Close closed l; this returns that result.
		require.NoError(t, l.Close())
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
