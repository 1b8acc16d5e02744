package hooks_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/backupkit/backupkit/restore/hooks"
)

// Parse reads Velero's hooks spec from YAML and JSON, every field where Velero has it.
func TestParse(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "hooks.yaml"))
	require.NoError(t, err)
	s, err := hooks.Parse(data)
	require.NoError(t, err)
	require.Len(t, s.Resources, 1)
	r := s.Resources[0]
	require.Equal(t, "restore-hook-1", r.Name)
	require.Equal(t, []string{"nginx-example"}, r.IncludedNamespaces)
	require.Equal(t, map[string]string{"app": "nginx"}, r.LabelSelector.MatchLabels)
	require.Len(t, r.PostHooks, 2)
	in := r.PostHooks[0].Init
	require.NotNil(t, in)
	require.Equal(t, 2*time.Minute, in.Timeout.Duration)
	require.Equal(t, "restore-hook-init1", in.InitContainers[0].Name)
	require.Equal(t, "/restores", in.InitContainers[0].VolumeMounts[0].MountPath)
	ex := r.PostHooks[1].Exec
	require.NotNil(t, ex)
	require.Equal(t, "nginx", ex.Container)
	require.Equal(t, []string{"/bin/bash", "-c", "echo restored"}, ex.Command)
	require.Equal(t, hooks.ErrorModeContinue, ex.OnError)
	require.Equal(t, 5*time.Minute, ex.WaitTimeout.Duration)
	require.Equal(t, time.Minute, ex.ExecTimeout.Duration)
	require.True(t, *ex.WaitForReady)

	data, err = os.ReadFile(filepath.Join("testdata", "hooks.json"))
	require.NoError(t, err)
	s, err = hooks.Parse(data)
	require.NoError(t, err)
	require.Equal(t, hooks.ErrorModeFail, s.Resources[0].PostHooks[0].Exec.OnError)
	require.Equal(t, []string{"kube-*"}, s.Resources[0].ExcludedNamespaces)
}

// Parse refuses what Velero's CRD or restore refuses, and a field the spec lacks; it
// names every problem by its place.
func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		invalid  bool   // wraps ErrInvalid
		want     string // the message
	}{
		{name: "not YAML", in: "resources: [", want: "hooks: reading the spec: yaml: line 1: did not find expected node content"},
		{name: "an unknown field", in: "resources:\n- name: a\n  postHook: []\n",
			want: `hooks: reading the spec: unknown field "resources[0].postHook"`},
		{name: "a field in another case", in: "resourCes: []\n", want: `hooks: reading the spec: unknown field "resourCes"`},
		{name: "a field twice", in: `{"resources": [], "resources": []}`, want: "hooks: reading the spec: yaml: unmarshal errors:\n  line 1: key \"resources\" already set in map"},
		{name: "no name", in: "resources:\n- postHooks: []\n", invalid: true, want: "hooks: invalid spec: resources[0].name: missing"},
		{name: "every problem, each by its place", invalid: true, in: `resources:
- name: a
  includedNamespaces: ["[bad"]
  labelSelector: {matchExpressions: [{key: app, operator: Is}]}
  postHooks:
  - exec: {onError: Abort, execTimeout: -1s, waitTimeout: -2s}
  - init: {initContainers: [{name: x, image: busybox}]}
`, want: "hooks: invalid spec: resources[0]: included namespace \"[bad\": unexpected end of input\n" +
			"resources[0].labelSelector: \"Is\" is not a valid label selector operator\n" +
			"resources[0].postHooks[0].exec.command: missing\n" +
			"resources[0].postHooks[0].exec.onError: \"Abort\" is neither \"Continue\" nor \"Fail\"\n" +
			"resources[0].postHooks[0].exec.execTimeout: -1s is negative\n" +
			"resources[0].postHooks[0].exec.waitTimeout: -2s is negative\n" +
			"resources[0].postHooks[1].init.initContainers[0]: an init container needs a name, an image and a command"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := hooks.Parse([]byte(tc.in))
			require.Error(t, err)
			require.Equal(t, tc.invalid, errors.Is(err, hooks.ErrInvalid))
			require.Equal(t, tc.want, err.Error())
			_, err = hooks.NewAction(mustUnmarshal(t, tc.in), nil)
			if tc.invalid {
				require.ErrorIs(t, err, hooks.ErrInvalid, "NewAction checks as Parse does")
			}
		})
	}
}

// mustUnmarshal reads a spec without checking it; nil when it cannot.
func mustUnmarshal(t *testing.T, in string) *hooks.Spec {
	var s hooks.Spec
	j, err := yamlToJSON(in)
	if err != nil || json.Unmarshal(j, &s) != nil {
		return nil
	}
	return &s
}

// NewAction refuses bounds that are not positive, naming them.
func TestNewActionOptions(t *testing.T) {
	for _, tc := range []struct {
		opt  hooks.Option
		want string
	}{
		{hooks.WithMaxWait(0), "hooks: max wait 0s is not positive"},
		{hooks.WithPollInterval(-time.Second), "hooks: poll interval -1s is not positive"},
		{hooks.WithMaxOutput(0), "hooks: max output 0 is not positive"},
	} {
		_, err := hooks.NewAction(nil, nil, tc.opt)
		require.EqualError(t, err, tc.want)
	}
}

// FuzzParse: Parse never panics, and what it accepts, written back as JSON, it reads
// again to the same spec.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"hooks.yaml", "hooks.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		require.NoError(f, err)
		f.Add(data)
	}
	f.Add([]byte("resources: [{name: a, postHooks: [{exec: {command: [x]}}]}]"))
	f.Add([]byte(strings.Repeat("[", 100)))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := hooks.Parse(data)
		if err != nil {
			return
		}
		again, err := json.Marshal(s)
		require.NoError(t, err)
		s2, err := hooks.Parse(again)
		require.NoError(t, err, "%s", again)
		twice, err := json.Marshal(s2)
		require.NoError(t, err)
		require.JSONEq(t, string(again), string(twice))
	})
}
