package convert

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Sentinel errors. Every error the package makes wraps one of them, so callers can branch
// with errors.Is whatever the message says; an error a converter returns reaches the caller
// as the cause of a *ConversionError, wrapped, not replaced.
var (
	// ErrInvalidRegistration: a registration is incomplete or contradictory (no hub, two
	// hubs, a spoke without functions, a spoke named like the hub, a type that is neither
	// Hub nor Convertible). The message names the GroupKind and the versions.
	ErrInvalidRegistration = errors.New("convert: invalid registration")
	// ErrAlreadyRegistered: the GroupKind was registered before; the first registration stays.
	ErrAlreadyRegistered = errors.New("convert: kind already registered")
	// ErrNotRegistered: no registration for the object's GroupKind (or Go type).
	ErrNotRegistered = errors.New("convert: kind not registered")
	// ErrUnknownVersion: the source or target version is not a registered version of the kind.
	ErrUnknownVersion = errors.New("convert: unknown version")
	// ErrWrongGroup: the target names a group other than the object's.
	ErrWrongGroup = errors.New("convert: wrong group")
	// ErrPanic: a converter panicked; the message carries the panic value.
	ErrPanic = errors.New("convert: converter panicked")
	// ErrInvalidObject: the object to convert is nil, malformed, or does not decode into
	// its registered Go type.
	ErrInvalidObject = errors.New("convert: invalid object")
	// ErrInvalidResult: a converter returned nil, or an object that cannot be used.
	ErrInvalidResult = errors.New("convert: converter returned an invalid object")
	// ErrNoOriginalVersion: the object carries no original-version record.
	ErrNoOriginalVersion = errors.New("convert: no original version recorded")
	// ErrStashTooLarge: a property bag would exceed its size limit.
	ErrStashTooLarge = errors.New("convert: stash too large")
	// ErrBadStash: a property bag annotation is not valid JSON of the expected shape.
	ErrBadStash = errors.New("convert: malformed stash")
	// ErrCRDMismatch: a CustomResourceDefinition does not agree with the registration of
	// its kind (Registry.CheckCRD): a version served but not registered or registered but
	// not served, no stored version or several, a stored version that is not the hub, or
	// a CRD that cannot be read.
	ErrCRDMismatch = errors.New("convert: CustomResourceDefinition does not match the registry")
)

// ConversionError reports a failed conversion of one object. It names the object and the
// versions; Err holds the cause and is reachable with errors.Is and errors.As.
type ConversionError struct {
	// GroupKind is the object's group and kind as read from the object.
	GroupKind schema.GroupKind
	// Namespace and Name identify the object; both may be empty.
	Namespace, Name string
	// From is the object's version, To the version asked for.
	From, To string
	// Err is the cause; it wraps one of the package's sentinels or a converter's own error.
	Err error
}

// Error renders "Kind.group namespace/name from v1 to v2: cause" ("from v1" left out
// when the version is unknown).
func (e *ConversionError) Error() string {
	from := ""
	if e.From != "" {
		from = " from " + e.From
	}
	return fmt.Sprintf("%s %s%s to %s: %v", gkString(e.GroupKind), objectRef(e.Namespace, e.Name), from, e.To, e.Err)
}

// Unwrap returns the cause.
func (e *ConversionError) Unwrap() error { return e.Err }

// gkString renders a GroupKind as Kind.group, with a core-group kind as the bare Kind
// and an empty kind as "<no kind>".
func gkString(gk schema.GroupKind) string {
	if gk.Kind == "" {
		gk.Kind = "<no kind>"
	}
	return gk.String()
}

// objectRef renders namespace/name, name, or "<no name>".
func objectRef(namespace, name string) string {
	switch {
	case name == "" && namespace == "":
		return "<no name>"
	case namespace == "":
		return name
	default:
		return namespace + "/" + name
	}
}
