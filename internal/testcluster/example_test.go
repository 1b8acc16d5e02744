package testcluster_test

import (
	"crypto/x509"
	"encoding/pem"
	"fmt"

	"github.com/backupkit/backupkit/internal/testcluster"
)

// A CA signs the serving certificate of a conversion webhook; the CRD carries CertPEM as
// its caBundle, and the API server then trusts the webhook.
func ExampleCA_IssueServing() {
	ca, err := testcluster.NewCA("webhook-ca")
	if err != nil {
		panic(err)
	}
	certPEM, _, err := ca.IssueServing("127.0.0.1", "localhost")
	if err != nil {
		panic(err)
	}
	block, _ := pem.Decode(certPEM)
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		panic(err)
	}
	for _, host := range []string{"127.0.0.1", "localhost", "example.com"} {
		_, err := cert.Verify(x509.VerifyOptions{DNSName: host, Roots: ca.Pool()})
		fmt.Printf("%s trusted: %v\n", host, err == nil)
	}
	// Output:
	// 127.0.0.1 trusted: true
	// localhost trusted: true
	// example.com trusted: false
}
