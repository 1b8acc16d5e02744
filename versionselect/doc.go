// Package versionselect chooses, for each backed-up resource, the API version to restore
// into a target cluster.
package versionselect
