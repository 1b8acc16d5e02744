package convert

import "k8s.io/apimachinery/pkg/runtime"

// Hub marks the hub (storage) version of a kind: the one Go type every other version
// converts to and from. The method does nothing; it only marks the type. The shape is
// Kubebuilder's, declared here so an API module that implements it imports nothing else.
type Hub interface {
	runtime.Object
	Hub()
}

// Convertible is a spoke version of a kind: it converts itself to the hub and fills
// itself from the hub.
//
// ConvertTo writes the receiver's content into dst, which is a new, zero hub object;
// ConvertFrom fills the receiver, a new zero object, from src. Neither may keep or
// mutate the other object's maps and slices: the registry hands them deep copies and
// restores metadata afterwards, so the usual "dst.ObjectMeta = src.ObjectMeta" is safe.
//
// Types written against controller-runtime's conversion package do not satisfy this
// interface as they are (the parameter types differ); the method bodies carry over.
type Convertible interface {
	runtime.Object
	ConvertTo(dst Hub) error
	ConvertFrom(src Hub) error
}
