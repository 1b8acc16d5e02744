package versionselect

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
)

// Where Velero keeps users' version priorities: the key of its enableapigroupversions
// ConfigMap, in Velero's namespace.
const (
	PrioritiesKey              = "restoreResourcesVersionPriority"
	DefaultPrioritiesNamespace = "velero"
	DefaultPrioritiesConfigMap = "enableapigroupversions"
)

// ErrNoPrioritiesKey is wrapped when a ConfigMap has no [PrioritiesKey].
var ErrNoPrioritiesKey = errors.New("versionselect: no " + PrioritiesKey + " key")

// PrioritiesFromConfigMap parses the [PrioritiesKey] value of Velero's enableapigroupversions
// ConfigMap with [ParsePriorities], which opts are passed to. A nil ConfigMap, or one
// without the key, is an error naming the ConfigMap (the latter wraps
// [ErrNoPrioritiesKey]); line errors are wrapped in one naming it, so errors.As still finds
// each *LineError, and the valid lines are returned with them.
func PrioritiesFromConfigMap(cm *corev1.ConfigMap, opts ...ParseOption) (Priorities, error) {
	if cm == nil {
		return nil, errors.New("versionselect: nil ConfigMap")
	}
	text, ok := cm.Data[PrioritiesKey]
	if !ok {
		return nil, fmt.Errorf("ConfigMap %s: %w", cmName(cm), ErrNoPrioritiesKey)
	}
	p, err := ParsePriorities(text, opts...)
	if err != nil {
		return p, fmt.Errorf("ConfigMap %s: %w", cmName(cm), err)
	}
	return p, nil
}

func cmName(cm *corev1.ConfigMap) string {
	if cm.Namespace == "" {
		return cm.Name
	}
	return cm.Namespace + "/" + cm.Name
}

// ReadPriorities reads priorities from what a user keeps in a file: the ConfigMap as YAML
// or JSON (a document with apiVersion v1 and kind ConfigMap, as `kubectl get -o yaml`
// writes it), or the bare [PrioritiesKey] text. A document of another apiVersion or kind is
// an error naming them, as is one that starts like a manifest but does not decode; anything
// else (text that is not a mapping, or a mapping with neither apiVersion nor kind) is taken
// as the bare text. opts are passed to ParsePriorities.
func ReadPriorities(data []byte, opts ...ParseOption) (Priorities, error) {
	doc, err := firstDocument(data)
	if err != nil || doc == nil || (doc["apiVersion"] == nil && doc["kind"] == nil) {
		if err != nil && looksLikeDocument(data) {
			return nil, fmt.Errorf("versionselect: reading priorities ConfigMap: %w", err)
		}
		return ParsePriorities(string(data), opts...)
	}
	if doc["apiVersion"] != "v1" || doc["kind"] != "ConfigMap" {
		return nil, fmt.Errorf("versionselect: priorities: want a v1 ConfigMap, got apiVersion %q kind %q",
			fmt.Sprint(doc["apiVersion"]), fmt.Sprint(doc["kind"]))
	}
	var cm corev1.ConfigMap
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(doc, &cm); err != nil {
		return nil, fmt.Errorf("versionselect: reading priorities ConfigMap: %w", err)
	}
	return PrioritiesFromConfigMap(&cm, opts...)
}

// firstDocument decodes the first non-empty YAML or JSON document of data as a mapping;
// nil when there is none.
func firstDocument(data []byte) (map[string]any, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		var doc map[string]any
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		if err != nil || doc != nil {
			return doc, err
		}
	}
}

// looksLikeDocument reports whether data starts, after blank lines and comments, like a
// JSON object or a YAML mapping of a manifest ("apiVersion:" or "kind:").
func looksLikeDocument(data []byte) bool {
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == '#' || bytes.Equal(line, []byte("---")) {
			continue
		}
		return line[0] == '{' || bytes.HasPrefix(line, []byte("apiVersion:")) || bytes.HasPrefix(line, []byte("kind:"))
	}
	return false
}

// PrioritiesFromCluster reads the priorities ConfigMap from a cluster: namespace and name
// default to Velero's ([DefaultPrioritiesNamespace], [DefaultPrioritiesConfigMap]) when
// empty. A ConfigMap that does not exist means no priorities: (nil, nil). Other errors
// name the ConfigMap. opts are passed to ParsePriorities.
func PrioritiesFromCluster(ctx context.Context, client corev1client.ConfigMapsGetter, namespace, name string, opts ...ParseOption) (Priorities, error) {
	if namespace == "" {
		namespace = DefaultPrioritiesNamespace
	}
	if name == "" {
		name = DefaultPrioritiesConfigMap
	}
	cm, err := client.ConfigMaps(namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("versionselect: reading ConfigMap %s/%s: %w", namespace, name, err)
	}
	return PrioritiesFromConfigMap(cm, opts...)
}
