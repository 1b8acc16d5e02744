package main

import (
	"flag"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/backupkit/backupkit/examples/internal/optbool"
	"github.com/backupkit/backupkit/restore"
	"github.com/backupkit/backupkit/restore/policies"
)

// filterFlags are Velero's restore flags that choose what is restored and where:
// --namespace-mappings and the filters, with examples/backup's names and meaning, and
// --resource-policies (Velero's Restore.spec.resourcePolicy).
type filterFlags struct {
	mappings, includeNS, excludeNS, includeRes, excludeRes, selector string
	orSelector, resourcePolicies                                     string
	clusterResources                                                 optbool.Value
}

// addFilterFlags defines the flags on fs; planOptions reads them once fs is parsed.
func addFilterFlags(fs *flag.FlagSet) *filterFlags {
	ff := &filterFlags{}
	fs.StringVar(&ff.mappings, "namespace-mappings", "", `restore namespaces under other names: comma-separated <backed-up>:<target> pairs ("shop:shop-copy,blog:blog-copy"); no two may share a target`)
	fs.StringVar(&ff.includeNS, "include-namespaces", "*", `comma-separated namespaces of the backup to restore, each a glob ("app-*"); "*": all`)
	fs.StringVar(&ff.excludeNS, "exclude-namespaces", "", "comma-separated namespaces of the backup not to restore, each a glob")
	fs.StringVar(&ff.includeRes, "include-resources", "*", `comma-separated resources to restore, as "<resource>" (any group) or "<resource>.<group>"; "*": all`)
	fs.StringVar(&ff.excludeRes, "exclude-resources", "", "comma-separated resources not to restore, named as for --include-resources; also keeps out the cluster-scoped objects the restored ones need")
	fs.StringVar(&ff.selector, "selector", "", "restore only objects matching this label selector (and the cluster-scoped objects they need)")
	fs.StringVar(&ff.orSelector, "or-selector", "", `restore only objects matching at least one of these label selectors, separated by " or " ("app=web or tier=db"); not with --selector`)
	fs.Var(&ff.clusterResources, "include-cluster-resources", "true: restore every cluster-scoped object; false: none but the Namespaces; unset: all when every namespace is restored, else those the restored objects need (CRDs, ClusterRoles, PriorityClasses, PersistentVolumes, ...)")
	fs.StringVar(&ff.resourcePolicies, "resource-policies", "", "file of Velero's resource policies (YAML: namespacedFilterPolicies, clusterScopedFilterPolicy), or a manifest of the ConfigMap holding them: per namespace or cluster-scoped resource, the resources, labels and names restored, in place of --selector")
	return ff
}

// planOptions checks the flags and returns the plan options they ask for; an error is a
// usage error.
func (ff *filterFlags) planOptions() ([]restore.PlanOption, error) {
	var opts []restore.PlanOption
	mapping, err := restore.ParseNamespaceMapping(ff.mappings)
	if err != nil {
		return nil, fmt.Errorf("--namespace-mappings: %w", err)
	}
	if len(mapping) > 0 {
		opts = append(opts, restore.WithNamespaceMapping(mapping))
	}
	sel, err := labels.Parse(ff.selector)
	if err != nil {
		return nil, fmt.Errorf("--selector: %w", err)
	}
	f := restore.Filter{IncludedNamespaces: splitList(ff.includeNS), ExcludedNamespaces: splitList(ff.excludeNS),
		IncludedResources: splitList(ff.includeRes), ExcludedResources: splitList(ff.excludeRes), IncludeClusterResources: ff.clusterResources.V}
	if len(f.IncludedNamespaces) == 0 || len(f.IncludedResources) == 0 {
		return nil, fmt.Errorf("--include-namespaces and --include-resources must not be empty")
	}
	if ff.selector != "" {
		f.LabelSelector = sel
	}
	if ff.orSelector != "" {
		for i, part := range strings.Split(ff.orSelector, " or ") {
			s, err := labels.Parse(strings.TrimSpace(part))
			if err != nil {
				return nil, fmt.Errorf("--or-selector: selector %d: %w", i+1, err)
			}
			f.OrLabelSelectors = append(f.OrLabelSelectors, s)
		}
	}
	if ff.resourcePolicies != "" {
		if f.ResourcePolicies, err = policies.ReadFile(ff.resourcePolicies); err != nil {
			return nil, fmt.Errorf("--resource-policies: %w", err)
		}
	}
	return append(opts, restore.WithFilter(f)), nil
}

// splitList splits a comma-separated list, dropping blanks.
func splitList(s string) []string {
	var out []string
	for e := range strings.SplitSeq(s, ",") {
		if e = strings.TrimSpace(e); e != "" {
			out = append(out, e)
		}
	}
	return out
}
