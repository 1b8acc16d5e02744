package hooks_test

import (
	"context"
	"fmt"
	"io"
	"sigs.k8s.io/yaml"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// fakeExec is an Executor: Pod answers the pods in turn (the last one from then on; nil:
// NotFound), Exec records each call and answers by the command's first word.
type fakeExec struct {
	mu      sync.Mutex
	pods    []*corev1.Pod
	results map[string]fakeResult
	calls   []string // "container: command"
	reads   int      // Pod calls
	readsAt []int    // reads before each Exec call
}

type fakeResult struct {
	code           int
	err            error
	stdout, stderr string
	block          bool // until ctx ends
}

func (f *fakeExec) Pod(_ context.Context, namespace, name string) (*corev1.Pod, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	if len(f.pods) == 0 {
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "pods"}, name)
	}
	p := f.pods[0]
	if len(f.pods) > 1 {
		f.pods = f.pods[1:]
	}
	if p == nil {
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "pods"}, name)
	}
	return p.DeepCopy(), nil
}

func (f *fakeExec) Exec(ctx context.Context, namespace, pod, container string, command []string, stdout, stderr io.Writer) (int, error) {
	f.mu.Lock()
	f.calls = append(f.calls, container+": "+strings.Join(command, " "))
	f.readsAt = append(f.readsAt, f.reads)
	r := f.results[command[0]]
	f.mu.Unlock()
	if r.block {
		<-ctx.Done()
		return -1, ctx.Err()
	}
	_, _ = io.WriteString(stdout, r.stdout)
	_, _ = io.WriteString(stderr, r.stderr)
	return r.code, r.err
}

func (f *fakeExec) executed() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

// podOpt changes a test Pod.
type podOpt func(*corev1.Pod)

func annotated(kv ...string) podOpt {
	return func(p *corev1.Pod) {
		if p.Annotations == nil {
			p.Annotations = map[string]string{}
		}
		for i := 0; i < len(kv); i += 2 {
			p.Annotations[kv[i]] = kv[i+1]
		}
	}
}

func labelled(kv ...string) podOpt {
	return func(p *corev1.Pod) {
		p.Labels = map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			p.Labels[kv[i]] = kv[i+1]
		}
	}
}

func initContainers(names ...string) podOpt {
	return func(p *corev1.Pod) {
		for _, n := range names {
			p.Spec.InitContainers = append(p.Spec.InitContainers, corev1.Container{Name: n, Image: "busybox"})
		}
	}
}

// running marks the containers running; "name+ready" also ready.
func running(names ...string) podOpt {
	return func(p *corev1.Pod) {
		for _, n := range names {
			n, ready := strings.CutSuffix(n, "+ready")
			p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{Name: n, Ready: ready,
				State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}})
		}
	}
}

func waiting(names ...string) podOpt {
	return func(p *corev1.Pod) {
		for _, n := range names {
			p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{Name: n,
				State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{}}})
		}
	}
}

func phase(ph corev1.PodPhase) podOpt { return func(p *corev1.Pod) { p.Status.Phase = ph } }

// newPod is Pod ns/name with the containers named (image "app").
func newPod(ns, name string, containers []string, opts ...podOpt) *corev1.Pod {
	p := &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	for _, c := range containers {
		p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: c, Image: "app"})
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func toUnstructured(p *corev1.Pod) *unstructured.Unstructured {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(p)
	if err != nil {
		panic(fmt.Sprint(err))
	}
	return &unstructured.Unstructured{Object: m}
}

const ms = time.Millisecond

func unstructuredSlice(obj map[string]any, fields ...string) ([]any, bool, error) {
	return unstructured.NestedSlice(obj, fields...)
}

func podOf(t interface{ Fatal(...any) }, u *unstructured.Unstructured) *corev1.Pod {
	p := &corev1.Pod{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, p); err != nil {
		t.Fatal(err)
	}
	return p
}

func mustSelector(t interface{ Fatal(...any) }, s string) *metav1.LabelSelector {
	ls, err := metav1.ParseToLabelSelector(s)
	if err != nil {
		t.Fatal(err)
	}
	return ls
}

func yamlToJSON(in string) ([]byte, error) { return yaml.YAMLToJSON([]byte(in)) }
