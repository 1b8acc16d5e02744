// Package readiness decides whether a restored object is ready, and waits for a set of them.
//
// Compute is pure: given an *unstructured.Unstructured it returns a Result (Status, Reason,
// Message) without fetching anything or reading a clock. Wait polls a Getter until every
// object is Current, and reports on each one.
//
// # Decision order
//
// Compute decides in a fixed order; the first step that decides wins:
//
//  1. nil object: Unknown/NilObject. A field of the wrong type anywhere a step reads:
//     Unknown/MalformedStatus, never a guess and never a panic. Of a condition, a step
//     reads its type and status, and its reason, message or lastTransitionTime only where
//     the decision or the Result's Message needs them.
//  2. metadata.deletionTimestamp set: Terminating/Terminating.
//  3. metadata.generation > status.observedGeneration: InProgress/ObservedGenerationStale.
//  4. condition Reconciling=True: InProgress/Reconciling; Stalled=True: Failed/Stalled.
//  5. strict mode (the default) and a kind whose status a controller or the API server
//     writes, with no status at all (absent, {}, zero counters, null conditions):
//     InProgress/NoStatus. WithLenient skips this step (kstatus's reading).
//  6. the kind's rule (table below, or a Checker from a Registry). With a baseline (the
//     backed-up object: WithBaseline, WithBaselines), an InProgress reason the rule marks
//     external ("E" below, External) is Current/AsBackedUp when the baseline, of the same
//     group and kind and decided by these same steps, reaches this step and gives that
//     reason too: an object is not waited for on a condition outside the cluster's control
//     that its backed-up self did not meet either. No other result is changed by a
//     baseline.
//  7. kinds without a rule: condition Ready=True: Current/Ready; Ready present but not True:
//     InProgress/NotReady; no Ready condition: Current/NoReadyCondition (ConfigMap, Secret,
//     a custom resource without conditions).
//
// # Built-in rules
//
// "S" marks the kinds step 5 applies to. Counters default to 0 when absent, spec.replicas to
// 1; a counter that is null or negative is malformed (the API server writes a counter, or
// omits it when it is 0, but never writes null or a negative number), and so is an ingress
// entry that is not an object. A Deployment, StatefulSet or ReplicaSet whose status counts
// fewer replicas than pods updated, ready, available or fully labeled is InProgress, never
// Current: its controller counts them all in one pass, so such a status is not its whole
// report, as when replicas, omitted at 0, is missing beside the others. A DaemonSet without
// observedGeneration (which its controller writes with every status) or
// desiredNumberScheduled (which the API server writes even at 0) is InProgress likewise.
// Within a kind, rows are tried top to bottom. "E" marks an external reason (see step 6
// and Baselines below).
//
//	Kind (group)                      S  Condition                                            Status/Reason
//	CustomResourceDefinition          S  NamesAccepted=False                                  Failed/NamesNotAccepted
//	  (apiextensions.k8s.io)             Established=True and NamesAccepted=True              Current/Established
//	                                     Established not True                                 InProgress/NotEstablished
//	                                     otherwise                                            InProgress/NamesPending
//	Namespace                            phase Active                                         Current/Active
//	                                     phase Terminating                                    Terminating/NamespaceTerminating
//	                                     no phase                                             Current/NoPhase
//	                                     other phase                                          Unknown/NamespacePhaseUnknown
//	Deployment (apps)                 S  Progressing=False reason ProgressDeadlineExceeded    Failed/ProgressDeadlineExceeded
//	                                     updatedReplicas < spec.replicas                      InProgress/LessUpdated
//	                                     replicas < updatedReplicas, readyReplicas or
//	                                       availableReplicas (replicas absent: 0)             InProgress/LessReplicas
//	                                     replicas > updatedReplicas                           InProgress/OldReplicas
//	                                     replicas > spec.replicas (scaling down)              InProgress/ExtraReplicas
//	                                     availableReplicas < spec.replicas                    InProgress/LessAvailable
//	                                     readyReplicas < spec.replicas                        InProgress/LessReady
//	                                     Available present and not True                       InProgress/NotAvailable
//	                                     otherwise                                            Current/Available
//	StatefulSet (apps)                S  replicas > spec.replicas                             InProgress/ExtraReplicas
//	                                     replicas < spec.replicas, readyReplicas,
//	                                       availableReplicas or updatedReplicas               InProgress/LessReplicas
//	                                     readyReplicas < spec.replicas                        InProgress/LessReady
//	                                     availableReplicas (if present) < spec.replicas       InProgress/LessAvailable
//	                                     updateStrategy OnDelete                              Current/OnDelete
//	                                     partition p > 0, updatedReplicas < replicas-p        InProgress/PartitionRollout
//	                                     partition p > 0, otherwise                           Current/PartitionRolledOut
//	                                     updatedReplicas < spec.replicas                      InProgress/LessUpdated
//	                                     currentRevision != updateRevision                    InProgress/RevisionMismatch
//	                                     otherwise                                            Current/Ready
//	DaemonSet (apps)                  S  no observedGeneration                                InProgress/NoObservedGeneration
//	                                     no desiredNumberScheduled                            InProgress/NoDesiredNumber
//	                                     currentNumberScheduled < desiredNumberScheduled      InProgress/LessScheduled
//	                                     numberMisscheduled > 0                               InProgress/Misscheduled
//	                                     not OnDelete, updatedNumberScheduled < desired       InProgress/LessUpdated
//	                                     numberAvailable < desired                            InProgress/LessAvailable
//	                                     numberReady < desired                                InProgress/LessReady
//	                                     otherwise                                            Current/Available
//	ReplicaSet (apps)                 S  ReplicaFailure=True                                  InProgress/ReplicaFailure
//	                                     replicas > spec.replicas                             InProgress/ExtraReplicas
//	                                     replicas < spec.replicas, fullyLabeledReplicas,
//	                                       readyReplicas or availableReplicas                 InProgress/LessReplicas
//	                                     fullyLabeledReplicas < spec.replicas                 InProgress/LessLabeled
//	                                     availableReplicas < spec.replicas                    InProgress/LessAvailable
//	                                     readyReplicas < spec.replicas                        InProgress/LessReady
//	                                     otherwise                                            Current/Available
//	Pod                               S  phase Succeeded (Ready=False does not matter)        Current/PodCompleted
//	                                     phase Failed                                         Failed/PodFailed
//	                                     a (init) container waiting in CrashLoopBackOff       Failed/CrashLoopBackOff
//	                                     PodScheduled=False reason Unschedulable for longer
//	                                       than the window (needs "now": WithNow or Wait)     Failed/Unschedulable
//	                                     PodScheduled=False reason Unschedulable              InProgress/Unschedulable
//	                                     phase Running, Ready=True                            Current/PodReady
//	                                     phase Running or Pending, a container waiting        InProgress/<waiting reason>
//	                                     phase Running                                        InProgress/PodNotReady
//	                                     phase Pending or none                                InProgress/PodPending
//	                                     other phase                                          Unknown/PodPhaseUnknown
//	Job (batch)                       S  Failed=True or FailureTarget=True                    Failed/JobFailed
//	                                     Complete=True                                        Current/JobComplete
//	                                     spec.suspend or Suspended=True                       Current/JobSuspended
//	                                     otherwise                                            InProgress/JobRunning
//	PersistentVolumeClaim             S  phase Bound                                          Current/Bound
//	                                     phase Lost                                           Failed/ClaimLost
//	                                     phase Pending or none                                InProgress/Pending
//	PersistentVolume                  S  phase Available, Bound, Released                     Current/<phase>
//	                                     phase Failed                                         Failed/VolumeFailed
//	                                     phase Pending                                        InProgress/Pending
//	                                     no phase (lenient only)                              Current/NoPhase
//	Service                              type not LoadBalancer                                Current/ServiceReady
//	                                     LoadBalancer, an ingress entry with ip or hostname   Current/LoadBalancerReady
//	                                     LoadBalancer without such an entry, and a baseline
//	                                       that is a LoadBalancer without one (step 6)        Current/AsBackedUp
//	                                     LoadBalancer without such an entry (both modes)      InProgress/NoIngress E
//	APIService                        S  Available=True                                       Current/Available
//	  (apiregistration.k8s.io)           Available not True, with a reason                    InProgress/<its reason>
//	                                     otherwise                                            InProgress/NotAvailable
//	PodDisruptionBudget (policy)      S  currentHealthy < desiredHealthy                      InProgress/BudgetNotMet
//	                                     otherwise                                            Current/BudgetMet
//	HorizontalPodAutoscaler           S  AbleToScale=True                                     Current/AbleToScale
//	  (autoscaling)                      otherwise                                            InProgress/NotAbleToScale
//
// An HPA is Current once it can scale its target even when ScalingActive is False (no
// metrics to scale on yet): the metrics are the cluster's to provide, not the restore's. At
// autoscaling/v1, which has no status.conditions, the conditions are read from the JSON list
// in the annotation autoscaling.alpha.kubernetes.io/conditions, where the API server shows
// them; an annotation that is not such a list is Unknown/MalformedStatus.
//
// A PVC whose StorageClass binds on first consumer stays Pending until a Pod uses it: wait
// for the Pod, or register another rule for PersistentVolumeClaim.
//
// # Baselines
//
// A restore knows what each object was when backed up. A condition that depends on
// something outside the cluster's control, which the backed-up object did not meet, is
// not the restore's to wait for: a LoadBalancer Service backed up without an ingress (no
// load-balancer controller where it ran) has none to expect after the restore either.
// WithBaseline gives Compute the backed-up object, WithBaselines gives Wait one per ref;
// a result is relaxed only as step 6 says, so a baseline never makes a result worse, and
// a baseline that is nil, that Compute finds malformed or Terminating, that is of another
// kind, or that met the condition changes nothing. A baseline must hold the backed-up
// status: with none, a LoadBalancer Service reads as never having had an ingress.
//
// Of the built-in rules' InProgress reasons only the Service's NoIngress is external: an
// ingress comes from a load balancer the cluster's environment provides (a cloud's, or
// none), and a Service without one still serves inside the cluster. The others wait for
// the cluster itself and stay waited for whatever the baseline says: a CRD's names and
// establishment (the API server); workload counters and a Pod's scheduling, containers and
// readiness (the cluster's controllers, scheduler and nodes); a running Job; a Pending PVC
// or PV (the cluster's provisioner and binder); an APIService's availability (the API
// server or a Service of the cluster); a PodDisruptionBudget's healthy pods and an HPA's
// ability to scale (the cluster's pods and the HPA's target). A Pod waiting on an image
// pull (ErrImagePull, ImagePullBackOff: reasons the Pod rule passes on) is not relaxed
// either: the registry may lie outside the cluster, but a Pod without its image runs
// nothing. An Ingress or a Gateway has no built-in rule (an Ingress, without conditions, is
// Current/NoReadyCondition at step 7); a Registry can give one a rule and mark its waiting
// reason with External, and so can it for the Pod rule's image-pull reasons.
//
// # Registries
//
// NewRegistry returns the rules above as a value; Register adds or overrides a kind's Checker
// (RequireStatus opts it into step 5, External marks its external reasons), Remove drops
// one, and WithRegistry makes Compute and Wait use it. There is no global table. CheckerFromItemsReady and AreItemsReady adapt
// Velero's AreAdditionalItemsReady(items) (bool, error) shape in either direction;
// RefForResource turns Velero's GroupResource identifiers into ObjectRefs.
// WaitAdditionalItems is Velero's wait for a plugin's additional items in one call: a
// timeout that replaces DefaultTimeout (longer or shorter), and, with
// WithContinueOnTimeout, running out of time reported in the Report (NotReady), not as an
// error.
//
// # Waiting
//
// Wait polls on a wait.Backoff schedule (DefaultBackoff: 500ms growing to 5s, jittered) until
// every object is Current, the global deadline (WithTimeout, default 10 minutes) or ctx ends.
// WithItemTimeout bounds each object; NotFound is waited for; a Failed status or a replaced
// object (UID changed) ends that object at once and, unless WithKeepGoing, the whole wait
// (the objects still pending then get ErrStopped). With a Lister (NewDynamicGetter is one),
// objects of one kind in one namespace are read with one LIST per round instead of a GET
// each (from WithListThreshold objects on); a forbidden LIST falls back to GETs. With a
// Watcher too, a group just listed is then watched from the list's resourceVersion instead
// of listed again; a forbidden watch falls back to polling, and a watch that ends or sends
// an error is replaced by a LIST and a new watch on the next round. Progress is reported
// through WithProgress; the clock is injectable (WithClock) so tests never sleep. The Report
// has one ItemReport per ref; the error is a *WaitError that errors.Is matches against
// ErrTimeout, ErrFailed, ErrReplaced, ErrStopped, ctx's error, and apierrors.IsForbidden
// against a permanent error.
//
// Deadlines and cancellation. The deadline and ctx bound the requests in flight as well:
// each call gets a context that ends with ctx, at the deadline, or after WithRequestTimeout
// (default DefaultRequestTimeout), whichever comes first, so a request hanging in flight
// costs one retry, not the wait, and Wait returns at its deadline or its cancellation even
// when the API server does not answer. (Contexts run on real time: with another clock than
// the real one, requests in flight are bounded by ctx only.) When ctx ends or the deadline
// passes, the answer of a call still in flight is dropped, and every pending object keeps
// the last status computed for it and gets ctx's error (context.Canceled,
// context.DeadlineExceeded) or ErrTimeout.
//
// Transient and permanent errors. Every error of a read is sorted in this order:
//
//  1. NotFound (apierrors.IsNotFound, or meta.IsNoMatchError: a kind not served yet) is no
//     error: the object is waited for, with status NotFound.
//  2. An answer that cannot be decoded (JSON that does not parse, an object without kind or
//     apiVersion) is retried like a transient error, because a corrupt answer is far more
//     often a proxy or a cut connection than what the API server meant; only
//     DecodeFailureLimit (3) such reads of one object in a row make it permanent.
//  3. Transient errors (the WithTransient function, by default Transient, the project's one
//     rule, which examples/backup and the restore use too) are retried on the next round:
//     429, 408, every 5xx, the API server's timeouts and any answer suggesting a retry
//     (retryAfterSeconds), which say "not now"; connections refused, reset, aborted or
//     closed, answers cut short before or in the middle of their body (an EOF, an
//     unexpected EOF, client-go's "... when reading response body. Please retry ..." for
//     HTTP/1.1 and HTTP/2 alike), an HTTP/2 connection lost, a GOAWAY, an HTTP/2 stream or
//     connection error; network timeouts that are not a context's (a dial, a TLS
//     handshake, awaiting response headers, http.Client's Timeout). All of them may well
//     succeed a moment later.
//  4. A call's own context ending while the wait goes on (WithRequestTimeout, or a bound
//     the getter sets itself; context.DeadlineExceeded, client-go's rate limiter declining
//     to wait past the deadline) is retried on the next round too. Transient itself says
//     false of a context's end, which is its caller's to judge: here the wait's ctx and
//     deadline are still running, and once they end, what a call returns is dropped (see
//     above).
//  5. Everything else is permanent and ends the object at once (and, unless WithKeepGoing,
//     the wait): 400, 401, 403, 405, 409, 410, 422 and the other 4xx answers, which say
//     that the request as made will not succeed by repetition; an invalid configuration or
//     URL; and errors nobody recognizes, since retrying those until the deadline would only
//     hide them. The item's error is the getter's error (named once in the message), its
//     Result the last status computed.
//
// Goroutines. Each call of Wait works on the calling goroutine, one request at a time, and
// runs the progress callback there; calls may run concurrently when the getter they share
// is safe for concurrent use (Wait's doc has the details).
//
// # Options and reasons
//
// Compute takes ComputeOptions and Wait takes WaitOptions; WithLenient, WithRegistry and
// WithUnschedulableWindow are both (type Option), WithNow and WithBaseline are Compute's
// only, and WithTimeout, WithClock, WithBaselines and the other waiting options are Wait's
// only, so that passing one where it would be ignored does not compile. A Result's Reason is a string (Reason is an alias naming
// it), and every reason the package gives is one of the Reason constants (reasons.go), the waiter's (NotFound,
// TransientError, PermanentError, Replaced, NotChecked) included, except the two it passes on:
// a Pod's waiting container's reason and an APIService's Available reason.
package readiness
