package backup

import (
	"fmt"
	"sort"
	"time"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/versionselect"
)

// Unread is a listing that could not be read: a resource at a version, in a namespace
// ("" for every namespace or a cluster-scoped resource); or, with Version "", a group
// version whose discovery failed (Resource is then the group version, "metrics.k8s.io/v1beta1").
type Unread struct {
	Resource, Version, Namespace string
	// Reason says why; for a listing the server refused it starts with the server's
	// reason ("Forbidden: ...").
	Reason string
	// Refused says the server refused the listing (Forbidden, Unauthorized, NotFound,
	// MethodNotSupported): reported, not a failure of the backup.
	Refused bool
	// Err is the error met.
	Err error
}

// EventType says what an [Event] reports.
type EventType int

const (
	// EventPage: a page of a listing was written (its objects the filters select).
	EventPage EventType = iota + 1
	// EventListed: a resource was listed at one of its versions, in every namespace listed.
	EventListed
	// EventUnread: a listing could not be read (Event.Unread says why); the backup goes on.
	EventUnread
	// EventHook: an exec hook ran, or was not run, in a Pod (Event.Hook says how; WithHooks).
	EventHook
)

// Event is what [WithProgress] delivers as the backup runs.
type Event struct {
	Type      EventType
	Resource  string // the resource's directory name
	Version   string
	Namespace string // "" for a listing of every namespace, or of a cluster-scoped resource
	// Page counts the pages of this listing, 1 for the first (EventPage).
	Page int
	// Objects counts the objects written from the page at the resource's preferred version,
	// Files every item file written from it, at any version (EventPage).
	Objects, Files int
	// Expected is, on the first page of a listing at the preferred version, the number of
	// objects the listing announces (the page's and the server's remaining item count, when
	// it gives one); 0 otherwise.
	Expected int64
	// Unread is the listing that could not be read (EventUnread).
	Unread *Unread
	// Hook is the hook's outcome (EventHook).
	Hook *HookOutcome
}

// Summary is what a backup wrote and what it could not read.
type Summary struct {
	// Objects counts the objects backed up per resource (directory name): those written at
	// the resource's preferred version. A resource with none is absent.
	Objects map[string]int
	// Files counts the item files written per resource and version (the legacy path of
	// the preferred version not included).
	Files map[string]map[string]int
	// Unread are the listings that could not be read and the group versions whose
	// discovery failed (Plan.DiscoveryFailed), sorted by resource, version (newest first by
	// versionselect.Compare) and namespace.
	Unread []Unread
	// CRDsLeftOut names, sorted, the CustomResourceDefinitions listed but not backed up
	// because none of their custom resources' objects are in the backup (Resource.Only is
	// OnlyCRDsOfBackedUp; Filter.IncludeClusterResources true backs them up).
	CRDsLeftOut []string
	// Problems are the items archive.Writer left out of the manifest (Writer.Problems).
	Problems []archive.Problem
	// ManifestItems counts the items of the manifest written (Writer.ManifestItems).
	ManifestItems int
	// ResourceList names the objects backed up as Velero's resource list does
	// (<backup>-resource-list.json.gz beside a backup in object storage, which `velero
	// backup describe --details` prints): per "<apiVersion>/<Kind>" of the objects as
	// backed up at their resource's preferred version ("v1/ConfigMap",
	// "apps/v1/Deployment"), "<namespace>/<name>" or, cluster-scoped, "<name>", sorted. It
	// holds a string per object backed up.
	ResourceList map[string][]string
	// Hooks are the outcomes of the exec hooks of the Pods backed up or left out by a
	// hook (WithHooks), sorted by Pod (namespace/name), the pre hooks first, each phase in
	// the order its hooks were decided.
	Hooks []HookOutcome
	// HookFailures are the outcomes of Hooks that fail their Pod's backup (HookOutcome.Fails),
	// in the same order: a failed pre hook left the Pod out of the backup, a failed post
	// hook left it in.
	HookFailures []HookOutcome
}

// Failed reports whether a listing failed for another reason than the server refusing it,
// a group's discovery failed, or a hook failed a Pod's backup (HookFailures): the backup
// lacks what it should hold, or a Pod's hooks failed (Velero's PartiallyFailed).
func (s *Summary) Failed() bool {
	if len(s.HookFailures) > 0 {
		return true
	}
	for _, u := range s.Unread {
		if !u.Refused {
			return true
		}
	}
	return false
}

// sortUnread sorts by resource, version (newest first) and namespace.
func sortUnread(u []Unread) {
	sort.SliceStable(u, func(i, j int) bool {
		a, b := u[i], u[j]
		if a.Resource != b.Resource {
			return a.Resource < b.Resource
		}
		if a.Version != b.Version {
			return versionselect.Compare(a.Version, b.Version) > 0
		}
		return a.Namespace < b.Namespace
	})
}

// sortHooks sorts outcomes by Pod, the pre hooks first, keeping the order within.
func sortHooks(h []HookOutcome) {
	sort.SliceStable(h, func(i, j int) bool {
		if h[i].Pod != h[j].Pod {
			return h[i].Pod < h[j].Pod
		}
		return h[i].Phase == HookPre && h[j].Phase == HookPost
	})
}

// String renders u as "<resource> [<version>] [in <namespace>] (skipped|failed): <reason>",
// skipped when the server refused the listing:
// "configmaps v1 in shop (skipped): Forbidden: ...".
func (u Unread) String() string {
	where := u.Resource
	if u.Version != "" {
		where += " " + u.Version
	}
	if u.Namespace != "" {
		where += " in " + u.Namespace
	}
	what := "failed"
	if u.Refused {
		what = "skipped"
	}
	return fmt.Sprintf("%s (%s): %s", where, what, u.Reason)
}

// Progress counts what the events of a Run report so far. Its zero value has counted
// nothing; Listings, the total, is Plan.Listings. It is not safe for concurrent use (the
// function WithProgress takes is called one call at a time).
type Progress struct {
	Objects  int64 // objects written at their preferred version (EventPage's Objects)
	Files    int64 // item files written, every version (EventPage's Files)
	Expected int64 // objects announced by the first pages of the preferred listings begun
	Listed   int   // listings (a resource at a version) done (EventListed)
}

// Add counts e.
func (p *Progress) Add(e Event) {
	switch e.Type {
	case EventPage:
		p.Objects += int64(e.Objects)
		p.Files += int64(e.Files)
		p.Expected += e.Expected
	case EventListed:
		p.Listed++
	}
}

// Estimate says how far a run is, from p and the time since it started: objects written
// per second, and the time left, the larger of two estimates: the objects announced so far
// (each listing's first page says how many remain) at the current rate, and the listings
// left (of listings, Plan.Listings) at the current pace. Both grow as listings begin, so the
// time left is a floor. known is false while no listing is done (no pace yet); done says
// every listing is.
func (p Progress) Estimate(listings int, elapsed time.Duration) (rate float64, left time.Duration, known, done bool) {
	if s := elapsed.Seconds(); s > 0 {
		rate = float64(p.Objects) / s
	}
	switch {
	case p.Listed >= listings:
		return rate, 0, true, true
	case p.Listed == 0:
		return rate, 0, false, false
	}
	byListings := time.Duration(float64(elapsed) * float64(listings-p.Listed) / float64(p.Listed))
	byObjects := time.Duration(0)
	if rate > 0 {
		byObjects = time.Duration(float64(max(p.Expected, p.Objects)-p.Objects) / rate * float64(time.Second))
	}
	return rate, max(byListings, byObjects), true, false
}
