// Package readiness decides whether a restored object is ready, and waits for a set of them.
package readiness
