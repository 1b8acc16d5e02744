package testcluster

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"time"
)

// certLifetime is how long the certificates this package makes are valid: far longer than
// any test run, short enough that a leaked one is worthless.
const certLifetime = 24 * time.Hour

// CA is a throwaway certificate authority for loopback TLS: the API server's serving
// certificate, and the conversion webhooks tests serve to the API server (whose CRD carries
// [CA.CertPEM] as its caBundle). Its key lives only in memory.
//
// The zero value is not usable; make one with [NewCA]. A CA is safe for concurrent use.
type CA struct {
	cert    *x509.Certificate
	key     *ecdsa.PrivateKey
	certPEM []byte
}

// NewCA makes a self-signed ECDSA P-256 certificate authority named commonName.
func NewCA(commonName string) (*CA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("testcluster: CA %q: generate key: %w", commonName, err)
	}
	serial, err := randomSerial()
	if err != nil {
		return nil, fmt.Errorf("testcluster: CA %q: %w", commonName, err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: commonName},
		NotBefore:             now.Add(-time.Minute),
		NotAfter:              now.Add(certLifetime),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("testcluster: CA %q: sign: %w", commonName, err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("testcluster: CA %q: parse: %w", commonName, err)
	}
	return &CA{cert: cert, key: key, certPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}, nil
}

// CertPEM returns the CA certificate, PEM-encoded: a caBundle, or a rest.Config's CAData.
// The caller may modify the returned slice.
func (ca *CA) CertPEM() []byte {
	return append([]byte(nil), ca.certPEM...)
}

// Pool returns a new certificate pool holding only this CA.
func (ca *CA) Pool() *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AddCert(ca.cert)
	return pool
}

// IssueServing signs a serving certificate (server and client auth) for hosts: IP
// addresses ("127.0.0.1") go into the IP SANs, anything else into the DNS SANs. It returns
// the certificate and its ECDSA private key, PEM-encoded, ready for tls.X509KeyPair or a
// --tls-cert-file. At least one host is required.
func (ca *CA) IssueServing(hosts ...string) (certPEM, keyPEM []byte, err error) {
	if len(hosts) == 0 {
		return nil, nil, errors.New("testcluster: serving certificate: no hosts")
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("testcluster: serving certificate for %v: generate key: %w", hosts, err)
	}
	serial, err := randomSerial()
	if err != nil {
		return nil, nil, fmt.Errorf("testcluster: serving certificate for %v: %w", hosts, err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: hosts[0]},
		NotBefore:    now.Add(-time.Minute),
		NotAfter:     now.Add(certLifetime),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		return nil, nil, fmt.Errorf("testcluster: serving certificate for %v: sign: %w", hosts, err)
	}
	keyPEM, err = encodeECKey(key)
	if err != nil {
		return nil, nil, fmt.Errorf("testcluster: serving certificate for %v: %w", hosts, err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), keyPEM, nil
}

// newServiceAccountKey makes the key pair kube-apiserver signs and verifies service account
// tokens with (--service-account-signing-key-file, --service-account-key-file).
func newServiceAccountKey() (privPEM, pubPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("testcluster: service account key: %w", err)
	}
	privPEM, err = encodeECKey(key)
	if err != nil {
		return nil, nil, fmt.Errorf("testcluster: service account key: %w", err)
	}
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return nil, nil, fmt.Errorf("testcluster: service account public key: %w", err)
	}
	return privPEM, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}), nil
}

func encodeECKey(key *ecdsa.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("encode key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), nil
}

func randomSerial() (*big.Int, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, fmt.Errorf("serial number: %w", err)
	}
	return serial, nil
}
