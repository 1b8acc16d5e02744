package testcluster_test

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/backupkit/backupkit/internal/testcluster"
)

func TestCAIssueServing(t *testing.T) {
	ca, err := testcluster.NewCA("test-ca")
	require.NoError(t, err)
	certPEM, keyPEM, err := ca.IssueServing("127.0.0.1", "localhost")
	require.NoError(t, err)

	block, _ := pem.Decode(certPEM)
	require.NotNil(t, block)
	cert, err := x509.ParseCertificate(block.Bytes)
	require.NoError(t, err)
	require.Equal(t, []string{"localhost"}, cert.DNSNames)
	require.Len(t, cert.IPAddresses, 1)
	require.True(t, cert.IPAddresses[0].Equal(net.ParseIP("127.0.0.1")))

	tests := []struct {
		name    string
		host    string
		wantErr bool
	}{
		{name: "IP SAN", host: "127.0.0.1"},
		{name: "DNS SAN", host: "localhost"},
		{name: "other name", host: "example.com", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := cert.Verify(x509.VerifyOptions{DNSName: tt.host, Roots: ca.Pool()})
			if tt.wantErr {
				require.Error(t, err)
			} else {
				require.NoError(t, err)
			}
		})
	}

	t.Run("another CA does not verify it", func(t *testing.T) {
		other, err := testcluster.NewCA("other")
		require.NoError(t, err)
		_, err = cert.Verify(x509.VerifyOptions{DNSName: "127.0.0.1", Roots: other.Pool()})
		require.Error(t, err)
	})

	t.Run("serves TLS trusted through CertPEM", func(t *testing.T) {
		pair, err := tls.X509KeyPair(certPEM, keyPEM)
		require.NoError(t, err)
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte("hello"))
		}))
		srv.TLS = &tls.Config{Certificates: []tls.Certificate{pair}}
		srv.StartTLS()
		defer srv.Close()
		pool := x509.NewCertPool()
		require.True(t, pool.AppendCertsFromPEM(ca.CertPEM()))
		client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
		resp, err := client.Get(srv.URL)
		require.NoError(t, err)
		defer resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
	})
}

func TestCAIssueServingNeedsHosts(t *testing.T) {
	ca, err := testcluster.NewCA("test-ca")
	require.NoError(t, err)
	_, _, err = ca.IssueServing()
	require.EqualError(t, err, "testcluster: serving certificate: no hosts")
}
