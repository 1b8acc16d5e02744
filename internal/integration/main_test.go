package integration_test

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"

	"github.com/backupkit/backupkit/internal/testcluster"
)

var (
	env testcluster.Env
	// webhookCalls counts the ConversionReviews the API server sent to the gadget webhook.
	webhookCalls atomic.Int64
)

func TestMain(m *testing.M) {
	var webhook *httptest.Server
	code := env.Main(m, func(ctx context.Context, c *testcluster.Cluster) error {
		var err error
		webhook, err = startConversionWebhook()
		if err != nil {
			return err
		}
		crds := []*unstructured.Unstructured{gadgetCRD(webhook.URL+"/convert", webhookCA.CertPEM())}
		for _, s := range []string{thingCRD, gizmoCRD, widgetCRD} {
			crd, err := decodeObject(s)
			if err != nil {
				return err
			}
			crds = append(crds, crd)
		}
		return c.InstallCRDs(ctx, crds...)
	})
	if webhook != nil {
		webhook.Close()
	}
	os.Exit(code)
}

// webhookCA signs the conversion webhook's serving certificate; the gadget CRD trusts it.
var webhookCA = func() *testcluster.CA {
	ca, err := testcluster.NewCA("backupkit-integration-webhook-ca")
	if err != nil {
		panic(err) // crypto/rand failing: nothing can run
	}
	return ca
}()

// startConversionWebhook serves convert.NewWebhookHandler over TLS on 127.0.0.1 at
// /convert, with a certificate of webhookCA.
func startConversionWebhook() (*httptest.Server, error) {
	certPEM, keyPEM, err := webhookCA.IssueServing("127.0.0.1")
	if err != nil {
		return nil, err
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("webhook certificate: %w", err)
	}
	handler := newGadgetWebhook()
	mux := http.NewServeMux()
	mux.HandleFunc("/convert", func(w http.ResponseWriter, r *http.Request) {
		webhookCalls.Add(1)
		handler.ServeHTTP(w, r)
	})
	srv := httptest.NewUnstartedServer(mux)
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}
	srv.StartTLS()
	return srv, nil
}

func decodeObject(s string) (*unstructured.Unstructured, error) {
	var obj map[string]any
	if err := json.Unmarshal([]byte(s), &obj); err != nil {
		return nil, fmt.Errorf("decode fixture: %w", err)
	}
	return &unstructured.Unstructured{Object: obj}, nil
}

// clients returns the admin dynamic client and a fresh (uncached) discovery client.
func clients(t *testing.T, c *testcluster.Cluster) (dynamic.Interface, *discovery.DiscoveryClient) {
	t.Helper()
	dyn, err := dynamic.NewForConfig(c.RESTConfig())
	require.NoError(t, err)
	dc, err := discovery.NewDiscoveryClientForConfig(c.RESTConfig())
	require.NoError(t, err)
	return dyn, dc
}
