package externaljob

import (
	"bytes"
	_ "embed"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/yaml"
)

// crdYAML is the CustomResourceDefinition controller-gen writes from the kubebuilder
// markers of packages v1, v2 and v3 (go generate; see the package doc).
//
//go:embed crd/batch.backupkit.io_externaljobs.yaml
var crdYAML []byte

// CRD returns ExternalJob's CustomResourceDefinition as controller-gen generated it: every
// version served with its own schema, the status subresource and printer columns, v3
// stored, and no conversion strategy: convert.Registry.WithWebhookConversion adds the
// webhook. Each call returns a new object.
func CRD() (*unstructured.Unstructured, error) {
	crd := &unstructured.Unstructured{}
	if err := yaml.NewYAMLOrJSONDecoder(bytes.NewReader(crdYAML), 4096).Decode(&crd.Object); err != nil {
		return nil, fmt.Errorf("externaljob: decoding the generated CRD: %w", err)
	}
	return crd, nil
}
