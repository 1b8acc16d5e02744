package originalversion_test

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/backupkit/backupkit/convert"
	"github.com/backupkit/backupkit/examples/externaljob"
	"github.com/backupkit/backupkit/internal/testcluster"
)

var env testcluster.Env

// webhookURL is where the API server sends ExternalJob conversions.
var webhookURL string

func TestMain(m *testing.M) {
	var webhook *httptest.Server
	code := env.Main(m, func(ctx context.Context, c *testcluster.Cluster) error {
		var err error
		ca, err := testcluster.NewCA("backupkit-originalversion-webhook-ca")
		if err != nil {
			return err
		}
		webhook, err = startWebhook(ca)
		if err != nil {
			return err
		}
		webhookURL = webhook.URL + "/convert"
		reg, err := externaljob.Registry()
		if err != nil {
			return err
		}
		crd, err := externaljob.CRD()
		if err != nil {
			return err
		}
		crd, err = reg.WithWebhookConversion(crd, convert.WebhookConversion{URL: webhookURL, CABundle: ca.CertPEM()})
		if err != nil {
			return err
		}
		return c.InstallCRDs(ctx, crd)
	})
	if webhook != nil {
		webhook.Close()
	}
	os.Exit(code)
}

// startWebhook serves convert.NewWebhookHandler(externaljob.Registry()), which records
// original versions, over TLS on 127.0.0.1 at /convert.
func startWebhook(ca *testcluster.CA) (*httptest.Server, error) {
	certPEM, keyPEM, err := ca.IssueServing("127.0.0.1")
	if err != nil {
		return nil, err
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("webhook certificate: %w", err)
	}
	reg, err := externaljob.Registry()
	if err != nil {
		return nil, err
	}
	srv := httptest.NewUnstartedServer(convert.NewWebhookHandler(reg))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}
	srv.StartTLS()
	return srv, nil
}
