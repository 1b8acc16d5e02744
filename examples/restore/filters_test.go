package main

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/backupkit/backupkit/restore"
)

// Bad mappings and filters are usage errors (exit 2) named by their flag, before anything
// is read or created.
func TestFilterFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   []string
		stderr string
	}{
		{name: "two namespaces onto one", args: []string{"--namespace-mappings", "shop:x,blog:x"}, stderr: `--namespace-mappings: restore: invalid namespace mapping: namespaces blog, shop are all mapped to "x"`},
		{name: "malformed pair", args: []string{"--namespace-mappings", "shop=x"}, stderr: `--namespace-mappings: restore: invalid namespace mapping: "shop=x" is not <old>:<new>`},
		{name: "empty target", args: []string{"--namespace-mappings", "shop:"}, stderr: `"" in shop: is not a namespace name`},
		{name: "not a label", args: []string{"--namespace-mappings", "shop:Shop"}, stderr: `"Shop" in shop:Shop is not a namespace name`},
		{name: "source twice", args: []string{"--namespace-mappings", "shop:a,shop:b"}, stderr: `namespace "shop" is mapped twice`},
		{name: "bad selector", args: []string{"--selector", "app in (web"}, stderr: "--selector: "},
		{name: "bad or-selector", args: []string{"--or-selector", "app=web or tier in (db"}, stderr: "--or-selector: selector 2: "},
		{name: "bad cluster resources", args: []string{"--include-cluster-resources=maybe"}, stderr: `invalid boolean value "maybe" for -include-cluster-resources`},
		{name: "empty include list", args: []string{"--include-namespaces", ","}, stderr: "--include-namespaces and --include-resources must not be empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), tc.args, &stdout, &stderr)
			require.Equal(t, 2, code, stderr.String())
			require.Contains(t, stderr.String(), tc.stderr)
			require.Empty(t, stdout.String())
		})
	}
}

// The flags reach the plan: the sample backup's shop namespace restored as shop-2, and
// only what a filter selects.
func TestFilterFlagsPlan(t *testing.T) {
	for _, tc := range []struct {
		name       string
		args       []string
		namespaces map[string]bool // the planned items' namespaces ("" cluster-scoped)
		kinds      []string        // kinds that must be planned
		filtered   int             // at least this many filtered out
	}{
		{name: "mapping", args: []string{"--namespace-mappings", "shop:shop-2"}, namespaces: map[string]bool{"": true, "shop-2": true}, kinds: []string{"Namespace", "Deployment"}},
		{name: "resources", args: []string{"--include-resources", "configmaps", "--include-namespaces", "shop"},
			namespaces: map[string]bool{"": true, "shop": true}, kinds: []string{"ConfigMap", "Namespace"}, filtered: 10},
		{name: "no cluster resources", args: []string{"--include-cluster-resources=false"},
			namespaces: map[string]bool{"": true, "shop": true}, kinds: []string{"Namespace", "Deployment"}, filtered: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), append([]string{"-o", "json"}, tc.args...), &stdout, &stderr)
			require.Equal(t, 0, code, stderr.String())
			var p restore.Plan
			require.NoError(t, json.Unmarshal(stdout.Bytes(), &p))
			namespaces, kinds := map[string]bool{}, map[string]bool{}
			for _, w := range p.Waves {
				for _, it := range w {
					namespaces[it.Info().Namespace] = true
					kinds[it.Info().Kind] = true
					if it.Info().Kind == "Namespace" {
						namespaces[it.Info().Name] = true
					}
				}
			}
			require.Equal(t, tc.namespaces, namespaces)
			for _, k := range tc.kinds {
				require.True(t, kinds[k], k)
			}
			require.GreaterOrEqual(t, len(p.FilteredOut), tc.filtered)
			if tc.filtered == 0 {
				require.Empty(t, p.FilteredOut)
			}
		})
	}
}
