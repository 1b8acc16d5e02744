package restore

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/internal/resourcematch"
	"github.com/backupkit/backupkit/manifest"
	"github.com/backupkit/backupkit/readiness"
	"github.com/backupkit/backupkit/restore/actions"
	"github.com/backupkit/backupkit/restore/modifiers"
)

// Cluster is the cluster a restore writes to.
type Cluster struct {
	// Dynamic creates, reads and updates the objects.
	Dynamic dynamic.Interface
	// Mapper maps owners outside the backup and the objects waited for to their resources.
	// When it is a meta.ResettableRESTMapper (restmapper.DeferredDiscoveryRESTMapper is), it
	// is reset after each CustomResourceDefinition the restore makes Established.
	Mapper meta.RESTMapper
}

// ExistingPolicy is what the restore does with an object that already exists, with the
// meaning of Velero's --existing-resource-policy.
type ExistingPolicy string

const (
	// PolicyNone leaves an object that already exists as found (DetailLeftAsFoundDiffers
	// when it differs from the backed-up one, Velero's warning), but for a ServiceAccount,
	// which gets the backed-up secrets it lacks merged in, as Velero does.
	PolicyNone ExistingPolicy = "none"
	// PolicyUpdate updates an object that already exists to the backed-up one, as Velero
	// does: with the merge patch from the object as found to the backed-up one, so that
	// fields only the cluster has are removed; an object already as backed up is not sent
	// (DetailAlreadyAsBackedUp). When the patch fails, the object is left as found and the
	// event says why.
	PolicyUpdate ExistingPolicy = "update"
)

// What the restore writes on every object it creates: the restore's name as a label (as
// Velero's velero.io/restore-name), the object's UID in the backup, and the run that made
// it. A create whose answer was lost is recognised as this run's own when its retry meets
// AlreadyExists; an object made by an earlier run of the same restore is recognised as such.
const (
	RestoreNameLabel      = "backupkit.io/restore-name"
	OriginalUIDAnnotation = "backupkit.io/original-uid"
	RunAnnotation         = "backupkit.io/restore-run"
)

// DefaultParallelism is how many items are restored at a time unless WithParallelism says.
const DefaultParallelism = 32

// RunOption configures [Run].
type RunOption func(*runConfig)

type runConfig struct {
	name                           string
	parallel                       int
	policy                         ExistingPolicy
	waitAll                        bool
	waitTimeout                    time.Duration
	actions                        []actions.ItemAction
	actionsSet                     bool
	statusIncluded, statusExcluded []string                        // WithStatus, as resource names
	statusSet                      bool                            // WithStatus was given
	statusResources                *resourcematch.IncludesExcludes // the two, resolved by Run
	dropFinalizers                 bool                            // WithFinalizers(false)
	dropManagedFields              bool                            // WithManagedFields(false)
	events                         func(Event)
	info                           actions.Info
	modifiers                      *modifiers.Modifiers
	dryRun                         bool
	veleroFrom                     *string             // WithVeleroLabels: the backup's name
	registry                       *readiness.Registry // WithReadiness; nil: readiness's built-in rules
	terminatingTimeout             time.Duration       // WithTerminatingTimeout

	readAhead  int64             // tests: the stream's read-ahead (0: maxReadAhead)
	heldCap    int64             // tests: the stream's cap on bytes held (0: maxHeld)
	streamOver func(*itemStream) // tests: told the stream once its passes are over
}

// WithName sets the restore's name, labelled on every object it creates (RestoreNameLabel);
// running a restore again under the same name recognises what an earlier run made. It
// must be a valid label value (validation.IsValidLabelValue of k8s.io/apimachinery): Run
// refuses another. Default: "restore-<UTC time>-<random>".
func WithName(name string) RunOption { return func(c *runConfig) { c.name = name } }

// Velero's labels (WithVeleroLabels), as Velero v1.18.3 writes them on what it restores.
const (
	VeleroRestoreNameLabel = "velero.io/restore-name"
	VeleroBackupNameLabel  = "velero.io/backup-name"
)

// WithVeleroLabels labels every object the restore creates, as Velero does, with
// VeleroRestoreNameLabel (the restore's name, WithName) and VeleroBackupNameLabel
// (backupName), each value as Velero writes it: a value over 63 characters is cut to its
// first 57 and the first 6 hexadecimal digits of its SHA-256, so that a fork's users and
// tools that select on Velero's labels find the objects. RestoreNameLabel is written
// either way. Default: off (the restore is not Velero's).
func WithVeleroLabels(backupName string) RunOption {
	return func(c *runConfig) { c.veleroFrom = &backupName }
}

// veleroLabelValue is s as Velero's label.GetValidName writes a label value.
func veleroLabelValue(s string) string {
	const maxLen = 63 // validation.DNS1035LabelMaxLength
	if len(s) <= maxLen {
		return s
	}
	sum := sha256.Sum256([]byte(s))
	return s[:maxLen-6] + hex.EncodeToString(sum[:])[:6]
}

// WithReadiness makes Run judge readiness (WithWait, the items others need ready, an item
// action's additional items) with reg, a caller's registry of readiness rules: a fork's
// rules for its own kinds, beside readiness's built-in ones (readiness.WithRegistry).
// Default: readiness's built-in rules alone.
func WithReadiness(reg *readiness.Registry) RunOption {
	return func(c *runConfig) { c.registry = reg }
}

// readinessOpts are the options readiness.Compute and Wait are given.
func (c *runConfig) readinessOpts() []readiness.Option {
	if c.registry == nil {
		return nil
	}
	return []readiness.Option{readiness.WithRegistry(c.registry)}
}

// DefaultTerminatingTimeout is Velero's --terminating-resource-timeout: how long a
// restore waits for a namespace being deleted to be gone.
const DefaultTerminatingTimeout = 10 * time.Minute

// WithTerminatingTimeout bounds how long the restore waits, as Velero does, for a
// namespace it restores into that is being deleted (the "delete the namespace, restore
// it" drill) to be gone before it creates it again and what is in it. Default:
// DefaultTerminatingTimeout.
func WithTerminatingTimeout(d time.Duration) RunOption {
	return func(c *runConfig) { c.terminatingTimeout = d }
}

// WithParallelism sets how many items are restored at a time. Default: DefaultParallelism.
func WithParallelism(n int) RunOption { return func(c *runConfig) { c.parallel = n } }

// WithExistingPolicy sets what to do with an object that already exists. Default: PolicyNone.
func WithExistingPolicy(p ExistingPolicy) RunOption { return func(c *runConfig) { c.policy = p } }

// WithWait makes the restore wait until every item is ready before what depends on it
// starts, not only the items that gate others (PlanItemInfo.Ready). Default: off.
func WithWait(on bool) RunOption { return func(c *runConfig) { c.waitAll = on } }

// WithWaitTimeout bounds the wait for one item to be ready. Default: readiness.DefaultTimeout.
func WithWaitTimeout(d time.Duration) RunOption { return func(c *runConfig) { c.waitTimeout = d } }

// WithActions sets the item actions, called in this order for each item they apply to.
// Default: [actions.Default](). WithActions() with none runs no action.
func WithActions(list ...actions.ItemAction) RunOption {
	return func(c *runConfig) { c.actions = slices.Clone(list); c.actionsSet = true }
}

// StatusAnnotation on a backed-up object decides, as in Velero, whether its status is
// restored, whatever WithStatus says: "true" or "false" (in any
// case, spaces around ignored); another value is ignored.
const StatusAnnotation = "velero.io/restore-status"

// WithStatus restores the status of the objects of the included resources but not of
// the excluded ones, as Velero does with a restore's restoreStatus
// (--status-include-resources and --status-exclude-resources): "*" among the included
// (schema.GroupResource{Resource: "*"}) stands for every resource, and so does an empty
// included list (WithStatus(nil, excluded): every resource but the excluded ones). Each
// is resolved as Velero resolves it, like a Filter's resources: a GroupResource without a
// group is a bare name ({Resource: "deployments"} is apps' Deployments on a target that
// serves them), and every one is a glob. The
// object is created, then its status written with the status subresource, retried with
// the object's newest resourceVersion on a conflict, as Velero does. A status that cannot
// be written leaves the object created, and its event's Detail says why, as Velero's
// warning does. Default: no status is restored; the controllers write it.
func WithStatus(included, excluded []schema.GroupResource) RunOption {
	return func(c *runConfig) {
		c.statusSet = true
		for _, gr := range included {
			c.statusIncluded = append(c.statusIncluded, gr.String())
		}
		for _, gr := range excluded {
			c.statusExcluded = append(c.statusExcluded, gr.String())
		}
	}
}

// restoresStatus says whether the status of u, backed up as an object of resource gr, is
// restored: as Velero's determineRestoreStatus decides.
func (c *runConfig) restoresStatus(gr schema.GroupResource, u *unstructured.Unstructured) bool {
	on := c.statusSet && c.statusResources.Includes(gr)
	switch strings.ToLower(strings.TrimSpace(u.GetAnnotations()[StatusAnnotation])) {
	case "true":
		return true
	case "false":
		return false
	}
	return on
}

// WithFinalizers(false) drops the objects' finalizers; by default they are kept as backed
// up, as Velero does (its resetMetadata leaves them).
func WithFinalizers(keep bool) RunOption { return func(c *runConfig) { c.dropFinalizers = !keep } }

// WithManagedFields(false) leaves the objects' managed fields to the API server, which
// records the restore as their one manager; by default they are restored as backed up, as
// Velero does: a merge patch setting metadata.managedFields after the create (the API
// server ignores them in a create), one request more for each object that has them. A
// patch that fails leaves the object created, its Detail beginning with
// DetailManagedFieldsNotRestored.
func WithManagedFields(restore bool) RunOption {
	return func(c *runConfig) { c.dropManagedFields = !restore }
}

// WithEvents calls fn once per planned item as soon as it is decided, from the restore's
// goroutines, one call at a time. fn must not block for long: the restore waits for it.
func WithEvents(fn func(Event)) RunOption { return func(c *runConfig) { c.events = fn } }

// WithResourceModifiers applies Velero's resource modifier rules to each item after the
// item actions, before it is created; an item a rule fails on is not created and fails
// with an error naming the rule. As in Velero, the rules match an object in the namespace
// it was backed up in (before WithNamespaceMapping's), and are not applied to Namespaces.
// Default: none.
func WithResourceModifiers(m *modifiers.Modifiers) RunOption {
	return func(c *runConfig) { c.modifiers = m }
}

// WithPreserveNodePorts keeps Services' node ports as backed up (Velero's
// --preserve-nodeports). Default: the target allocates them.
func WithPreserveNodePorts(on bool) RunOption {
	return func(c *runConfig) { c.info.PreserveNodePorts = on }
}

// WithDryRun makes the restore a dry run against the target: every item goes through the
// run as in a real one (decoded, converted, reset, its owners remapped, the item actions
// run, in the same order), and where a real run would create an object it sends the
// create with the dry-run option (metav1.DryRunAll), so that the API server validates and
// admits it (admission webhooks and policies, quota, authorization) and stores nothing.
// Each item is reported ResultWouldCreate, ResultExists (as a real run would find it),
// ResultWouldUpdate (PolicyUpdate: a dry-run update the target accepts) or ResultRefused
// with the server's reason. Nothing in the target changes: no namespace is created (the
// namespaces a real run creates are checked by dry-run creates), no status is written,
// nothing is waited for, and actions.Info.DryRun tells the item actions, which must not write to
// the cluster then (the built-in actions never do).
//
// An object the target can only check once the restore has created something first is
// reported ResultWouldCreate, not checked (its Detail begins with DetailNotChecked): one in
// a namespace that does not exist yet, a custom resource whose CustomResourceDefinition the
// restore creates. In a namespace that does not exist yet, the ServiceAccount "default"
// and the ConfigMap "kube-root-ca.crt", which the target's controllers make in every new
// namespace before a real run gets to them, are reported ResultExists, not checked, when
// the target's own namespace "default" holds them (its controllers run). A refusal that a real run would not meet because the
// restore creates first what the check looks up (a Pod's ServiceAccount, which the
// ServiceAccount admission plugin requires, restored in the same run) is reported as the
// target answers: refused. Default: off.
func WithDryRun(on bool) RunOption { return func(c *runConfig) { c.dryRun = on } }

// Run restores the plan's items into the cluster on manifest.WalkEach of the backup's
// manifest, with the dependencies and the resource order the plan found: up to
// WithParallelism items at a time, each as soon as everything it depends on is done, and
// ready where that matters. An item the plan does not restore (Skipped,
// LeftToControllers) counts as done as soon as what it depends on is decided: it holds
// back nothing that depends on it, unless something it depends on failed, which skips
// what depends on it in turn. For each item it reads the object from the plan's backup (a
// second streaming pass, holding a bounded number of bytes it reads past; what it lets go
// is read by a further pass, counted in Summary.Passes), converts it to the version planned, resets what the target owns
// (metadata the API server sets, status unless WithStatus, managed fields until after the
// create), points its ownerReferences at the owners' UIDs in the target, runs the item
// actions and then the resource modifiers (WithResourceModifiers), creates it (then
// writes its status and managed fields: WithStatus, WithManagedFields, and calls the item
// actions that act on what was created: actions.PostCreator), and handles an object
// that already exists by the existing policy. Requests that fail transiently
// (readiness.Transient) are retried with backoff.
//
// Namespaces the items live in that neither the plan nor the target holds are created
// first, as Velero does. In a namespace the run created, the ServiceAccount "default" and
// the ConfigMap "kube-root-ca.crt", which the target's controllers make in every new
// namespace (when its own namespace "default" holds them), are waited for, up to 5
// seconds, before the restore's create, which then finds them there (the existing policy
// applies), as a dry run predicts, rather than racing the controllers. Every planned item
// gets one Event (WithEvents) as it is decided.
// The error is nil when every item was restored and ready where it was waited for, or
// excluded by an item action (ResultExcluded). When every item is in the target or
// excluded but some did not become ready in time (ResultNotReady, which Summary.Restored
// counts), the error matches ErrNotReady and counts them. Otherwise it counts the items
// that were not restored (not those not ready), does not match ErrNotReady, and wraps a
// *manifest.WalkError counting the planned items that failed (not those not ready) or
// were skipped (among them what depends on an item not ready), and ctx's error. When
// every item that failed (ResultFailed, ResultRefused; not the ones skipped behind them)
// failed for one cause, by its text, the error ends with
// "every failed item: " and that cause, and wraps it: an item that failed because the
// second pass could not read the backup on (the object store's read error after its
// retries, a tarball cut short) has that read error as its cause, the same for all of them.
// The Events say why each item failed. An error before any item is tried (bad options, a
// namespace that cannot be made) comes with a nil Summary. With WithDryRun the same holds
// of what the run would do; see WithDryRun.
func Run(ctx context.Context, plan *Plan, c Cluster, opts ...RunOption) (*Summary, error) {
	cfg := runConfig{parallel: DefaultParallelism, policy: PolicyNone, waitTimeout: readiness.DefaultTimeout, terminatingTimeout: DefaultTerminatingTimeout}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	if !cfg.actionsSet {
		cfg.actions = actions.Default()
	}
	if err := cfg.check(plan, c); err != nil {
		return nil, err
	}
	selectors, err := resolveSelectors(plan.resolver, cfg.actions)
	if err != nil {
		return nil, err
	}
	if cfg.statusResources, err = resourcematch.NewIncludesExcludes(plan.resolver, cfg.statusIncluded, cfg.statusExcluded); err != nil {
		return nil, fmt.Errorf("restore: WithStatus: %w", err)
	}
	r := newRestorer(plan, c, &cfg)
	r.selectors = selectors
	if err := r.ensureNamespaces(ctx); err != nil {
		return nil, err
	}
	r.items = streamItems(ctx, plan.source, plan.limits, len(r.states), int(r.inWaves), r.locate,
		func(i int32) string { return r.item(i).readPath() }, cmp.Or(cfg.readAhead, maxReadAhead), cmp.Or(cfg.heldCap, maxHeld))
	defer r.items.close()
	_ = plan.manifest.WalkEach(ctx, cfg.parallel, r.restoreWalked, r.walked) // its error counts every item, not the planned ones
	r.items.close()
	if cfg.streamOver != nil {
		cfg.streamOver(r.items)
	}
	sum, walkErr := r.finish()
	sum.Passes = r.items.passesMade()
	if err := ctx.Err(); err != nil {
		return sum, fmt.Errorf("restore: cancelled: %w", errors.Join(err, walkErr))
	}
	if walkErr != nil && cfg.dryRun {
		return sum, fmt.Errorf("restore: dry run: %d of %d items would not be restored: %w",
			sum.Total-sum.Restored-sum.Counts[ResultExcluded]-sum.Counts[ResultWouldCreate], sum.Total, r.why(walkErr))
	}
	if walkErr != nil {
		return sum, fmt.Errorf("restore: %d of %d items not restored: %w", sum.Total-sum.Restored-sum.Counts[ResultExcluded], sum.Total, r.why(walkErr))
	}
	if n := sum.Counts[ResultNotReady]; n > 0 {
		return sum, fmt.Errorf("%w: %d of %d items in the target but not ready in time, every other one restored or excluded", ErrNotReady, n, sum.Total)
	}
	return sum, nil
}

func (c *runConfig) check(plan *Plan, cl Cluster) error {
	var errs []error
	if plan == nil || plan.manifest == nil {
		errs = append(errs, errors.New("no plan (make one with NewPlan)"))
	}
	if cl.Dynamic == nil || cl.Mapper == nil {
		errs = append(errs, errors.New("the cluster needs a dynamic client and a RESTMapper"))
	}
	if c.name == "" {
		c.name = defaultName()
	} else if err := checkName(c.name); err != nil {
		errs = append(errs, err)
	}
	if c.parallel < 1 {
		errs = append(errs, fmt.Errorf("parallelism %d is below 1", c.parallel))
	}
	if c.policy != PolicyNone && c.policy != PolicyUpdate {
		errs = append(errs, fmt.Errorf("existing policy %q is neither %q nor %q", c.policy, PolicyNone, PolicyUpdate))
	}
	if c.waitTimeout <= 0 {
		errs = append(errs, fmt.Errorf("wait timeout %s is not positive", c.waitTimeout))
	}
	if c.terminatingTimeout <= 0 {
		errs = append(errs, fmt.Errorf("terminating timeout %s is not positive", c.terminatingTimeout))
	}
	for i, a := range c.actions {
		if a == nil {
			errs = append(errs, fmt.Errorf("item action %d is nil", i))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	return nil
}

// checkName says what is wrong with a restore's name (WithName), nil when nothing is.
func checkName(name string) error {
	if msgs := validation.IsValidLabelValue(name); len(msgs) > 0 {
		return fmt.Errorf("name %q is not a label value: %s", name, strings.Join(msgs, "; "))
	}
	return nil
}

// defaultName is restore-<UTC time>-<4 random hex digits>, a valid label value.
func defaultName() string {
	return fmt.Sprintf("restore-%s-%s", time.Now().UTC().Format("20060102-150405"), randomHex(2))
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// restorer is one run of a restore. The planned items are numbered in the plan's order
// (wave by wave); the run's state is indexed by that number.
type restorer struct {
	plan  *Plan
	c     Cluster
	cfg   *runConfig
	runID string

	waveStart    []int             // the number of each wave's first item
	inWaves      int32             // the items in waves; those numbered from it on are plan.additional
	additionalNS sync.Map          // the namespaces ensureNamespaceOf made sure of
	index        []int32           // by manifest position, the planned item's number plus one (0: not planned)
	dirs         map[string]string // the directory each restored resource is read from
	states       []itemState       // by number
	selectors    []selector        // the item actions' AppliesTo, read and resolved once
	items        *itemStream
	owners       *owners

	busyMu   sync.Mutex // guards the items' busy
	busyFree *sync.Cond // an item stopped being busy

	mu     sync.Mutex
	errs   map[int32]error // why a decided item failed or was not ready
	counts map[Result]int  // the items decided, by result

	walkErr      manifest.WalkError // the planned items the walk decided Failed or Skipped
	cause        error              // the cause of the first item that failed (noteFailed)
	causeText    string             // cause's text
	causesDiffer bool               // another failed item's cause differs from cause, by its text
	undecided    []undecidedItem    // the planned items the walk decided and the restore had not

	newNamespaces map[string]bool           // the namespaces not in the plan that the run created (dry run: would create)
	clusterMakes  clusterMakes              // what the target's controllers make in a new namespace
	nsItems       map[string]*manifest.Item // the planned Namespace objects, by the name they are restored under

	requests atomic.Int64
	done     atomic.Int64 // items done, for Event.Order
	eventsMu sync.Mutex
}

// itemState is one planned item during the run.
type itemState struct {
	decided  atomic.Bool // restored or failed: result and inTarget are set
	busy     bool        // being restored (from the walk or as another item's additional item); guarded by restorer.busyMu
	result   uint8       // its Result, as an index in results
	inTarget bool        // the object is in the target
	owner    bool        // a planned item names it as an owner: its UID in the target is recorded
}

// results numbers the results for itemState.
var results = []Result{"", ResultCreated, ResultExists, ResultUpdated, ResultFailed, ResultNotReady, ResultSkipped, ResultExcluded, ResultNotRun,
	ResultWouldCreate, ResultWouldUpdate, ResultRefused}

func resultCode(res Result) uint8 {
	for i, r := range results {
		if r == res {
			return uint8(i)
		}
	}
	return 0
}

func newRestorer(plan *Plan, c Cluster, cfg *runConfig) *restorer {
	n := plan.restorable()
	r := &restorer{plan: plan, c: c, cfg: cfg, runID: randomHex(8), owners: newOwners(), inWaves: int32(n),
		index: make([]int32, plan.manifest.Len()), dirs: map[string]string{}, states: make([]itemState, n+len(plan.additional)),
		errs: map[int32]error{}, counts: map[Result]int{}}
	r.busyFree = sync.NewCond(&r.busyMu)
	for _, rp := range plan.Resources {
		if rp.Unrestorable == "" {
			r.dirs[rp.Resource] = rp.Dir
		}
	}
	i := int32(0)
	for _, wave := range plan.Waves {
		r.waveStart = append(r.waveStart, int(i))
		for _, it := range wave {
			if pos, ok := plan.manifest.Position(it.it); ok {
				r.index[pos] = i + 1
			}
			i++
		}
	}
	r.numberAdditional()
	for _, wave := range plan.Waves {
		for _, it := range wave {
			for _, ref := range it.it.OwnerReferences {
				if o, ok := r.planned(ref.UID); ok {
					r.states[o].owner = true
				}
			}
		}
	}
	r.cfg.info.Name = cfg.name
	r.cfg.info.NamespaceMapping = plan.NamespaceMapping
	r.cfg.info.DryRun = cfg.dryRun
	r.cfg.info.InBackup = func(gr schema.GroupResource, ns, name string) bool {
		_, ok := plan.manifest.Lookup(gr, ns, name)
		return ok
	}
	return r
}

// number returns the number of the planned item mi, false when the plan does not restore
// it (or mi is nil).
func (r *restorer) number(mi *manifest.Item) (int32, bool) {
	pos, ok := r.plan.manifest.Position(mi)
	if !ok || pos >= len(r.index) || r.index[pos] == 0 {
		return 0, false
	}
	return r.index[pos] - 1, true
}

// item returns the planned item numbered i.
func (r *restorer) item(i int32) PlanItem {
	if i >= r.inWaves {
		return r.plan.additional[i-r.inWaves]
	}
	w := sort.Search(len(r.waveStart), func(k int) bool { return r.waveStart[k] > int(i) }) - 1
	return r.plan.Waves[w][int(i)-r.waveStart[w]]
}

// planned returns the number of the planned item with this UID in the backup.
func (r *restorer) planned(uid types.UID) (int32, bool) {
	mi, ok := r.plan.manifest.Get(uid)
	if !ok {
		return 0, false
	}
	i, ok := r.number(mi)
	return i, ok
}

// locate returns the number of the planned item the backup's entry ref holds: the entry
// at the planned directory of its resource.
func (r *restorer) locate(ref archive.ItemRef) (int32, bool) {
	if dir, ok := r.dirs[ref.GroupResource]; !ok || dir != ref.VersionDir {
		return 0, false
	}
	mi, ok := r.plan.manifest.Lookup(ref.SchemaGroupResource(), ref.Namespace, ref.Name)
	if !ok {
		return 0, false
	}
	i, ok := r.number(mi)
	return i, ok
}

// restoreWalked is the walk's function, for every item of the backup's manifest: it
// restores a planned item unless it was restored already as another item's additional
// item, and returns nil at once for an item the plan does not restore, so that what
// depends on it runs as if it were absent.
func (r *restorer) restoreWalked(ctx context.Context, mi *manifest.Item) error {
	i, ok := r.number(mi)
	if !ok || i >= r.inWaves {
		return nil // an additional item only: restored when an action names it
	}
	return r.restoreOnce(ctx, i)
}

func (r *restorer) restoreOnce(ctx context.Context, i int32) error {
	st := &r.states[i]
	if st.decided.Load() {
		return r.errOf(i)
	}
	r.claim(i)
	defer r.unclaim(i)
	if st.decided.Load() {
		return r.errOf(i)
	}
	ev := Event{Item: r.item(i)}
	err := r.restoreItem(ctx, i, &ev)
	var refused *RefusedError
	switch {
	case err == nil:
	case errors.As(err, &refused) && refused.UID == ev.Item.uid():
		ev.Result, ev.Err, ev.UID = ResultRefused, err, "" // not an additional item's refusal
	case errors.As(err, new(*notReadyError)):
		ev.Detail = notReadyDetail(ev.Result, ev.Detail, err)
		ev.Result, ev.Err = ResultNotReady, err
	default:
		ev.Result, ev.Err, ev.UID = ResultFailed, err, ""
	}
	st.result, st.inTarget = resultCode(ev.Result), ev.UID != ""
	r.mu.Lock()
	if err != nil {
		r.errs[i] = err
		if ev.Result != ResultNotReady { // in the target: no failure
			r.noteFailed(err)
		}
	}
	r.counts[ev.Result]++
	r.mu.Unlock()
	st.decided.Store(true)
	r.emit(ev)
	return err
}

// claim waits until no other call restores item i, and marks it as being restored: the
// walk and an action's additional items may ask for the same item at once. One lock and
// condition for all items rather than a mutex in each: the waits are rare, and the items
// many.
func (r *restorer) claim(i int32) {
	r.busyMu.Lock()
	defer r.busyMu.Unlock()
	for r.states[i].busy {
		r.busyFree.Wait()
	}
	r.states[i].busy = true
}

// unclaim ends claim's hold of item i.
func (r *restorer) unclaim(i int32) {
	r.busyMu.Lock()
	r.states[i].busy = false
	r.busyMu.Unlock()
	r.busyFree.Broadcast()
}

// errOf is the error of a decided item.
func (r *restorer) errOf(i int32) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.errs[i]
}

func (r *restorer) emit(ev Event) {
	if r.cfg.events == nil {
		return
	}
	r.eventsMu.Lock()
	defer r.eventsMu.Unlock()
	r.cfg.events(ev)
}

// restoreItem creates item i and, where what follows needs it, waits for it to be ready.
func (r *restorer) restoreItem(ctx context.Context, i int32, ev *Event) error {
	data, err := r.items.take(ctx, i)
	if err != nil {
		return err
	}
	obj, err := r.createItem(ctx, ev, data)
	if err != nil || obj == nil {
		return err // obj nil: an action skipped the item (ev says so)
	}
	if ev.Result != ResultWouldCreate {
		ev.UID = obj.GetUID()
	}
	if r.states[i].owner && obj.GetUID() != "" {
		// In a dry run, the UID the target gave the dry-run create: what depends on the
		// object is sent with an owner reference as a real run sends it.
		r.owners.record(ev.Item.uid(), obj.GetUID())
	}
	if err := r.postCreate(ctx, ev, obj); err != nil {
		return err
	}
	if !r.cfg.dryRun && (r.cfg.waitAll || ev.Item.ready()) {
		if err := r.waitReady(ctx, obj, r.cfg.waitTimeout, func() *unstructured.Unstructured {
			u, _ := decodeBackedUp(ev.Item, data) // undecodable: no baseline (createItem decoded it already)
			return u
		}); err != nil {
			return err
		}
		if ev.Item.kind() == "CustomResourceDefinition" {
			if m, ok := r.c.Mapper.(meta.ResettableRESTMapper); ok {
				m.Reset() // it serves a resource from now on
			}
		}
	}
	ev.Order = r.done.Add(1)
	return nil
}

// waitReady returns once obj is ready: at once when the object as created or found is
// (a Namespace is Active from its creation), else by polling it with the readiness package.
// It is judged against the object as backed up, which backedUp decodes when obj is not
// ready at once (readiness.WithBaseline): what depends on something outside the cluster (a
// LoadBalancer Service's ingress) is waited for only when the backed-up object had it.
func (r *restorer) waitReady(ctx context.Context, obj *unstructured.Unstructured, timeout time.Duration, backedUp func() *unstructured.Unstructured) error {
	var computeOpts []readiness.ComputeOption
	waitOpts := []readiness.WaitOption{readiness.WithTimeout(timeout)}
	for _, o := range r.cfg.readinessOpts() {
		computeOpts, waitOpts = append(computeOpts, o), append(waitOpts, o)
	}
	if res := readiness.Compute(obj, computeOpts...); res.Status == readiness.Current {
		return nil
	}
	if b := backedUp(); b != nil {
		if res := readiness.Compute(obj, append(computeOpts, readiness.WithBaseline(b))...); res.Status == readiness.Current {
			return nil
		}
		waitOpts = append(waitOpts, readiness.WithBaselines(func(readiness.ObjectRef) *unstructured.Unstructured { return b }))
	}
	rep, err := readiness.Wait(ctx, readiness.NewDynamicGetter(r.c.Dynamic, r.c.Mapper), []readiness.ObjectRef{readiness.RefOf(obj)}, waitOpts...)
	if rep != nil {
		r.requests.Add(int64(rep.Calls))
	}
	if err == nil {
		return nil
	}
	detail := err.Error()
	if rep != nil && len(rep.Items) == 1 {
		res := rep.Items[0].Result
		detail = fmt.Sprintf("%s %s: %v", res.Status, res.Reason, err)
	}
	return &notReadyError{detail: detail, err: err}
}

// ErrNotReady is what Run's error matches (errors.Is) when every planned item is in the
// target (Result.Restored) or excluded by an item action, and some of them did not
// become ready in time (ResultNotReady); an Event's Err matches it for such an item. Run's
// error when items were not restored (failed, skipped, not run) does not match it.
var ErrNotReady = errors.New("restore: not ready")

// notReadyError is an item created (or found) but not ready in time; what depends on it is
// skipped. It matches ErrNotReady and the waiter's error.
type notReadyError struct {
	detail string
	err    error
}

func (e *notReadyError) Error() string   { return "not ready: " + e.detail }
func (e *notReadyError) Unwrap() []error { return []error{ErrNotReady, e.err} }

// notReadyDetail is the Detail of an item that is in the target, as res and detail said
// before the wait, and was not ready in time (err): "created, not ready: <why>", and
// for an object found or updated "exists, not ready (<how it was handled>): <why>".
func notReadyDetail(res Result, detail string, err error) string {
	if detail != "" {
		return fmt.Sprintf("%s, not ready (%s): %s", res, detail, strings.TrimPrefix(err.Error(), "not ready: "))
	}
	return fmt.Sprintf("%s, %v", res, err)
}

// walked is told each item's outcome as the walk decides it (from the walk's goroutine,
// one at a time): it counts the planned items that failed or were skipped, and keeps the
// outcome of a planned item the restore has not decided, for finish.
func (r *restorer) walked(res manifest.WalkResult) {
	i, ok := r.number(res.Item)
	if !ok || i >= r.inWaves {
		return
	}
	switch res.Outcome {
	case manifest.WalkFailed:
		if r.states[i].decided.Load() && results[r.states[i].result] == ResultNotReady {
			break // in the target: what depends on it is skipped, but it did not fail
		}
		r.walkErr.Failed++
	case manifest.WalkSkipped:
		r.walkErr.Skipped++
	}
	if !r.states[i].decided.Load() {
		r.undecided = append(r.undecided, undecidedItem{i, res})
	}
}

// undecidedItem is the walk's outcome of a planned item the restore had not decided then.
type undecidedItem struct {
	number int32
	res    manifest.WalkResult
}

// finish sends the events of the planned items the walk did not run (in the plan's
// order), unless the restore decided them since as another item's additional items,
// counts every planned item, and returns the walk's error over the planned items: a
// *manifest.WalkError counting those that failed or were skipped, nil when none was.
func (r *restorer) finish() (*Summary, error) {
	sum := &Summary{RestoreName: r.cfg.name, DryRun: r.cfg.dryRun, RunID: r.runID, Total: r.total(), Counts: map[Result]int{},
		Unrestorable: len(r.plan.Skipped), LeftToControllers: len(r.plan.LeftToControllers)}
	slices.SortFunc(r.undecided, func(a, b undecidedItem) int { return cmp.Compare(a.number, b.number) })
	for _, u := range r.undecided {
		if r.states[u.number].decided.Load() {
			continue // counted when decided
		}
		ev := Event{Item: r.item(u.number), Err: u.res.Err}
		switch u.res.Outcome {
		case manifest.WalkSkipped:
			ev.Result = ResultSkipped
		case manifest.WalkNotRun:
			ev.Result = ResultNotRun
		default: // fn panicked before the item was decided
			ev.Result = ResultFailed
		}
		if u.res.Err != nil {
			ev.Detail = u.res.Err.Error()
			if ev.Result == ResultFailed {
				r.noteFailed(u.res.Err)
			}
		}
		r.counts[ev.Result]++
		r.emit(ev)
	}
	r.undecided = nil
	for res, n := range r.counts {
		sum.Counts[res] = n
		if res.Restored() {
			sum.Restored += n
		}
	}
	sum.Requests = r.requests.Load()
	if r.walkErr.Failed+r.walkErr.Skipped == 0 {
		return sum, nil
	}
	werr := r.walkErr
	return sum, &werr
}

// noteFailed notes the cause of an item that failed with err, with r.mu held, or from
// finish: when err wraps the error that ended the second pass (the backup could not be read
// on), that error, the same for every item it failed; else err. It keeps the first cause
// and whether another differs, not one per item.
func (r *restorer) noteFailed(err error) {
	cause := err
	if r.items != nil {
		if ended := r.items.endedWith(); ended != nil && errors.Is(err, ended) {
			cause = ended
		}
	}
	switch {
	case r.cause == nil:
		r.cause, r.causeText = cause, cause.Error()
	case !r.causesDiffer && cause.Error() != r.causeText:
		r.causesDiffer = true
	}
}

// why is walkErr, the walk's error over the planned items, with the cause every failed
// item shares when they share one (noteFailed).
func (r *restorer) why(walkErr error) error {
	if r.cause == nil || r.causesDiffer {
		return walkErr
	}
	return fmt.Errorf("%w: every failed item: %w", walkErr, r.cause)
}

// awaitNotTerminating waits, as Velero does before it restores into a namespace, for
// namespace ns, when it is being deleted, to be gone, polling once a second for at most
// the terminating timeout (WithTerminatingTimeout). Still there then, it is left to the
// creates in it to fail with the API server's reason; only ctx's end is an error.
func (r *restorer) awaitNotTerminating(ctx context.Context, ri dynamic.NamespaceableResourceInterface, ns string) error {
	terminating := func(ctx context.Context) (bool, error) {
		var cur *unstructured.Unstructured
		_, err := r.retry(ctx, func() error {
			var err error
			cur, err = ri.Get(ctx, ns, metav1.GetOptions{})
			return err
		})
		switch {
		case apierrors.IsNotFound(err):
			return false, nil
		case err != nil:
			return false, err
		}
		return cur.GetDeletionTimestamp() != nil, nil
	}
	if t, err := terminating(ctx); err != nil || !t {
		return ctx.Err() // another error: the creates meet it and say so
	}
	err := wait.PollUntilContextTimeout(ctx, time.Second, r.cfg.terminatingTimeout, false, func(ctx context.Context) (bool, error) {
		t, err := terminating(ctx)
		return err == nil && !t, nil
	})
	if cerr := ctx.Err(); cerr != nil && err != nil {
		return fmt.Errorf("restore: waiting for namespace %s to finish terminating: %w", ns, cerr)
	}
	return nil
}

// ensureNamespaces creates the namespaces that planned items live in and that neither
// the plan nor the target holds, as Velero does. In a dry run it sends dry-run creates
// and notes the namespaces it would create.
func (r *restorer) ensureNamespaces(ctx context.Context) error {
	r.newNamespaces, r.nsItems = map[string]bool{}, map[string]*manifest.Item{}
	inPlan := map[string]bool{}
	needed := map[string]bool{}
	for _, wave := range r.plan.Waves {
		for _, it := range wave {
			if it.group() == "" && it.kind() == "Namespace" {
				inPlan[it.name()] = true
				r.nsItems[it.name()] = it.it
			}
			if it.namespace() != "" {
				needed[it.namespace()] = true
			}
		}
	}
	ri := r.c.Dynamic.Resource(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"})
	all := maps.Clone(needed)
	maps.Copy(all, inPlan)
	for _, ns := range slices.Sorted(maps.Keys(all)) {
		if !r.cfg.dryRun {
			if err := r.awaitNotTerminating(ctx, ri, ns); err != nil {
				return err
			}
		}
		if inPlan[ns] || !needed[ns] {
			continue
		}
		obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace",
			"metadata": map[string]any{"name": ns, "labels": map[string]any{RestoreNameLabel: r.cfg.name}}}}
		_, err := r.retry(ctx, func() error {
			_, err := ri.Create(ctx, obj, r.createOptions())
			return err
		})
		switch {
		case err == nil:
			r.newNamespaces[ns] = true
		case err != nil && !apierrors.IsAlreadyExists(err):
			return fmt.Errorf("restore: creating namespace %s: %w", ns, err)
		}
	}
	return nil
}
