// Package widget is the kind both conversion webhooks of the benchmarks serve: Widget in
// group bench.backupkit.io, v1 a spoke and v2 the hub, about ten fields with a nested
// struct, lists and a map. The spec and status types and their conversions live here, once;
// bkwidget and crwidget wrap them in the object types each library's interfaces need.
package widget

import "maps"

// Group and Kind of Widget.
const (
	Group = "bench.backupkit.io"
	Kind  = "Widget"
)

// Port is one exposed port.
type Port struct {
	Name     string `json:"name"`
	Port     int32  `json:"port"`
	Protocol string `json:"protocol,omitempty"`
}

// ResourcesV1 is v1's nested resource request.
type ResourcesV1 struct {
	CPU    string `json:"cpu,omitempty"`
	Memory string `json:"memory,omitempty"`
}

// SpecV1 is what v1 asks for.
type SpecV1 struct {
	Image       string            `json:"image"`
	Replicas    int32             `json:"replicas"`
	Paused      bool              `json:"paused,omitempty"`
	Ports       []Port            `json:"ports,omitempty"`
	Env         map[string]string `json:"env,omitempty"`
	Resources   ResourcesV1       `json:"resources"`
	Schedule    string            `json:"schedule,omitempty"`
	Owner       string            `json:"owner,omitempty"`
	Priority    int32             `json:"priority,omitempty"`
	Tags        []string          `json:"tags,omitempty"`
	Description string            `json:"description,omitempty"`
}

// Scaling is v2's nested replica range.
type Scaling struct {
	Replicas    int32 `json:"replicas"`
	MaxReplicas int32 `json:"maxReplicas,omitempty"`
}

// Limits is v2's nested resource request.
type Limits struct {
	CPU    string `json:"cpu,omitempty"`
	Memory string `json:"memory,omitempty"`
}

// SpecV2 is what v2, the hub, asks for.
type SpecV2 struct {
	Image       string            `json:"image"`
	Scaling     Scaling           `json:"scaling"`
	Suspend     bool              `json:"suspend,omitempty"`
	Ports       []Port            `json:"ports,omitempty"`
	Env         map[string]string `json:"env,omitempty"`
	Limits      Limits            `json:"limits"`
	Schedule    string            `json:"schedule,omitempty"`
	Owner       string            `json:"owner,omitempty"`
	Priority    int32             `json:"priority,omitempty"`
	Tags        []string          `json:"tags,omitempty"`
	Description string            `json:"description,omitempty"`
}

// Status is what both versions report.
type Status struct {
	Phase         string `json:"phase,omitempty"`
	ReadyReplicas int32  `json:"readyReplicas,omitempty"`
	Message       string `json:"message,omitempty"`
}

// SpecToHub converts a v1 spec to v2; the result shares no memory with in.
func SpecToHub(in SpecV1) SpecV2 {
	return SpecV2{Image: in.Image, Scaling: Scaling{Replicas: in.Replicas}, Suspend: in.Paused,
		Ports: append([]Port(nil), in.Ports...), Env: maps.Clone(in.Env), Limits: Limits(in.Resources),
		Schedule: in.Schedule, Owner: in.Owner, Priority: in.Priority, Tags: append([]string(nil), in.Tags...),
		Description: in.Description}
}

// SpecFromHub converts a v2 spec to v1 (MaxReplicas is lost); the result shares no memory
// with in.
func SpecFromHub(in SpecV2) SpecV1 {
	return SpecV1{Image: in.Image, Replicas: in.Scaling.Replicas, Paused: in.Suspend,
		Ports: append([]Port(nil), in.Ports...), Env: maps.Clone(in.Env), Resources: ResourcesV1(in.Limits),
		Schedule: in.Schedule, Owner: in.Owner, Priority: in.Priority, Tags: append([]string(nil), in.Tags...),
		Description: in.Description}
}

// CopyV1 returns a deep copy of a v1 spec.
func CopyV1(in SpecV1) SpecV1 {
	in.Ports, in.Env, in.Tags = append([]Port(nil), in.Ports...), maps.Clone(in.Env), append([]string(nil), in.Tags...)
	return in
}

// CopyV2 returns a deep copy of a v2 spec.
func CopyV2(in SpecV2) SpecV2 {
	in.Ports, in.Env, in.Tags = append([]Port(nil), in.Ports...), maps.Clone(in.Env), append([]string(nil), in.Tags...)
	return in
}
