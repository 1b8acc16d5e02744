package restorejobs

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/sirupsen/logrus"
	velerov1api "github.com/vmware-tanzu/velero/pkg/apis/velero/v1"
	"github.com/vmware-tanzu/velero/pkg/builder"
	veleroclient "github.com/vmware-tanzu/velero/pkg/client"
	serverconfig "github.com/vmware-tanzu/velero/pkg/cmd/server/config"
	velerodiscovery "github.com/vmware-tanzu/velero/pkg/discovery"
	vsv1 "github.com/vmware-tanzu/velero/pkg/plugin/velero/volumesnapshotter/v1"
	"github.com/vmware-tanzu/velero/pkg/restore"
	"github.com/vmware-tanzu/velero/pkg/util/kube"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	crfake "sigs.k8s.io/controller-runtime/pkg/client/fake"
)

// Velero's server defaults (pkg/cmd/server/config, v1.18.3): client QPS 100, burst 100.
const (
	VeleroDefaultQPS   = 100
	VeleroDefaultBurst = 100
)

// noSnapshotters is the volume snapshotter getter of a Velero without plugins: there are
// none. The workloads hold no PersistentVolumes, so it is never asked.
type noSnapshotters struct{}

func (noSnapshotters) GetVolumeSnapshotter(name string) (vsv1.VolumeSnapshotter, error) {
	return nil, fmt.Errorf("restorejobs: no volume snapshotter %q: Velero runs without plugins", name)
}

// Velero restores the backup at path into the cluster of cfg with Velero v1.18.3's restore
// engine (pkg/restore.kubernetesRestorer), in this process, the way the Velero server's
// restore controller calls it: a real discovery helper and dynamic factory on a client at
// qps/burst, the server's default resource priorities and timeouts, the informer cache on
// (the default), no restore item actions (no plugins), and no pod volume restorer, hooks or
// credentials (nothing in the workloads uses them). Velero's own Restore object, whose
// status it patches, lives in a fake controller-runtime client, so those patches cost no
// API server requests. Logs go, formatted at Velero's default level (info), to io.Discard.
// It returns the number of items Velero reports restored (Namespaces included); any
// error or warning Velero reports is an error.
func Velero(cfg *rest.Config, path string, qps float32, burst int) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = qps, burst

	log := logrus.New()
	log.Out = io.Discard
	log.Level = logrus.InfoLevel

	kubeClient, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return 0, err
	}
	dynClient, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return 0, err
	}
	discClient, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return 0, err
	}
	helper, err := velerodiscovery.NewHelper(discClient, log)
	if err != nil {
		return 0, fmt.Errorf("velero discovery helper: %w", err)
	}

	rst := builder.ForRestore(velerov1api.DefaultNamespace, "restore-1").Backup("backup-1").Result()
	bkp := builder.ForBackup(velerov1api.DefaultNamespace, "backup-1").Result()
	bkp.Status.FormatVersion = "1.1.0"
	scheme := runtime.NewScheme()
	if err := velerov1api.AddToScheme(scheme); err != nil {
		return 0, err
	}
	kbClient := crfake.NewClientBuilder().WithScheme(scheme).WithRuntimeObjects(rst, bkp).Build()

	defaults := serverconfig.GetDefaultConfig()
	restorer, err := restore.NewKubernetesRestorer(
		helper,
		veleroclient.NewDynamicFactory(dynClient),
		defaults.RestoreResourcePriorities,
		kubeClient.CoreV1().Namespaces(),
		nil, // no pod volume restorer: no pod volume backups
		defaults.PodVolumeOperationTimeout,
		defaults.ResourceTerminatingTimeout,
		defaults.ResourceTimeout,
		log,
		nil, // no pod command executor: no hooks
		nil, // no pod getter: no hooks
		nil, // no credential store
		kbClient,
		nil, // no multi-hook tracker: no hooks
	)
	if err != nil {
		return 0, err
	}
	req := &restore.Request{
		Log:                           log,
		Restore:                       rst,
		Backup:                        bkp,
		BackupReader:                  f,
		ResourceDeletionStatusTracker: kube.NewResourceDeletionStatusTracker(),
	}
	warnings, errs := restorer.Restore(req, nil, noSnapshotters{})
	var problems []string
	for _, r := range []struct {
		what string
		res  map[string][]string
	}{{"error", errs.Namespaces}, {"warning", warnings.Namespaces}} {
		for ns, msgs := range r.res {
			for _, m := range msgs {
				problems = append(problems, fmt.Sprintf("%s in %s: %s", r.what, ns, m))
			}
		}
	}
	for _, m := range append(errs.Velero, errs.Cluster...) {
		problems = append(problems, "error: "+m)
	}
	for _, m := range append(warnings.Velero, warnings.Cluster...) {
		problems = append(problems, "warning: "+m)
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		if len(problems) > 10 {
			problems = append(problems[:10], fmt.Sprintf("and %d more", len(problems)-10))
		}
		return len(req.RestoredItems), errors.New("velero restore: " + strings.Join(problems, "; "))
	}
	return len(req.RestoredItems), nil
}
