package readiness

// Reason is the short CamelCase word of a Result naming the rule that decided. Every reason
// this package gives is a constant below, except two it passes on: a Pod's waiting
// container's reason (ContainerCreating, ImagePullBackOff, ...) and the reason of an
// APIService's Available condition.
//
// Reason is an alias of string, not a type of its own, so that Result.Reason stays the
// plain string the package's contract promises: a caller compares it with a literal or a
// constant alike.
type Reason = string

// Reasons of Compute's generic steps and of a baseline (see the package doc's decision order).
const (
	// ReasonNilObject: there is no object (nil, or nil content).
	ReasonNilObject Reason = "NilObject"
	// ReasonMalformed: a field a step reads has the wrong type, or a counter is null or negative.
	ReasonMalformed Reason = "MalformedStatus"
	// ReasonTerminating: metadata.deletionTimestamp is set.
	ReasonTerminating Reason = "Terminating"
	// ReasonStaleGeneration: metadata.generation is newer than status.observedGeneration.
	ReasonStaleGeneration Reason = "ObservedGenerationStale"
	// ReasonReconciling: condition Reconciling is True.
	ReasonReconciling Reason = "Reconciling"
	// ReasonStalled: condition Stalled is True.
	ReasonStalled Reason = "Stalled"
	// ReasonNoStatus: a kind registered with RequireStatus has no status yet.
	ReasonNoStatus Reason = "NoStatus"
	// ReasonReady: condition Ready is True (kinds without a rule); a StatefulSet is ready.
	ReasonReady Reason = "Ready"
	// ReasonNotReady: condition Ready is present and not True (kinds without a rule).
	ReasonNotReady Reason = "NotReady"
	// ReasonNoConditions: a kind without a rule has no Ready condition.
	ReasonNoConditions Reason = "NoReadyCondition"
	// ReasonCheckerPanic: the kind's Checker panicked.
	ReasonCheckerPanic Reason = "CheckerPanic"
	// ReasonAsBackedUp: the kind's Checker gave an External reason that the backed-up
	// object gives too (WithBaseline), so it is not waited for.
	ReasonAsBackedUp Reason = "AsBackedUp"
)

// Reasons of the built-in rules; the package doc's table says when each is given.
const (
	ReasonNamesNotAccepted         Reason = "NamesNotAccepted"
	ReasonEstablished              Reason = "Established"
	ReasonNotEstablished           Reason = "NotEstablished"
	ReasonNamesPending             Reason = "NamesPending"
	ReasonActive                   Reason = "Active"
	ReasonNamespaceTerminating     Reason = "NamespaceTerminating"
	ReasonNoPhase                  Reason = "NoPhase"
	ReasonNamespacePhaseUnknown    Reason = "NamespacePhaseUnknown"
	ReasonProgressDeadlineExceeded Reason = "ProgressDeadlineExceeded"
	ReasonLessUpdated              Reason = "LessUpdated"
	ReasonOldReplicas              Reason = "OldReplicas"
	ReasonExtraReplicas            Reason = "ExtraReplicas"
	ReasonLessAvailable            Reason = "LessAvailable"
	ReasonLessReady                Reason = "LessReady"
	ReasonNotAvailable             Reason = "NotAvailable"
	ReasonAvailable                Reason = "Available"
	ReasonOnDelete                 Reason = "OnDelete"
	ReasonPartitionRollout         Reason = "PartitionRollout"
	ReasonPartitionRolledOut       Reason = "PartitionRolledOut"
	ReasonRevisionMismatch         Reason = "RevisionMismatch"
	ReasonNoObservedGeneration     Reason = "NoObservedGeneration"
	ReasonNoDesiredNumber          Reason = "NoDesiredNumber"
	ReasonLessScheduled            Reason = "LessScheduled"
	ReasonMisscheduled             Reason = "Misscheduled"
	ReasonReplicaFailure           Reason = "ReplicaFailure"
	ReasonLessReplicas             Reason = "LessReplicas"
	ReasonLessLabeled              Reason = "LessLabeled"
	ReasonPodCompleted             Reason = "PodCompleted"
	ReasonPodFailed                Reason = "PodFailed"
	ReasonCrashLoopBackOff         Reason = "CrashLoopBackOff"
	ReasonUnschedulable            Reason = "Unschedulable"
	ReasonPodReady                 Reason = "PodReady"
	ReasonPodNotReady              Reason = "PodNotReady"
	ReasonPodPending               Reason = "PodPending"
	ReasonPodPhaseUnknown          Reason = "PodPhaseUnknown"
	ReasonJobFailed                Reason = "JobFailed"
	ReasonJobComplete              Reason = "JobComplete"
	ReasonJobSuspended             Reason = "JobSuspended"
	ReasonJobRunning               Reason = "JobRunning"
	ReasonBound                    Reason = "Bound"
	ReasonClaimLost                Reason = "ClaimLost"
	ReasonPending                  Reason = "Pending"
	ReasonClaimPhaseUnknown        Reason = "ClaimPhaseUnknown"
	ReasonReleased                 Reason = "Released"
	ReasonVolumeFailed             Reason = "VolumeFailed"
	ReasonVolumePhaseUnknown       Reason = "VolumePhaseUnknown"
	ReasonServiceReady             Reason = "ServiceReady"
	ReasonLoadBalancerReady        Reason = "LoadBalancerReady"
	ReasonNoIngress                Reason = "NoIngress"
	ReasonBudgetNotMet             Reason = "BudgetNotMet"
	ReasonBudgetMet                Reason = "BudgetMet"
	ReasonNotAbleToScale           Reason = "NotAbleToScale"
	ReasonAbleToScale              Reason = "AbleToScale"
)

// Reasons of Wait, in ItemReport.Result and Event.
const (
	// ReasonNotChecked: not read yet (the Previous of a first Event is the zero Result instead).
	ReasonNotChecked Reason = "NotChecked"
	// ReasonNotFound: the object does not exist (yet); Status NotFound.
	ReasonNotFound Reason = "NotFound"
	// ReasonTransientError: every read so far failed with a transient error.
	ReasonTransientError Reason = "TransientError"
	// ReasonPermanentError: a read failed permanently before any status was computed (the error is ItemReport.Err).
	ReasonPermanentError Reason = "PermanentError"
	// ReasonReplaced: the object under the name has another UID (ErrReplaced).
	ReasonReplaced Reason = "Replaced"
)

// Reasons of CheckerFromItemsReady.
const (
	// ReasonPluginReady: a Velero-shaped plugin said ready.
	ReasonPluginReady Reason = "PluginReady"
	// ReasonPluginNotReady: a Velero-shaped plugin said not ready.
	ReasonPluginNotReady Reason = "PluginNotReady"
	// ReasonPluginError: a Velero-shaped plugin returned an error.
	ReasonPluginError Reason = "PluginError"
)
