package references

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/backupkit/backupkit/internal/kinds"
)

func TestNeedsBody(t *testing.T) {
	tests := []struct {
		gk   schema.GroupKind
		want bool
	}{
		{schema.GroupKind{Kind: "Pod"}, true},
		{schema.GroupKind{Kind: "Service"}, true},
		{schema.GroupKind{Group: "apps", Kind: "Deployment"}, true},
		{schema.GroupKind{Group: "autoscaling", Kind: "HorizontalPodAutoscaler"}, true},
		{schema.GroupKind{Group: "apiregistration.k8s.io", Kind: "APIService"}, true},
		{schema.GroupKind{Kind: "ConfigMap"}, false},
		{schema.GroupKind{Kind: "Secret"}, false},
		{schema.GroupKind{Group: "example.com", Kind: "Pod"}, false},
		{schema.GroupKind{Group: "discovery.k8s.io", Kind: "EndpointSlice"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.gk.String(), func(t *testing.T) {
			require.Equal(t, tt.want, NeedsBody(tt.gk))
		})
	}
}

func TestReadNil(t *testing.T) {
	require.Empty(t, Read(nil).Refs)
	require.Empty(t, Read(&unstructured.Unstructured{}).Refs)
	require.Empty(t, Read(&unstructured.Unstructured{Object: map[string]any{"apiVersion": 1, "kind": []any{}}}).Refs)
}

func obj(t *testing.T, js string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	require.NoError(t, json.Unmarshal([]byte(js), &u.Object))
	return u
}

// TestRead: what each kind names, for the restore's order and the backup's cluster scope
// alike (the kinds the backup used to read for itself among them: RuntimeClass,
// IngressClass, an APIService's Service, the beta storage-class annotation).
func TestRead(t *testing.T) {
	type ref struct {
		gr       schema.GroupResource
		local    bool
		ns, name string
		ready    bool
	}
	for _, tc := range []struct {
		name string
		obj  string
		want []ref
	}{
		{"pod", `{"apiVersion":"v1","kind":"Pod","spec":{"serviceAccountName":"sa","priorityClassName":"high","runtimeClassName":"gvisor",
			"volumes":[{"persistentVolumeClaim":{"claimName":"data"}},{"configMap":{"name":"cm"}}],"imagePullSecrets":[{"name":"pull"}]}}`,
			[]ref{{kinds.ServiceAccounts, true, "", "sa", false}, {kinds.PriorityClasses, false, "", "high", false}, {kinds.RuntimeClasses, false, "", "gvisor", false},
				{kinds.Secrets, true, "", "pull", false}, {kinds.PersistentVolumeClaims, true, "", "data", false}, {kinds.ConfigMaps, true, "", "cm", false}}},
		{"claim with the beta annotation", `{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"annotations":{"volume.beta.kubernetes.io/storage-class":"fast"}},"spec":{"volumeName":"pv-1"}}`,
			[]ref{{kinds.StorageClasses, false, "", "fast", false}, {kinds.PersistentVolumes, false, "", "pv-1", false}}},
		{"ingress", `{"apiVersion":"networking.k8s.io/v1","kind":"Ingress","spec":{"ingressClassName":"nginx","defaultBackend":{"service":{"name":"web"}},"tls":[{"secretName":"tls"}]}}`,
			[]ref{{kinds.IngressClasses, false, "", "nginx", false}, {kinds.Services, true, "", "web", false}, {kinds.Secrets, true, "", "tls", false}}},
		{"cluster role binding", `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding","roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"admin"},
			"subjects":[{"kind":"ServiceAccount","namespace":"app","name":"runner"},{"kind":"ServiceAccount","name":"no-namespace"},{"kind":"User","name":"alice"}]}`,
			[]ref{{kinds.ClusterRoles, false, "", "admin", false}, {kinds.ServiceAccounts, false, "app", "runner", false}}},
		{"api service", `{"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService","spec":{"service":{"namespace":"metrics","name":"server"}}}`,
			[]ref{{kinds.Services, false, "metrics", "server", true}}},
		{"local api service", `{"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService","spec":{}}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []ref
			for _, r := range Read(obj(t, tc.obj)).Refs {
				got = append(got, ref{r.GroupResource(), r.Local, r.Namespace, r.Name, r.Ready})
			}
			require.Equal(t, tc.want, got)
		})
	}
}

func TestServesPods(t *testing.T) {
	require.True(t, ServesPods(schema.GroupKind{Group: "apps", Kind: "Deployment"}))
	require.True(t, ServesPods(schema.GroupKind{Kind: "Pod"}))
	require.False(t, ServesPods(schema.GroupKind{Group: "batch", Kind: "Job"}))
	require.False(t, ServesPods(schema.GroupKind{Kind: "Service"}))
}

// TestWhyBounded: the rules' names are kept once each, whatever the objects read name:
// reading many objects that differ in every value adds no Why beyond the first's.
func TestWhyBounded(t *testing.T) {
	deployment := func(i int) string {
		return fmt.Sprintf(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d%[1]d"},"spec":{"template":{"metadata":{"labels":{"app":"a%[1]d"}},
			"spec":{"serviceAccountName":"sa%[1]d","volumes":[{"configMap":{"name":"cm%[1]d"}},{"rbd":{"secretRef":{"name":"s%[1]d"}}}],
			"containers":[{"name":"c%[1]d","envFrom":[{"secretRef":{"name":"e%[1]d"}}]}]}}}}`, i)
	}
	first := Read(obj(t, deployment(0)))
	require.Equal(t, []string{"Deployment spec.template.spec.serviceAccountName", "Deployment spec.template.spec.volumes.configMap",
		"Deployment spec.template.spec.volumes.rbd.secretRef", "Deployment spec.template.spec.containers.envFrom.secretRef"}, whysOf(first))
	require.Equal(t, Labels{"app", "a0"}, first.PodLabels)
	whys.RLock()
	n := len(whys.m)
	whys.RUnlock()
	for i := 1; i < 200; i++ {
		r := Read(obj(t, deployment(i)))
		require.Equal(t, whysOf(first), whysOf(r))
		require.Equal(t, fmt.Sprint("sa", i), r.Refs[0].Name)
	}
	whys.RLock()
	defer whys.RUnlock()
	require.Equal(t, n, len(whys.m))
}

func whysOf(r Refs) []string {
	var out []string
	for _, ref := range r.Refs {
		out = append(out, ref.Why)
	}
	return out
}

// richStatefulSet names something by every rule of a pod spec, and its claim templates.
const richStatefulSet = `{"apiVersion":"apps/v1","kind":"StatefulSet","spec":{"volumeClaimTemplates":[{"spec":{"storageClassName":"fast"}},{"metadata":{"annotations":{"volume.beta.kubernetes.io/storage-class":"slow"}}}],
"template":{"metadata":{"labels":{"app":"web","tier":"front"}},"spec":{"serviceAccount":"old","priorityClassName":"high","runtimeClassName":"gvisor","imagePullSecrets":[{"name":"pull"}],
"volumes":[{"configMap":{"name":"cm"}},{"secret":{"secretName":"s"}},{"persistentVolumeClaim":{"claimName":"data"}},{"csi":{"nodePublishSecretRef":{"name":"csi"}}},{"azureFile":{"secretName":"az"}},
{"cephfs":{"secretRef":{"name":"ceph"}}},{"cinder":{"secretRef":{"name":"cin"}}},{"flexVolume":{"secretRef":{"name":"flex"}}},{"iscsi":{"secretRef":{"name":"isc"}}},{"rbd":{"secretRef":{"name":"rbd"}}},{"scaleIO":{"secretRef":{"name":"sio"}}},
{"projected":{"sources":[{"configMap":{"name":"pcm"}},{"secret":{"name":"psec"}}]}}],
"containers":[{"env":[{"valueFrom":{"configMapKeyRef":{"name":"ecm"}}},{"valueFrom":{"secretKeyRef":{"name":"esec"}}}],"envFrom":[{"configMapRef":{"name":"fcm"}},{"secretRef":{"name":"fsec"}}]}],
"initContainers":[{"env":[{"valueFrom":{"configMapKeyRef":{"name":"icm"}}}]}],
"ephemeralContainers":[{"envFrom":[{"secretRef":{"name":"xsec"}}]}]}}}}`

// TestReadWhy: each reference names its rule, the referrer's kind, the path of its pod
// spec and the field.
func TestReadWhy(t *testing.T) {
	require.Equal(t, []string{
		"StatefulSet spec.template.spec.serviceAccount",
		"StatefulSet spec.template.spec.priorityClassName",
		"StatefulSet spec.template.spec.runtimeClassName",
		"StatefulSet spec.template.spec.imagePullSecrets",
		"StatefulSet spec.template.spec.volumes.configMap",
		"StatefulSet spec.template.spec.volumes.secret",
		"StatefulSet spec.template.spec.volumes.persistentVolumeClaim",
		"StatefulSet spec.template.spec.volumes.csi.nodePublishSecretRef",
		"StatefulSet spec.template.spec.volumes.azureFile.secretName",
		"StatefulSet spec.template.spec.volumes.cephfs.secretRef",
		"StatefulSet spec.template.spec.volumes.cinder.secretRef",
		"StatefulSet spec.template.spec.volumes.flexVolume.secretRef",
		"StatefulSet spec.template.spec.volumes.iscsi.secretRef",
		"StatefulSet spec.template.spec.volumes.rbd.secretRef",
		"StatefulSet spec.template.spec.volumes.scaleIO.secretRef",
		"StatefulSet spec.template.spec.volumes.projected.sources.configMap",
		"StatefulSet spec.template.spec.volumes.projected.sources.secret",
		"StatefulSet spec.template.spec.containers.env.valueFrom.configMapKeyRef",
		"StatefulSet spec.template.spec.containers.env.valueFrom.secretKeyRef",
		"StatefulSet spec.template.spec.containers.envFrom.configMapRef",
		"StatefulSet spec.template.spec.containers.envFrom.secretRef",
		"StatefulSet spec.template.spec.initContainers.env.valueFrom.configMapKeyRef",
		"StatefulSet spec.template.spec.ephemeralContainers.envFrom.secretRef",
		"StatefulSet spec.volumeClaimTemplates.spec.storageClassName",
		"StatefulSet spec.volumeClaimTemplates.metadata.annotations[volume.beta.kubernetes.io/storage-class]",
	}, whysOf(Read(obj(t, richStatefulSet))))
}

// TestReadConcurrent: Read is safe to call from many goroutines at once (the backup reads
// objects of several listings in parallel); -race checks the shared Why strings.
func TestReadConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				kind := []string{"Pod", "ReplicationController"}[(g+i)%2]
				u := obj(t, fmt.Sprintf(`{"apiVersion":"v1","kind":%q,"spec":{"template":{"spec":{"runtimeClassName":"r%d"}},"runtimeClassName":"r%d"}}`, kind, i, i))
				r := Read(u)
				if len(r.Refs) != 2 || r.Refs[1].Why != kind+map[string]string{"Pod": " spec", "ReplicationController": " spec.template.spec"}[kind]+".runtimeClassName" {
					t.Errorf("%s: %+v", kind, r.Refs)
				}
			}
		}()
	}
	wg.Wait()
}
