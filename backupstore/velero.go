package backupstore

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// VeleroPhase is the phase a Velero Backup object records (status.phase). A Velero server
// syncs from its bucket only the backups of the three phases below.
type VeleroPhase string

const (
	// PhaseCompleted: everything selected was backed up.
	PhaseCompleted VeleroPhase = "Completed"
	// PhasePartiallyFailed: the backup ran to its end, but some of what was selected is not
	// in it; Velero restores such a backup.
	PhasePartiallyFailed VeleroPhase = "PartiallyFailed"
	// PhaseFailed: the backup did not run to its end; Velero lists it but refuses to
	// restore it.
	PhaseFailed VeleroPhase = "Failed"
)

// DefaultVeleroTTL is how long a backup is kept when VeleroBackup.TTL is not positive:
// Velero v1.18.3's server default (--default-backup-ttl).
const DefaultVeleroTTL = 30 * 24 * time.Hour

// VeleroBackup is what a Velero server (v1.18.3) reads of a backup besides its tarball, for
// WithVeleroBackup: the Backup object velero-backup.json describes (the spec as the backup
// was asked for, its status as it ended) and the lists written beside it. Every field's
// zero value is stated; a field not named here is left out of the object, as Velero leaves
// it out when it is not set.
//
// # Velero's files, and which are written
//
// Velero v1.18.3 (pkg/persistence) keeps these under backups/<name>/; what it does when
// one is absent decides whether it must be written:
//
//   - velero-backup.json, the Backup object: must be there. Velero's sync skips a
//     backup directory without it (BackupExists), and decodes it with its own scheme
//     (GetBackupMetadata). Written, last.
//   - <name>.tar.gz, the contents: must be there (GetBackupContents, for the restore).
//     The BackupWriter's upload.
//   - <name>-resource-list.json.gz: may be absent; only `velero backup describe
//     --details` reads it, and prints an error in its place. Written (ResourceList).
//   - <name>-results.gz: may be absent; describe reads it only when the Backup counts
//     errors or warnings, and prints the counts alone without it. Written (Errors,
//     Warnings).
//   - <name>-podvolumebackups.json.gz, -volumesnapshots.json.gz, -itemoperations.json.gz,
//     -csi-volumesnapshotclasses.json.gz, -volumeinfo.json.gz: may be absent (each is
//     then read as an empty list: the sync reads the first, the restore the second and
//     the last). Written, each an empty list ([]), as Velero writes them for a backup
//     without volumes or plugin operations (null or [], which it reads alike).
//   - <name>-csi-volumesnapshots.json.gz, -csi-volumesnapshotcontents.json.gz: may be
//     absent (empty lists); Velero v1.18.3 does not write them either. Not written.
//   - <name>-logs.gz: may be absent; `velero backup logs` fails without it. Not written:
//     this package keeps no log.
type VeleroBackup struct {
	// Namespace is the namespace of the Backup object: Velero's server namespace. A server
	// that syncs the backup puts it in its own namespace whatever this says. Empty:
	// "velero".
	Namespace string
	// Labels are the Backup object's labels. Velero's label velero.io/storage-location is
	// set from StorageLocation.
	Labels map[string]string

	// The spec: what the backup was asked to hold, in Velero's words
	// (spec.includedNamespaces, spec.excludedNamespaces, ...). Nil or empty leaves each out.
	IncludedNamespaces, ExcludedNamespaces []string
	IncludedResources, ExcludedResources   []string
	LabelSelector                          *metav1.LabelSelector
	OrLabelSelectors                       []*metav1.LabelSelector
	// IncludeClusterResources is spec.includeClusterResources; nil leaves it unset (Velero's
	// "auto").
	IncludeClusterResources *bool
	// StorageLocation is the name of the BackupStorageLocation the backup is in. A server
	// that syncs the backup names its own location whatever this says. Empty: "default".
	StorageLocation string
	// TTL is how long the backup is kept: its expiration (status.expiration) is Started
	// plus TTL, and once it has passed, Velero's garbage collection deletes the backup,
	// its objects in the bucket included. Not positive: DefaultVeleroTTL.
	TTL time.Duration

	// Phase is how the backup ended. Empty: PhaseCompleted.
	Phase VeleroPhase
	// FailureReason says why a failed backup failed (status.failureReason). Empty: none.
	FailureReason string
	// Started and Completed are when the backup began and ended (status.startTimestamp,
	// status.completionTimestamp; the object's creationTimestamp is Started). A zero time
	// leaves its field out (and Started zero leaves out the expiration).
	Started, Completed time.Time
	// ItemsBackedUp and TotalItems are status.progress's counts: the objects backed up
	// (each once, whatever its number of versions) and those the backup meant to back up.
	// TotalItems below ItemsBackedUp is taken as ItemsBackedUp.
	ItemsBackedUp, TotalItems int
	// Errors and Warnings are what went wrong, one line each: counted in status.errors and
	// status.warnings and listed in the backup's results (<name>-results.gz), which
	// `velero backup describe` prints.
	Errors, Warnings []string
	// ResourceList is what the backup holds, as Velero lists it (<name>-resource-list.json.gz,
	// which `velero backup describe --details` prints): per "<apiVersion>/<Kind>" of the
	// version the objects were backed up at ("v1/ConfigMap", "apps/v1/Deployment"),
	// "<namespace>/<name>" or, cluster-scoped, "<name>", sorted as written. Nil: an empty
	// list.
	ResourceList map[string][]string
}

// The names of what Velero keeps beside a backup's tarball (Velero v1.18.3,
// pkg/persistence's ObjectStoreLayout), each under backups/<name>/.
const (
	veleroMetadataFile = "velero-backup.json"
)

// veleroLists are the suffixes of the lists written empty beside the tarball (see
// VeleroBackup), with the pkg/persistence reader of each.
var veleroLists = []string{
	"-podvolumebackups.json.gz",          // GetPodVolumeBackups: synced with the backup
	"-volumesnapshots.json.gz",           // GetBackupVolumeSnapshots: read by the restore
	"-itemoperations.json.gz",            // GetBackupItemOperations
	"-csi-volumesnapshotclasses.json.gz", // GetCSIVolumeSnapshotClasses
	"-volumeinfo.json.gz",                // GetBackupVolumeInfos: read by the restore
}

const (
	veleroResourceList = "-resource-list.json.gz"
	veleroResults      = "-results.gz"
)

// MetadataKey is the key of backup name's Velero metadata, the Backup object a Velero
// server lists it by (WithVeleroBackup): [<prefix>/]backups/<name>/velero-backup.json.
func (s *Store) MetadataKey(name string) string {
	return path.Join(s.backupsDir(), name, veleroMetadataFile)
}

// veleroKeys are the keys of every object WithVeleroBackup writes for backup name, the
// metadata last.
func (s *Store) veleroKeys(name string) []string {
	dir := path.Join(s.backupsDir(), name)
	var keys []string
	for _, suffix := range append(append([]string(nil), veleroLists...), veleroResourceList, veleroResults) {
		keys = append(keys, path.Join(dir, name+suffix))
	}
	return append(keys, s.MetadataKey(name))
}

// veleroObject is one object to write beside the tarball.
type veleroObject struct {
	key, contentType string
	data             []byte
}

// The Backup object, as Velero's API types serialize it (velero.io/v1 Backup): only the
// fields this package sets.
type veleroBackupObject struct {
	APIVersion string           `json:"apiVersion"`
	Kind       string           `json:"kind"`
	Metadata   veleroMeta       `json:"metadata"`
	Spec       veleroBackupSpec `json:"spec"`
	Status     veleroStatus     `json:"status"`
}

// veleroMeta is the Backup object's metadata: a struct of its own rather than
// metav1.ObjectMeta, whose zero creationTimestamp apimachinery v0.33 (the floor) writes as
// null and v0.37 leaves out, so that the object is the same bytes whatever version a fork
// builds with.
type veleroMeta struct {
	Name              string            `json:"name"`
	Namespace         string            `json:"namespace"`
	Labels            map[string]string `json:"labels,omitempty"`
	CreationTimestamp *metav1.Time      `json:"creationTimestamp,omitempty"`
}

type veleroBackupSpec struct {
	IncludedNamespaces      []string                `json:"includedNamespaces,omitempty"`
	ExcludedNamespaces      []string                `json:"excludedNamespaces,omitempty"`
	IncludedResources       []string                `json:"includedResources,omitempty"`
	ExcludedResources       []string                `json:"excludedResources,omitempty"`
	LabelSelector           *metav1.LabelSelector   `json:"labelSelector,omitempty"`
	OrLabelSelectors        []*metav1.LabelSelector `json:"orLabelSelectors,omitempty"`
	TTL                     metav1.Duration         `json:"ttl,omitempty"`
	IncludeClusterResources *bool                   `json:"includeClusterResources,omitempty"`
	Hooks                   struct{}                `json:"hooks"`
	StorageLocation         string                  `json:"storageLocation,omitempty"`
}

type veleroStatus struct {
	Version             int             `json:"version,omitempty"`
	FormatVersion       string          `json:"formatVersion,omitempty"`
	Expiration          *metav1.Time    `json:"expiration,omitempty"`
	Phase               VeleroPhase     `json:"phase,omitempty"`
	StartTimestamp      *metav1.Time    `json:"startTimestamp,omitempty"`
	CompletionTimestamp *metav1.Time    `json:"completionTimestamp,omitempty"`
	FailureReason       string          `json:"failureReason,omitempty"`
	Warnings            int             `json:"warnings,omitempty"`
	Errors              int             `json:"errors,omitempty"`
	Progress            *veleroProgress `json:"progress,omitempty"`
}

type veleroProgress struct {
	TotalItems    int `json:"totalItems,omitempty"`
	ItemsBackedUp int `json:"itemsBackedUp,omitempty"`
}

// veleroResult is Velero's results.Result: what its describe prints of the errors or the
// warnings.
type veleroResult struct {
	Velero []string `json:"velero,omitempty"`
}

// veleroObjects renders what b says of backup name as the objects to write, the metadata
// last: a pure function of its inputs, the same bytes each time.
func (s *Store) veleroObjects(name string, b *VeleroBackup) ([]veleroObject, error) {
	keys := s.veleroKeys(name)
	var out []veleroObject
	for _, key := range keys[:len(veleroLists)] {
		data, err := gzipJSON([]struct{}{})
		if err != nil {
			return nil, err
		}
		out = append(out, veleroObject{key, "application/gzip", data})
	}
	list := b.ResourceList
	if list == nil {
		list = map[string][]string{}
	}
	data, err := gzipJSON(list)
	if err != nil {
		return nil, fmt.Errorf("backupstore: resource list of backup %q: %w", name, err)
	}
	out = append(out, veleroObject{keys[len(veleroLists)], "application/gzip", data})
	results := map[string]veleroResult{"errors": {Velero: b.Errors}, "warnings": {Velero: b.Warnings}}
	if data, err = gzipJSON(results); err != nil {
		return nil, fmt.Errorf("backupstore: results of backup %q: %w", name, err)
	}
	out = append(out, veleroObject{keys[len(veleroLists)+1], "application/gzip", data})
	if data, err = json.Marshal(b.object(name)); err != nil {
		return nil, fmt.Errorf("backupstore: %s of backup %q: %w", veleroMetadataFile, name, err)
	}
	return append(out, veleroObject{s.MetadataKey(name), "application/json", append(data, '\n')}), nil
}

// object is the Backup object b describes for backup name.
func (b *VeleroBackup) object(name string) *veleroBackupObject {
	ns, loc, ttl, phase := b.Namespace, b.StorageLocation, b.TTL, b.Phase
	if ns == "" {
		ns = "velero"
	}
	if loc == "" {
		loc = "default"
	}
	if ttl <= 0 {
		ttl = DefaultVeleroTTL
	}
	if phase == "" {
		phase = PhaseCompleted
	}
	labels := map[string]string{}
	for k, v := range b.Labels {
		labels[k] = v
	}
	labels["velero.io/storage-location"] = labelValue(loc)
	obj := &veleroBackupObject{
		APIVersion: "velero.io/v1", Kind: "Backup",
		Metadata: veleroMeta{Name: name, Namespace: ns, Labels: labels},
		Spec: veleroBackupSpec{
			IncludedNamespaces: b.IncludedNamespaces, ExcludedNamespaces: b.ExcludedNamespaces,
			IncludedResources: b.IncludedResources, ExcludedResources: b.ExcludedResources,
			LabelSelector: b.LabelSelector, OrLabelSelectors: b.OrLabelSelectors,
			TTL: metav1.Duration{Duration: ttl}, IncludeClusterResources: b.IncludeClusterResources,
			StorageLocation: loc,
		},
		Status: veleroStatus{
			Version: 1, FormatVersion: "1.1.0", Phase: phase, FailureReason: b.FailureReason,
			Errors: len(b.Errors), Warnings: len(b.Warnings),
			Progress: &veleroProgress{TotalItems: max(b.TotalItems, b.ItemsBackedUp), ItemsBackedUp: b.ItemsBackedUp},
		},
	}
	if !b.Started.IsZero() {
		obj.Metadata.CreationTimestamp = timePtr(b.Started)
		obj.Status.StartTimestamp = timePtr(b.Started)
		obj.Status.Expiration = timePtr(b.Started.Add(ttl))
	}
	if !b.Completed.IsZero() {
		obj.Status.CompletionTimestamp = timePtr(b.Completed)
	}
	return obj
}

func timePtr(t time.Time) *metav1.Time {
	mt := metav1.NewTime(t.UTC().Truncate(time.Second))
	return &mt
}

// labelValue is v as a label value the way Velero makes one of a name
// (label.GetValidName): a name longer than 63 characters is cut to 57 and given 6
// characters of its SHA-256 in hex. A location's name is a Kubernetes object name; the
// longer ones are rare, and a server that syncs the backup sets the label anew.
func labelValue(v string) string {
	if len(v) <= 63 {
		return v
	}
	return v[:57] + sha256Hex(v)[:6]
}

// gzipJSON is v as JSON, gzipped.
func gzipJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if err := json.NewEncoder(zw).Encode(v); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeVelero writes objs, in order; the first failure is returned.
func (w *BackupWriter) writeVelero(objs []veleroObject) error {
	for _, o := range objs {
		err := w.s.writeObject(w.parent, o.key, o.contentType, nil, func(ow io.Writer) error {
			_, err := ow.Write(o.data)
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
