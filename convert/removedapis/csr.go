package removedapis

import (
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"slices"
	"strings"

	"github.com/backupkit/backupkit/convert"
)

// CertificateSigningRequest, certificates.k8s.io/v1beta1 to and from v1. The fields are
// the same; v1 requires what v1beta1 defaulted (pkg/apis/certificates/v1beta1/defaults.go),
// so on the way to v1 an object that lacks them gets v1beta1's defaults:
//
//   - spec.usages: [digital signature, key encipherment];
//   - spec.signerName: kubernetes.io/kube-apiserver-client-kubelet for a kubelet's client
//     certificate request, kubernetes.io/kubelet-serving for a kubelet's serving one,
//     kubernetes.io/legacy-unknown otherwise (the request is parsed to tell);
//   - a status condition without status: True.
//
// A v1 API server refuses to create a request for kubernetes.io/legacy-unknown, so such
// requests convert but do not restore. Back from v1 nothing changes.
func csrFuncs() convert.SpokeFuncs {
	return specFuncs(csrToV1, func(map[string]any) error { return nil })
}

const (
	signerLegacyUnknown = "kubernetes.io/legacy-unknown"
	signerKubeletClient = "kubernetes.io/kube-apiserver-client-kubelet"
	signerKubeletServe  = "kubernetes.io/kubelet-serving"
)

func csrToV1(obj map[string]any) error {
	spec, ok, err := mapAt(obj, "spec", "")
	if err != nil {
		return err
	}
	if !ok {
		spec = map[string]any{}
		obj["spec"] = spec
	}
	if _, ok := spec["usages"]; !ok {
		spec["usages"] = []any{"digital signature", "key encipherment"}
	}
	if s, _ := spec["signerName"].(string); s == "" {
		usages, err := sliceAt(spec, "usages", ".spec")
		if err != nil {
			return err
		}
		req, _ := spec["request"].(string)
		spec["signerName"] = defaultSigner(req, usages)
	}
	if status, ok, err := mapAt(obj, "status", ""); err != nil {
		return err
	} else if ok {
		return eachMap(status, "conditions", ".status", func(c map[string]any, _ string) error {
			if s, _ := c["status"].(string); s == "" {
				c["status"] = "True"
			}
			return nil
		})
	}
	return nil
}

// defaultSigner is v1beta1's DefaultSignerNameFromSpec: request is the base64 of a PEM
// certificate request, as spec.request is in JSON.
func defaultSigner(request string, usages []any) string {
	raw, err := base64.StdEncoding.DecodeString(request)
	if err != nil {
		return signerLegacyUnknown
	}
	block, _ := pem.Decode(raw)
	if block == nil || block.Type != "CERTIFICATE REQUEST" {
		return signerLegacyUnknown
	}
	csr, err := x509.ParseCertificateRequest(block.Bytes)
	if err != nil {
		return signerLegacyUnknown
	}
	if !slices.Equal(csr.Subject.Organization, []string{"system:nodes"}) || !strings.HasPrefix(csr.Subject.CommonName, "system:node:") {
		return signerLegacyUnknown
	}
	set := map[string]bool{}
	for _, u := range usages {
		if s, ok := u.(string); ok {
			set[s] = true
		}
	}
	usagesAre := func(want ...string) bool {
		if len(set) != len(want) {
			return false
		}
		for _, w := range want {
			if !set[w] {
				return false
			}
		}
		return true
	}
	noURIsOrEmails := len(csr.EmailAddresses) == 0 && len(csr.URIs) == 0
	switch {
	case noURIsOrEmails && len(csr.DNSNames) == 0 && len(csr.IPAddresses) == 0 &&
		(usagesAre("key encipherment", "digital signature", "client auth") || usagesAre("digital signature", "client auth")):
		return signerKubeletClient
	case noURIsOrEmails && len(csr.DNSNames)+len(csr.IPAddresses) > 0 &&
		(usagesAre("key encipherment", "digital signature", "server auth") || usagesAre("digital signature", "server auth")):
		return signerKubeletServe
	}
	return signerLegacyUnknown
}
