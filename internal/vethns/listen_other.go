//go:build !linux

package vethns

import (
	"errors"
	"fmt"
	"net"
)

// Listener is a TCP listener in a network namespace of its own; only Linux has them.
type Listener struct {
	net.Listener
}

// Listen fails with an error matching errors.ErrUnsupported: network namespaces are Linux's.
func Listen() (*Listener, error) {
	return nil, fmt.Errorf("vethns: network namespaces are Linux's: %w", errors.ErrUnsupported)
}
