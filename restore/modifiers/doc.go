// Package modifiers reads and applies Velero's resource modifier rules: the rules file
// (version v1, YAML or JSON; [Parse], [Read] and [ReadFile], which also take a manifest of
// the ConfigMap Velero reads it from, or [FromConfigMap] for that ConfigMap), checked when
// read, and [Modifiers.Apply], which changes an object by every rule that matches it. A
// rule selects objects by a glob of their resource, a regular expression of their name,
// their namespace, a label selector and JSON Patch tests, and changes them with a JSON
// Patch, JSON Merge Patches or strategic merge patches.
//
// It is Velero's internal/resourcemodifiers, with the meaning Velero v1.18.3 gives the
// rules (its glob and JSON Patch libraries, at the versions it pins), and the differences
// restore's package doc lists: a rule that would fail on every object it matches is an
// error when the rules are read ([ErrInvalid], naming the rule in a [RuleError]); a bad
// namespace glob too, where Velero's rule matches nothing.
//
// The package is pure: no client, no I/O, no logging. restore.WithResourceModifiers hands
// the rules to a restore, which applies them to each item after its item actions, in the
// namespace the item was backed up in.
package modifiers
