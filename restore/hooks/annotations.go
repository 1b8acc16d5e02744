package hooks

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The annotations that declare a Pod's own restore hooks, as Velero v1.18.3 reads them. A
// Pod with InitImageAnnotation gets its init container from the annotations, and none
// from the Spec; a Pod with ExecCommandAnnotation gets its exec hook from the
// annotations, and none from the Spec.
const (
	// InitImageAnnotation is the init container's image; without it, no init container
	// comes from the annotations.
	InitImageAnnotation = "init.hook.restore.velero.io/container-image"
	// InitNameAnnotation is its name; absent: "velero-restore-init-" and 8 hexadecimal
	// digits derived from the Pod's namespace and name.
	InitNameAnnotation = "init.hook.restore.velero.io/container-name"
	// InitCommandAnnotation is its command: a JSON array of strings, or else one string
	// taken as the whole command; absent: the image's entrypoint.
	InitCommandAnnotation = "init.hook.restore.velero.io/command"

	// ExecCommandAnnotation is the exec hook's command, read as InitCommandAnnotation;
	// without it, no exec hook comes from the annotations.
	ExecCommandAnnotation = "post.hook.restore.velero.io/command"
	// ExecContainerAnnotation is its container; absent: the Pod's first.
	ExecContainerAnnotation = "post.hook.restore.velero.io/container"
	// ExecOnErrorAnnotation is its ErrorMode; a value other than Continue and Fail is
	// ignored, as Velero ignores it.
	ExecOnErrorAnnotation = "post.hook.restore.velero.io/on-error"
	// ExecTimeoutAnnotation and ExecWaitTimeoutAnnotation are its ExecTimeout and
	// WaitTimeout, as time.ParseDuration reads them; a value it cannot read is ignored,
	// as Velero ignores it.
	ExecTimeoutAnnotation     = "post.hook.restore.velero.io/exec-timeout"
	ExecWaitTimeoutAnnotation = "post.hook.restore.velero.io/wait-timeout"
	// ExecWaitForReadyAnnotation is its WaitForReady, as strconv.ParseBool reads it; a
	// value it cannot read is false.
	ExecWaitForReadyAnnotation = "post.hook.restore.velero.io/wait-for-ready"
)

// AnnotationHookName is the hook name of the exec hook a Pod's annotations declare.
const AnnotationHookName = "<from-annotation>"

// parseCommand reads a command annotation: a JSON array of strings, else the whole
// value as one argument.
func parseCommand(v string) []string {
	if strings.HasPrefix(v, "[") {
		var cmd []string
		if err := json.Unmarshal([]byte(v), &cmd); err == nil {
			return cmd
		}
	}
	return []string{v}
}

// initFromAnnotations is the init container a Pod's annotations declare, nil when they
// declare none.
func initFromAnnotations(namespace, name string, a map[string]string) *corev1.Container {
	image := a[InitImageAnnotation]
	if image == "" {
		return nil
	}
	c := &corev1.Container{Name: a[InitNameAnnotation], Image: image}
	if c.Name == "" {
		sum := sha256.Sum256([]byte(namespace + "/" + name))
		c.Name = "velero-restore-init-" + hex.EncodeToString(sum[:4])
	}
	if cmd := a[InitCommandAnnotation]; cmd != "" {
		c.Command = parseCommand(cmd)
	}
	return c
}

// execFromAnnotations is the exec hook a Pod's annotations declare, nil when they
// declare none.
func execFromAnnotations(a map[string]string) *ExecHook {
	cmd := a[ExecCommandAnnotation]
	if cmd == "" {
		return nil
	}
	h := &ExecHook{Container: a[ExecContainerAnnotation], Command: parseCommand(cmd)}
	if m := ErrorMode(a[ExecOnErrorAnnotation]); m == ErrorModeContinue || m == ErrorModeFail {
		h.OnError = m
	}
	duration := func(key string) metav1.Duration {
		d, err := time.ParseDuration(a[key])
		if err != nil {
			return metav1.Duration{}
		}
		return metav1.Duration{Duration: d}
	}
	h.ExecTimeout, h.WaitTimeout = duration(ExecTimeoutAnnotation), duration(ExecWaitTimeoutAnnotation)
	ready, _ := strconv.ParseBool(a[ExecWaitForReadyAnnotation])
	h.WaitForReady = &ready
	return h
}
