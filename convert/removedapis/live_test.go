package removedapis_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"os"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"

	"github.com/backupkit/backupkit/convert/removedapis"
	"github.com/backupkit/backupkit/internal/testcluster"
)

var env testcluster.Env

// TestMain starts a real kube-apiserver 1.36 and etcd. Without the binaries the live test
// skips (fails under CI).
func TestMain(m *testing.M) { os.Exit(env.Main(m, nil)) }

// csrRequest returns the base64 of a PEM certificate request with the given subject.
func csrRequest(t *testing.T, org, cn string) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{Organization: []string{org}, CommonName: cn}}, key)
	require.NoError(t, err)
	return base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der}))
}

// liveObjects are objects at removed versions, as an old cluster served them, one or more
// of every kind Register converts: the table cases plus one of each kind with the same
// fields in both versions. Cluster-scoped names start with removedapis-.
func liveObjects(t *testing.T) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, tc := range conversionCases {
		switch tc.name {
		case "csr v1beta1: no signerName, unparsable request: legacy-unknown, default usages",
			"csr v1beta1: signerName and usages kept":
			continue // the request does not parse; see the kubelet request below
		case "priority level v1beta3: a meant 0 stays 0":
			continue // refused: see TestLiveRefused
		}
		out = append(out, obj(t, tc.in))
	}
	extra := []string{
		fmt.Sprintf(`{"apiVersion":"certificates.k8s.io/v1beta1","kind":"CertificateSigningRequest","metadata":{"name":"removedapis-kubelet"},
			"spec":{"request":%q,"usages":["digital signature","key encipherment","client auth"]}}`, csrRequest(t, "system:nodes", "system:node:n1")),
		fmt.Sprintf(`{"apiVersion":"certificates.k8s.io/v1beta1","kind":"CertificateSigningRequest","metadata":{"name":"removedapis-custom"},
			"spec":{"request":%q,"signerName":"example.com/signer","usages":["client auth"]}}`, csrRequest(t, "example", "someone")),
		`{"apiVersion":"networking.k8s.io/v1beta1","kind":"IngressClass","metadata":{"name":"removedapis-nginx"},"spec":{"controller":"example.com/ingress-controller"}}`,
		`{"apiVersion":"scheduling.k8s.io/v1beta1","kind":"PriorityClass","metadata":{"name":"removedapis-high"},"value":1000,"description":"high","preemptionPolicy":"Never"}`,
		`{"apiVersion":"coordination.k8s.io/v1beta1","kind":"Lease","metadata":{"name":"l"},"spec":{"holderIdentity":"me","leaseDurationSeconds":15}}`,
		`{"apiVersion":"node.k8s.io/v1beta1","kind":"RuntimeClass","metadata":{"name":"removedapis-gvisor"},"handler":"runsc","overhead":{"podFixed":{"cpu":"250m"}},"scheduling":{"nodeSelector":{"sandbox":"gvisor"}}}`,
		`{"apiVersion":"rbac.authorization.k8s.io/v1beta1","kind":"Role","metadata":{"name":"r"},"rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["get","list"]}]}`,
		`{"apiVersion":"rbac.authorization.k8s.io/v1beta1","kind":"RoleBinding","metadata":{"name":"rb"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"r"},"subjects":[{"kind":"ServiceAccount","name":"default","namespace":"default"}]}`,
		`{"apiVersion":"rbac.authorization.k8s.io/v1beta1","kind":"ClusterRole","metadata":{"name":"removedapis-reader"},"rules":[{"apiGroups":["apps"],"resources":["deployments"],"verbs":["get"]},{"nonResourceURLs":["/healthz"],"verbs":["get"]}]}`,
		`{"apiVersion":"storage.k8s.io/v1beta1","kind":"StorageClass","metadata":{"name":"removedapis-fast"},"provisioner":"csi.example.com","parameters":{"type":"ssd"},"reclaimPolicy":"Retain","volumeBindingMode":"WaitForFirstConsumer","allowVolumeExpansion":true}`,
		`{"apiVersion":"storage.k8s.io/v1beta1","kind":"VolumeAttachment","metadata":{"name":"removedapis-va"},"spec":{"attacher":"csi.example.com","nodeName":"n1","source":{"persistentVolumeName":"pv1"}}}`,
		`{"apiVersion":"storage.k8s.io/v1beta1","kind":"CSIDriver","metadata":{"name":"removedapis.csi.example.com"},"spec":{"attachRequired":true,"podInfoOnMount":false,"volumeLifecycleModes":["Persistent"]}}`,
		`{"apiVersion":"storage.k8s.io/v1beta1","kind":"CSINode","metadata":{"name":"removedapis-n1"},"spec":{"drivers":[{"name":"csi.example.com","nodeID":"n1","topologyKeys":["zone"]}]}}`,
		`{"apiVersion":"apiextensions.k8s.io/v1beta1","kind":"CustomResourceDefinition","metadata":{"name":"things.removedapis.example.com"},
			"spec":{"group":"removedapis.example.com","version":"v1alpha1","scope":"Cluster","names":{"plural":"things","singular":"thing","kind":"Thing","listKind":"ThingList"}}}`,
		`{"apiVersion":"flowcontrol.apiserver.k8s.io/v1beta1","kind":"PriorityLevelConfiguration","metadata":{"name":"old"},"spec":{"type":"Limited","limited":{"assuredConcurrencyShares":5,"limitResponse":{"type":"Reject"}}}}`,
		`{"apiVersion":"flowcontrol.apiserver.k8s.io/v1beta1","kind":"FlowSchema","metadata":{"name":"old"},"spec":{"priorityLevelConfiguration":{"name":"old"},"matchingPrecedence":600,
			"rules":[{"subjects":[{"kind":"Group","group":{"name":"ops"}}],"nonResourceRules":[{"verbs":["get"],"nonResourceURLs":["/metrics"]}]}]}}`,
		`{"apiVersion":"flowcontrol.apiserver.k8s.io/v1beta2","kind":"FlowSchema","metadata":{"name":"old2"},"spec":{"priorityLevelConfiguration":{"name":"old"}}}`,
		`{"apiVersion":"flowcontrol.apiserver.k8s.io/v1beta2","kind":"PriorityLevelConfiguration","metadata":{"name":"old2"},"spec":{"type":"Limited","limited":{"assuredConcurrencyShares":0,"limitResponse":{"type":"Reject"}}}}`,
		`{"apiVersion":"events.k8s.io/v1beta1","kind":"Event","metadata":{"name":"web.17a3"},"eventTime":"2021-06-01T10:00:00.000000Z","reportingController":"example.com/controller",
			"reportingInstance":"controller-1","action":"Scaled","reason":"ScalingReplicaSet","regarding":{"kind":"Deployment","namespace":"default","name":"web","apiVersion":"apps/v1"},
			"note":"Scaled up replica set web-5d8f9 to 3","type":"Normal"}`,
		`{"apiVersion":"storage.k8s.io/v1beta1","kind":"CSIStorageCapacity","metadata":{"name":"cap"},"storageClassName":"removedapis-fast","capacity":"10Gi","nodeTopology":{"matchLabels":{"zone":"z1"}}}`,
	}
	for _, s := range extra {
		out = append(out, obj(t, s))
	}
	for i, o := range out {
		if o.GetKind() == "CustomResourceDefinition" {
			continue // named <plural>.<group>, unique already
		}
		o.SetName(fmt.Sprintf("removedapis-%d-%s", i, o.GetName()))
	}
	return out
}

// TestLiveCreateConverted converts every live object to the version Kubernetes 1.36 serves,
// creates it, and reads it back: the server accepts it (validation and defaulting included)
// and holds every field sent.
func TestLiveCreateConverted(t *testing.T) {
	c := env.Cluster(t)
	ns := c.Namespace(t)
	cfg := c.RESTConfig()
	dyn, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	disc, err := discovery.NewDiscoveryClientForConfig(cfg)
	require.NoError(t, err)
	r, err := removedapis.Registry()
	require.NoError(t, err)

	covered := map[string]bool{}
	for _, in := range liveObjects(t) {
		gvk := in.GroupVersionKind()
		covered[gvk.Group+"/"+gvk.Kind+"/"+gvk.Version] = true
		t.Run(gvk.Kind+"/"+gvk.Version+"/"+in.GetName(), func(t *testing.T) {
			hub, _, ok := r.Versions(gvk.GroupKind())
			require.True(t, ok)
			out, err := r.Convert(t.Context(), in, hub)
			require.NoError(t, err)
			gv := schema.GroupVersion{Group: gvk.Group, Version: hub}
			list, err := disc.ServerResourcesForGroupVersion(gv.String())
			require.NoError(t, err)
			var res *metav1.APIResource
			for i := range list.APIResources {
				if list.APIResources[i].Kind == gvk.Kind {
					res = &list.APIResources[i]
					break
				}
			}
			require.NotNil(t, res, "%s serves no %s", gv, gvk.Kind)
			client := dyn.Resource(gv.WithResource(res.Name))
			var ri dynamic.ResourceInterface = client
			if res.Namespaced {
				out.SetNamespace(ns)
				ri = client.Namespace(ns)
			}
			created, err := ri.Create(t.Context(), out, metav1.CreateOptions{})
			require.NoError(t, err)
			got, err := ri.Get(t.Context(), created.GetName(), metav1.GetOptions{})
			require.NoError(t, err)
			sent := out.DeepCopy()
			if gvk.Kind == "EndpointSlice" {
				// A v1 API server drops deprecatedTopology on writes through v1; the
				// conversion stashed it, and the stash is compared with the annotations.
				for _, e := range sent.Object["endpoints"].([]any) {
					delete(e.(map[string]any), "deprecatedTopology")
				}
			}
			for k, v := range sent.Object {
				if k == "metadata" || k == "status" || k == "apiVersion" || k == "kind" {
					continue
				}
				requireContains(t, "."+k, v, got.Object[k])
			}
			wantAnnotations := sent.GetAnnotations()
			// The v2 API server drops the annotations of the older versions, as the
			// package documents; spec.behavior holds it now.
			delete(wantAnnotations, "autoscaling.alpha.kubernetes.io/behavior")
			if len(wantAnnotations) == 0 {
				wantAnnotations = nil
			}
			require.Equal(t, wantAnnotations, got.GetAnnotations())
		})
	}
	for _, c := range removedapis.Conversions() {
		require.True(t, covered[c.Group+"/"+c.Kind+"/"+c.Removed], "no live object of %s %s/%s", c.Kind, c.Group, c.Removed)
	}
}

// requireContains fails unless got holds every field of want with its value.
func requireContains(t *testing.T, path string, want, got any) {
	t.Helper()
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		require.True(t, ok, "%s: want an object, have %#v", path, got)
		for k, v := range w {
			requireContains(t, path+"."+k, v, g[k])
		}
	case []any:
		g, ok := got.([]any)
		require.True(t, ok, "%s: want a list, have %#v", path, got)
		require.Len(t, g, len(w), path)
		for i := range w {
			requireContains(t, fmt.Sprintf("%s[%d]", path, i), w[i], g[i])
		}
	default:
		require.True(t, reflect.DeepEqual(want, got), "%s: sent %#v, read back %#v", path, want, got)
	}
}

// TestLiveRefused: what the package documents as converting but not restoring is refused
// by the 1.36 API server as invalid.
func TestLiveRefused(t *testing.T) {
	c := env.Cluster(t)
	dyn, err := dynamic.NewForConfig(c.RESTConfig())
	require.NoError(t, err)
	r, err := removedapis.Registry()
	require.NoError(t, err)
	tests := []struct {
		name     string
		in       string
		resource string
	}{
		{"csr for the legacy-unknown signer", fmt.Sprintf(`{"apiVersion":"certificates.k8s.io/v1beta1","kind":"CertificateSigningRequest","metadata":{"name":"removedapis-legacy"},
			"spec":{"request":%q}}`, csrRequest(t, "example", "someone")), "certificatesigningrequests"},
		{"priority level v1beta3 with the annotation for a meant 0", `{"apiVersion":"flowcontrol.apiserver.k8s.io/v1beta3","kind":"PriorityLevelConfiguration",
			"metadata":{"name":"removedapis-zero","annotations":{"flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares":""}},
			"spec":{"type":"Limited","limited":{"nominalConcurrencyShares":0,"limitResponse":{"type":"Reject"}}}}`, "prioritylevelconfigurations"},
		{"webhook with sideEffects Unknown", `{"apiVersion":"admissionregistration.k8s.io/v1beta1","kind":"ValidatingWebhookConfiguration","metadata":{"name":"removedapis-unknown"},
			"webhooks":[{"name":"check.example.com","clientConfig":{"url":"https://check.example.com/validate"},
			"rules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["pods"]}]}]}`, "validatingwebhookconfigurations"},
		{"event first written through core/v1", `{"apiVersion":"events.k8s.io/v1beta1","kind":"Event","metadata":{"name":"removedapis-core","namespace":"default"},
			"eventTime":null,"reportingController":"","reportingInstance":"","reason":"Pulled","regarding":{"kind":"Pod","namespace":"default","name":"web"},
			"note":"Pulled image","type":"Normal","deprecatedSource":{"component":"kubelet","host":"n1"},"deprecatedCount":3,
			"deprecatedFirstTimestamp":"2021-06-01T10:00:00Z","deprecatedLastTimestamp":"2021-06-01T10:05:00Z"}`, "events"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := obj(t, tc.in)
			out, err := r.Convert(t.Context(), in, "v1")
			require.NoError(t, err)
			gvr := schema.GroupVersionResource{Group: in.GroupVersionKind().Group, Version: "v1", Resource: tc.resource}
			var ri dynamic.ResourceInterface = dyn.Resource(gvr)
			if ns := out.GetNamespace(); ns != "" {
				ri = dyn.Resource(gvr).Namespace(ns)
			}
			_, err = ri.Create(t.Context(), out, metav1.CreateOptions{})
			require.True(t, apierrors.IsInvalid(err), "want Invalid, have %v", err)
		})
	}
}
