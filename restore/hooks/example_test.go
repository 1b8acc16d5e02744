package hooks_test

import (
	"context"
	"fmt"
	"io"

	corev1 "k8s.io/api/core/v1"

	"github.com/backupkit/backupkit/restore/actions"
	"github.com/backupkit/backupkit/restore/hooks"
)

// runningPods is an Executor whose Pods run and whose commands print their arguments.
type runningPods struct{ pod *corev1.Pod }

func (r runningPods) Pod(context.Context, string, string) (*corev1.Pod, error) { return r.pod, nil }
func (runningPods) Exec(_ context.Context, _, _, _ string, command []string, stdout, _ io.Writer) (int, error) {
	fmt.Fprint(stdout, command[1:])
	return 0, nil
}

// A restore's hooks, read as Velero's Restore spec holds them: the Pods labelled app=db
// get an init container before the create, and a command run once they run.
func Example() {
	spec, err := hooks.Parse([]byte(`
resources:
- name: db
  labelSelector: {matchLabels: {app: db}}
  postHooks:
  - init:
      initContainers:
      - {name: restore-data, image: busybox, command: [sh, -c, "cp -r /backup/. /data"]}
  - exec:
      container: postgres
      command: [echo, restored]
      onError: Fail
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	pod := newPod("shop", "db-0", []string{"postgres"}, labelled("app", "db"), initContainers("own-init"))
	a, err := hooks.NewAction(spec, runningPods{newPod("shop", "db-0", []string{"postgres"}, labelled("app", "db"), running("postgres"))})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()

	// What restore.Run does: Execute before the create, PostCreate after it.
	out, err := a.Execute(ctx, &actions.Input{Item: toUnstructured(pod)})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range podOf(nil, out.Item).Spec.InitContainers {
		fmt.Println("init container:", c.Name)
	}
	detail, err := a.PostCreate(ctx, &actions.PostCreateInput{Item: out.Item})
	fmt.Println(detail, err)
	// Output:
	// init container: restore-data
	// init container: own-init
	// exec hook db (spec) in container postgres: ["echo" "restored"]: exit 0; stdout "[restored]" <nil>
}
