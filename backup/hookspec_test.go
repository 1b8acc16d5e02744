package backup_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/backupkit/backupkit/backup"
)

func TestParseHooksRefuses(t *testing.T) {
	for _, tc := range []struct{ name, doc, want string }{
		{"unknown field", `{resources: [{name: a, pre: [{exec: {command: [x], onErr: Fail}}]}]}`, `unknown field "resources[0].pre[0].exec.onErr"`},
		{"field case", `{resources: [{Name: a}]}`, `unknown field "resources[0].Name"`},
		{"duplicate key", "resources: []\nresources: []", `key "resources" already set in map`},
		{"no name", `{resources: [{pre: [{exec: {command: [x]}}]}]}`, "resources[0].name: missing"},
		{"no exec", `{resources: [{name: a, post: [{}]}]}`, "resources[0].post[0].exec: missing"},
		{"no command", `{resources: [{name: a, pre: [{exec: {container: c}}]}]}`, "resources[0].pre[0].exec.command: missing"},
		{"bad onError", `{resources: [{name: a, pre: [{exec: {command: [x], onError: Stop}}]}]}`, `resources[0].pre[0].exec.onError: "Stop" is neither "Continue" nor "Fail"`},
		{"negative timeout", `{resources: [{name: a, post: [{exec: {command: [x], timeout: -1s}}]}]}`, "resources[0].post[0].exec.timeout: -1s is negative"},
		{"bad glob", `{resources: [{name: a, excludedNamespaces: ["[a-"]}]}`, `resources[0]: excluded namespace "[a-"`},
		{"bad selector", `{resources: [{name: a, labelSelector: {matchExpressions: [{key: k, operator: Nope}]}}]}`, "resources[0].labelSelector: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := backup.ParseHooks([]byte(tc.doc))
			require.ErrorContains(t, err, tc.want)
		})
	}
	_, err := backup.ParseHooks([]byte(`{resources: [{pre: [{}]}]}`))
	require.ErrorIs(t, err, backup.ErrHooks)
	require.ErrorContains(t, err, "resources[0].name: missing\nresources[0].pre[0].exec: missing")
}

func TestParseHooksReadsVeleroSpec(t *testing.T) {
	s, err := backup.ParseHooks([]byte(`{"resources":[{"name":"freeze","includedNamespaces":["shop"],"includedResources":["pods"],
"pre":[{"exec":{"container":"db","command":["fsfreeze","--freeze","/data"],"onError":"Fail","timeout":"1m"}}],
"post":[{"exec":{"command":["fsfreeze","--unfreeze","/data"]}}]}]}`))
	require.NoError(t, err)
	require.Len(t, s.Resources, 1)
	r := s.Resources[0]
	require.Equal(t, "freeze", r.Name)
	require.Equal(t, backup.HookFail, r.PreHooks[0].Exec.OnError)
	require.Equal(t, "1m0s", r.PreHooks[0].Exec.Timeout.Duration.String())
	require.Equal(t, []string{"fsfreeze", "--unfreeze", "/data"}, r.PostHooks[0].Exec.Command)
}

// ParseHooks never panics, and what it accepts it accepts again once marshalled.
func FuzzParseHooks(f *testing.F) {
	f.Add([]byte(`{resources: [{name: a, pre: [{exec: {command: [x], onError: Fail, timeout: 5s}}]}]}`))
	f.Add([]byte(`{resources: [{name: a, labelSelector: {matchLabels: {app: db}}, post: [{exec: {command: [y]}}]}]}`))
	f.Add([]byte(`{resources: [{name: a, includedNamespaces: ["s*"], excludedResources: [deployments]}]}`))
	f.Add([]byte("resources: []\nresources: []"))
	f.Add([]byte(`{resources: [{pre: [{}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := backup.ParseHooks(data)
		if err != nil {
			return
		}
		again, err := yamlOf(s)
		require.NoError(t, err)
		_, err = backup.ParseHooks(again)
		require.NoError(t, err, "%s", again)
	})
}

func yamlOf(s *backup.HookSpec) ([]byte, error) { return json.Marshal(s) }

func TestReadHooksFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
		return p
	}
	const spec = "resources:\n- name: freeze\n  pre:\n  - exec: {command: [fsfreeze, --freeze, /data], onError: Fail}\n"
	bad := write("bad.yaml", "resources:\n- name: a\n  pre:\n  - exec: {command: [x], onError: Stop}\n")
	absent := filepath.Join(dir, "absent.yaml")
	for _, tc := range []struct {
		name, path string
		is         error
		want       string
	}{
		{name: "YAML", path: write("hooks.yaml", spec)},
		{name: "invalid: named by its path", path: bad, is: backup.ErrHooks,
			want: bad + `: backup: invalid hook spec: resources[0].pre[0].exec.onError: "Stop" is neither "Continue" nor "Fail"`},
		{name: "absent: os.ReadFile's error", path: absent, is: fs.ErrNotExist, want: "open " + absent + ": no such file or directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := backup.ReadHooksFile(tc.path)
			if tc.is != nil {
				require.ErrorIs(t, err, tc.is)
				require.EqualError(t, err, tc.want)
				require.Nil(t, s)
				return
			}
			require.NoError(t, err)
			want, err := backup.ParseHooks([]byte(spec))
			require.NoError(t, err)
			require.Equal(t, want, s, "as ParseHooks reads the file's bytes")
		})
	}
}
