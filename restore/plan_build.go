package restore

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"math"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/internal/archiveopt"
	"github.com/backupkit/backupkit/internal/manifestopt"
	"github.com/backupkit/backupkit/internal/references"
	"github.com/backupkit/backupkit/manifest"
	"github.com/backupkit/backupkit/versionselect"
)

// Converter converts objects between the versions of their kind: what planning asks
// (versionselect.Converter) and what the restore then does. *convert.Registry is one.
type Converter interface {
	versionselect.Converter
	Convert(ctx context.Context, in *unstructured.Unstructured, toVersion string) (*unstructured.Unstructured, error)
}

// PlanOption configures [NewPlan]. A nil PlanOption is ignored.
type PlanOption func(*planConfig)

type planConfig struct {
	versionOpts      []versionselect.Option
	converter        Converter
	regroup          bool
	apiGroupVersions bool
	limits           archive.Limits
	priorities       ResourcePriorities
	refs             map[types.UID]references.Packed // read from the objects by NewPlan
	sibling          Source
	given            *archive.Sibling          // WithSibling
	served           []*metav1.APIResourceList // WithServedResources; nil: not known
	mapping          map[string]string         // WithNamespaceMapping
	filter           *Filter                   // WithFilter; nil: everything
}

// WithVersionOptions passes options to versionselect, which chooses each resource's
// version: user priorities (versionselect.WithPriorities), the target's served resources
// (versionselect.WithServedResources), ... The gate and the converter are set by
// [WithAPIGroupVersions] and [WithConverter].
func WithVersionOptions(opts ...versionselect.Option) PlanOption {
	return func(c *planConfig) { c.versionOpts = append(c.versionOpts, opts...) }
}

// WithServedResources gives the plan the resources the target serves, as discovery lists
// them per group version (ServerGroupsAndResources; Connect reads them): versions are
// chosen among those at which each resource is served (versionselect.WithServedResources),
// and the resource priorities (WithResourcePriorities) are resolved against them as Velero
// resolves them through the target's discovery: an entry without a group names the
// resource of that name (or singular name) in the first group that serves it, core first
// ("services" is the core Services even when the backup holds only Knative's), and an
// entry naming a resource by its singular name ("volumesnapshotclass.snapshot.storage.k8s.io")
// names that resource. An entry the target does not serve is resolved against the backup,
// as without this option: a resource whose CustomResourceDefinition the restore creates.
// Default: none; the priorities are resolved against the backup alone.
func WithServedResources(lists []*metav1.APIResourceList) PlanOption {
	return func(c *planConfig) {
		c.served = lists
		c.versionOpts = append(c.versionOpts, versionselect.WithServedResources(lists))
	}
}

// WithConverter lets the plan restore a resource at a version the target serves that was
// not backed up, when conv converts to it from one that was (versionselect's priority 4);
// the restore converts each such item with conv. Default: none.
func WithConverter(conv Converter) PlanOption {
	return func(c *planConfig) { c.converter = conv }
}

// WithRegrouping lets the plan restore a resource whose kind moved to another group
// (extensions/v1beta1 Ingress to networking.k8s.io, removedapis.RegroupResource) into that
// group, when the backup's versions are chosen (WithAPIGroupVersions) and the converter
// reaches the target's preferred version there. Default: off.
func WithRegrouping(on bool) PlanOption {
	return func(c *planConfig) { c.regroup = on }
}

// WithAPIGroupVersions is Velero's EnableAPIGroupVersions feature: on, each resource's
// version is chosen by versionselect's rules (for backups of format 1.1.0 or later); off,
// every resource is restored at the version it was backed up at, from its legacy path.
// Default: on.
func WithAPIGroupVersions(on bool) PlanOption {
	return func(c *planConfig) { c.apiGroupVersions = on }
}

// WithResourcePriorities sets the order the restore takes resources in (Velero's
// --restore-resource-priorities; ParseResourcePriorities reads its syntax). The zero
// ResourcePriorities orders nothing beyond the objects' own dependencies. Default:
// DefaultResourcePriorities().
func WithResourcePriorities(p ResourcePriorities) PlanOption {
	return func(c *planConfig) { c.priorities = p }
}

// WithSiblingManifest plans from the manifest written beside the backup's tarball
// (archive.SiblingManifestName; archive.Writer.WriteSibling writes it), opened by sibling,
// instead of decoding every item. The tarball is still read once: its compressed bytes are
// hashed and must be the ones the sibling was written for (a mismatch is an error wrapping
// archive.ErrSiblingMismatch, never trusted), and when the backup holds kinds whose bodies
// name dependencies (Pods, workloads, bindings, ...), those bodies are read in the same
// pass. Default: none; the whole backup is read.
func WithSiblingManifest(sibling Source) PlanOption {
	return func(c *planConfig) { c.sibling = sibling }
}

// WithSibling plans from a sibling manifest the caller has read (archive.ReadSibling), as
// WithSiblingManifest does. A sibling already verified against the backup's tarball
// (archive.Sibling.Verify or Bind; backupstore.Store.BindSibling binds one from object
// storage without reading the tarball) is not hashed again: the tarball is read only when
// the backup holds kinds whose bodies name dependencies, once, for those bodies. A sibling
// not yet verified is verified as WithSiblingManifest's is, in the plan's one read of the
// tarball; one that does not match it is an error wrapping archive.ErrSiblingMismatch. It
// takes precedence over WithSiblingManifest. Read the sibling with
// PlanProjection(opts...), the plan's other options, to keep only what the plan reads of
// its labels and annotations; a sibling read with a projection that
// leaves out any of those plans as if the objects lacked them. Default: none.
func WithSibling(sib *archive.Sibling) PlanOption {
	return func(c *planConfig) { c.given = sib }
}

// WithLimits sets the limits archive.Scan reads the backup with. Default: archive.DefaultLimits.
func WithLimits(l archive.Limits) PlanOption {
	return func(c *planConfig) { c.limits = l }
}

// PlanProjection returns the option of archive's readers (archive.ReadSibling and Scan,
// backupstore.Store.Backup) that keeps, of the backup's labels and annotations, only those
// a plan made with opts reads; the manifest read is then projected
// (manifest.Manifest.Projected). The plan reads the labels by which it recognises objects
// the API server or a controller makes, an EndpointSlice's Service label, a Deployment's
// and a ReplicaSet's revision annotation, the depends-on annotation, and every label when
// a Filter selects by labels or has resource policies. NewPlan reads the backup with it
// (the items, or the sibling manifest it reads itself), so that the manifest it keeps
// holds no other label or annotation of any object; a sibling the caller read
// (WithSibling) is used as it was read.
func PlanProjection(opts ...PlanOption) archive.Option {
	cfg := defaultPlanConfig()
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	return archiveopt.WithProjection(cfg.projection())
}

// projection is what a plan made with cfg reads of the backup's labels and annotations
// (PlanProjection).
func (cfg *planConfig) projection() manifestopt.Projection {
	p := manifestopt.Projection{Labels: planLabels, Annotations: planAnnotations}
	if cfg.filter != nil && (cfg.filter.LabelSelector != nil || len(cfg.filter.OrLabelSelectors) > 0 || cfg.filter.ResourcePolicies != nil) {
		p.Labels = nil // every label
	}
	return p
}

// planLabels and planAnnotations are the keys the plan decides by (leftToControllers,
// remade, references.index, manifest's depends-on edges).
var (
	planLabels = func() func(string) bool {
		keys := []string{serviceNameLabel}
		for _, mb := range managedBy {
			keys = append(keys, mb.label)
		}
		return manifestopt.Keys(keys...)
	}()
	planAnnotations = manifestopt.Keys(deploymentRevision, manifest.DependsOnAnnotation)
)

// NewPlan reads the backup src once (with WithSibling, only for the bodies that name
// dependencies, if it holds any) and plans its restore into a cluster serving target
// (versionselect.TargetGroups reads it from a live cluster): per resource the version to
// create and why, the items wave by wave in dependency order, the conversions, the items
// left to their controllers and the ones that cannot be restored, each with its reason.
// It changes nothing anywhere. An error means the backup could not be read or the options
// are wrong; what is wrong with single items is in the plan.
func NewPlan(ctx context.Context, src Source, target []metav1.APIGroup, opts ...PlanOption) (*Plan, error) {
	cfg := defaultPlanConfig()
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	if src == nil {
		return nil, fmt.Errorf("restore: no backup source")
	}
	if err := checkMapping(cfg.mapping); err != nil {
		return nil, err
	}
	body := &bodyReader{refs: map[types.UID]references.Packed{}}
	var idx *archive.Index
	var err error
	switch {
	case cfg.given != nil:
		idx, err = indexOfSibling(ctx, src, cfg, cfg.given, body)
	case cfg.sibling != nil:
		idx, err = indexFromSibling(ctx, src, cfg, body)
	default:
		err = readOnce(ctx, src, func(r io.Reader) error {
			var err error
			idx, err = archive.Scan(ctx, r, archive.WithManifest(), archiveopt.WithoutItemList(), archive.WithLimits(cfg.limits), archive.WithVisitor(body.visit), archiveopt.WithProjection(cfg.projection()))
			return err
		})
	}
	if err != nil {
		return nil, fmt.Errorf("restore: reading the backup: %w", err)
	}
	cfg.refs = body.refs
	plan, err := buildPlan(idx, target, cfg)
	if err != nil {
		return nil, err
	}
	plan.source = src
	return plan, nil
}

// buildPlan plans the restore of the backup idx describes into a cluster serving target.
func buildPlan(idx *archive.Index, target []metav1.APIGroup, cfg planConfig) (*Plan, error) {
	versionDirs, err := archive.FormatHasVersionDirs(idx.FormatVersion)
	if err != nil {
		return nil, fmt.Errorf("restore: reading the backup: %w", err)
	}
	vopts := append([]versionselect.Option{
		versionselect.WithGate(versionselect.Gate{FeatureEnabled: cfg.apiGroupVersions, VersionDirs: versionDirs}),
	}, cfg.versionOpts...)
	if cfg.converter != nil {
		vopts = append(vopts, versionselect.WithConverter(cfg.converter))
	}
	plan := &Plan{FormatVersion: idx.FormatVersion, Items: idx.Manifest.Len(), manifest: idx.Manifest, converter: cfg.converter, limits: cfg.limits}
	for _, p := range idx.Problems {
		plan.Problems = append(plan.Problems, fmt.Sprintf("%s: %s", p.Path, p.Reason))
	}
	for _, f := range idx.Manifest.Validate() {
		plan.Findings = append(plan.Findings, f.String())
	}
	facts := readFacts(idx)
	facts.target = target
	if cfg.regroup && cfg.converter != nil && cfg.apiGroupVersions && versionDirs {
		facts.regroup = cfg.converter
	}
	byKey := plan.chooseVersions(versionselect.Explain(idx.GroupVersions, target, vopts...), facts)
	readStored(idx, byKey, &facts)
	plan.addOrder(cfg.refs, cfg.priorities, cfg.served)
	plan.resolver = resourceResolver(cfg.served, idx.Manifest)
	var filtered map[*manifest.Item]string
	var additional map[*manifest.Item]bool
	if cfg.filter != nil {
		if filtered, additional, err = cfg.filter.apply(idx.Manifest, plan.resolver); err != nil {
			return nil, err
		}
	}
	if len(cfg.mapping) > 0 {
		if err := checkMapping(cfg.mapping); err != nil {
			return nil, err
		}
		restored := map[string]bool{}
		for _, it := range idx.Manifest.Items() {
			if _, out := filtered[it]; !out {
				restored[it.Namespace] = true
				if it.Group == "" && it.Kind == "Namespace" {
					restored[it.Name] = true
				}
			}
		}
		if err := checkMappingAgainst(cfg.mapping, restored); err != nil {
			return nil, err
		}
		plan.NamespaceMapping = cfg.mapping
	}
	plan.placeItems(byKey, facts, filtered, additional)
	plan.markReady()
	return plan, nil
}

func defaultPlanConfig() planConfig {
	return planConfig{apiGroupVersions: true, priorities: DefaultResourcePriorities()}
}

// readOnce opens src, hands it to read and closes it. An error from read names what was
// read when the reader has a name (see named).
func readOnce(ctx context.Context, src Source, read func(io.Reader) error) error {
	r, err := src(ctx)
	if err != nil {
		return fmt.Errorf("opening: %w", err)
	}
	defer r.Close()
	return named(r, read(r))
}

// indexFromSibling reads the sibling manifest, then the tarball once (indexOfSibling).
func indexFromSibling(ctx context.Context, src Source, cfg planConfig, body *bodyReader) (*archive.Index, error) {
	var sib *archive.Sibling
	if err := readOnce(ctx, cfg.sibling, func(r io.Reader) error {
		var err error
		sib, err = archive.ReadSibling(ctx, r, archive.WithLimits(cfg.limits), archiveopt.WithProjection(cfg.projection()))
		return err
	}); err != nil {
		return nil, fmt.Errorf("sibling manifest: %w", err)
	}
	return indexOfSibling(ctx, src, cfg, sib, body)
}

// indexOfSibling is the Index of sib, read from the tarball once at most: a verified sibling
// as indexFromVerified reads it; another verified against the tarball's bytes and, in the
// same pass, when the backup holds any resource whose bodies the references need, with
// those bodies read.
func indexOfSibling(ctx context.Context, src Source, cfg planConfig, sib *archive.Sibling, body *bodyReader) (*archive.Index, error) {
	if sib.Verified() {
		return indexFromVerified(ctx, src, cfg, sib, body)
	}
	verify := func(r io.Reader) error { return sib.Verify(ctx, r) }
	if holdsBodies(sib.GroupVersions) {
		verify = func(r io.Reader) error { return scanVerifying(ctx, r, sib, cfg, body) }
	}
	if err := readOnce(ctx, src, verify); err != nil {
		return nil, err
	}
	return sib.Index()
}

// scanVerifying reads the bodies the references need from the tarball r (body.visit) and
// binds sib to r's bytes, hashed as the scan reads them: one pass where Verify and a scan
// would take two. The scan may stop before the end of the stream; the rest is read into the
// hash. As Verify, it reads at most one byte past the size the sibling expects. A sibling
// that does not match is an error wrapping archive.ErrSiblingMismatch, reported ahead of
// whatever the scan made of bytes it was not written for; when reading r fails or ctx
// ends, the error is the scan's, which names the entry it was reading.
func scanVerifying(ctx context.Context, r io.Reader, sib *archive.Sibling, cfg planConfig, body *bodyReader) error {
	limit := sib.TarballSize
	if limit < math.MaxInt64 {
		limit++
	}
	src := &countingReader{ctx: ctx, r: io.LimitReader(r, limit)}
	h := sha256.New()
	tee := io.TeeReader(src, h)
	_, scanErr := archive.Scan(ctx, tee, archiveopt.WithoutItemList(), archive.WithLimits(cfg.limits), archive.WithVisitor(body.visit))
	if scanErr != nil && (src.err != nil || ctx.Err() != nil) {
		return scanErr
	}
	if _, err := io.Copy(io.Discard, tee); err != nil {
		return fmt.Errorf("reading the tarball: %w", err)
	}
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	if err := sib.Bind(src.n, sum); err != nil {
		return err
	}
	return scanErr
}

// countingReader counts the bytes read from r and keeps its first error other than io.EOF.
// It checks ctx before every read.
type countingReader struct {
	ctx context.Context
	r   io.Reader
	n   int64
	err error
}

func (c *countingReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	if err != nil && err != io.EOF && c.err == nil {
		c.err = err
	}
	return n, err
}

// holdsBodies says whether a backup with these resources (keyed as Index.GroupVersions)
// holds any whose bodies the references need (bodyResources).
func holdsBodies(groups map[string]metav1.APIGroup) bool {
	for key := range groups {
		if bodyResources.Has(schema.ParseGroupResource(key)) {
			return true
		}
	}
	return false
}

// indexFromVerified is the Index of a verified sibling, with the bodies the references
// need read from the tarball, in one pass, when the backup holds any of their resources;
// the tarball is not opened when it holds none.
func indexFromVerified(ctx context.Context, src Source, cfg planConfig, sib *archive.Sibling, body *bodyReader) (*archive.Index, error) {
	idx, err := sib.Index()
	if err != nil || !holdsBodies(idx.GroupVersions) {
		return idx, err
	}
	return idx, readOnce(ctx, src, func(r io.Reader) error {
		_, err := archive.Scan(ctx, r, archiveopt.WithoutItemList(), archive.WithLimits(cfg.limits), archive.WithVisitor(body.visit))
		return err
	})
}

// placed is the decision for it's resource, one per resource, shared by its items.
func (p *Plan) placed(it *manifest.Item, byKey map[string]*ResourcePlan, shared map[*ResourcePlan]*placedResource) *placedResource {
	rp := byKey[it.GroupResource().String()]
	pr := shared[rp]
	if pr == nil {
		pr = &placedResource{ResourcePlan: rp, mapping: p.NamespaceMapping}
		shared[rp] = pr
	}
	return pr
}

// addAdditional adds the filtered item it to the items the restore creates only when an
// item action names it as an additional item (p.additional), when the plan could create it.
func (p *Plan) addAdditional(it *manifest.Item, byKey map[string]*ResourcePlan, facts backupFacts, shared map[*ResourcePlan]*placedResource) {
	if pi, why := planItem(it, p.placed(it, byKey, shared), facts); why == "" && pi.sourceGroup() == "" {
		p.additional = append(p.additional, pi)
	}
}
