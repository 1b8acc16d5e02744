#!/usr/bin/env bash
# Builds the test cluster's binaries, caches them, and prints the directory holding them on
# stdout. Everything else goes to stderr. From the module pinned in this directory (go.mod +
# go.sum): kube-apiserver, kube-controller-manager and kube-scheduler of k8s.io/kubernetes, and
# etcd. From the module proxy, at the version pinned below (go.sum's checksum database checks
# the download): kwok, which simulates nodes and pod lifecycles without containers, and
# kwok-stages.yaml, the stages it plays, assembled from that same kwok module's stage files.
#
# The cache directory is keyed by the Kubernetes, etcd and kwok versions, GOOS, GOARCH and a
# hash of this script, go.mod and go.sum:
#   ${BACKUPKIT_TESTBIN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/backupkit-testbin}/<k8s>-<etcd>-kwok<v>-<os>-<arch>-<hash>/
# A hit returns at once. A miss builds into a temporary directory next to it and renames it into
# place, so an interrupted or concurrent build never leaves a half-filled directory behind.
# Cold (empty Go build cache and module cache): 486 s on 2 cores (3.4 GB of build cache,
# 0.8 GB of modules); warm Go cache: a few minutes of linking on 2 cores.
#
# Use: export BACKUPKIT_TESTBIN="$(bash hack/testbin/build.sh)"
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
log() { echo "testbin: $*" >&2; }

modversion() { # module path -> version required in go.mod
	awk -v m="$1" '$1 == m && $2 ~ /^v/ { print $2; exit }' "$here/go.mod"
}
k8sver="$(modversion k8s.io/kubernetes)"
etcdver="$(modversion go.etcd.io/etcd/server/v3)"
if [[ -z "$k8sver" || -z "$etcdver" ]]; then
	log "cannot read the k8s.io/kubernetes and go.etcd.io/etcd/server/v3 versions from $here/go.mod"
	exit 1
fi
goos="$(go env GOOS)"
goarch="$(go env GOARCH)"
# kwok is built with `go install module@version`, outside this module: its go.mod is its own.
kwokver="v0.8.0"
# The stages kwok plays (kwokctl's defaults, and a chaos stage that fails the containers of a
# Pod labelled pod-container-running-failed.stage.kwok.x-k8s.io=true), as paths in its module.
kwokstages=(
	kustomize/stage/node/fast/node-initialize.yaml
	kustomize/stage/node/heartbeat-with-lease/node-heartbeat-with-lease.yaml
	kustomize/stage/pod/fast/pod-ready.yaml
	kustomize/stage/pod/fast/pod-complete.yaml
	kustomize/stage/pod/fast/pod-delete.yaml
	kustomize/stage/pod/chaos/pod-container-running-failed.yaml
)
binaries=(kube-apiserver kube-controller-manager kube-scheduler etcd kwok)
hash="$(cat "$here/build.sh" "$here/go.mod" "$here/go.sum" | sha256sum | cut -c1-12)"

root="${BACKUPKIT_TESTBIN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/backupkit-testbin}"
dir="$root/$k8sver-$etcdver-kwok$kwokver-$goos-$goarch-$hash"
complete() { # dir -> whether it holds every binary and the stages
	local b
	for b in "${binaries[@]}"; do [[ -x "$1/$b" ]] || return 1; done
	[[ -s "$1/kwok-stages.yaml" ]]
}
if complete "$dir"; then
	log "cache hit: $dir"
	echo "$dir"
	exit 0
fi

mkdir -p "$root"
tmp="$(mktemp -d "$root/.build-XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

# The binaries report these through /version; without them kube-apiserver says v0.0.0-master.
k8sminor="${k8sver#v*.}"
k8sminor="${k8sminor%%.*}"
k8smajor="${k8sver#v}"
k8smajor="${k8smajor%%.*}"
builddate="$(cd "$here" && GOWORK=off go list -m -f '{{if .Time}}{{.Time.UTC.Format "2006-01-02T15:04:05Z"}}{{end}}' k8s.io/kubernetes)"
k8sflags=""
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
	k8sflags+=" -X $pkg.gitVersion=$k8sver -X $pkg.gitMajor=$k8smajor -X $pkg.gitMinor=$k8sminor"
	k8sflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=$builddate"
done
etcdflags="-X go.etcd.io/etcd/api/v3/version.GitSHA=$etcdver"

build() { # output name, ldflags, package
	log "building $1 ($3) into $tmp"
	(cd "$here" && GOWORK=off GOFLAGS="${GOFLAGS:-} -mod=readonly" CGO_ENABLED=0 \
		go build -trimpath -ldflags "-s -w $2" -o "$tmp/$1" "$3") >&2
}
start=$SECONDS
build kube-apiserver "$k8sflags" k8s.io/kubernetes/cmd/kube-apiserver
build kube-controller-manager "$k8sflags" k8s.io/kubernetes/cmd/kube-controller-manager
build kube-scheduler "$k8sflags" k8s.io/kubernetes/cmd/kube-scheduler
build etcd "$etcdflags" go.etcd.io/etcd/server/v3
log "building kwok (sigs.k8s.io/kwok/cmd/kwok@$kwokver) into $tmp"
# Run from $tmp so that no go.mod around applies; GOFLAGS' -mod does not apply to module@version.
(cd "$tmp" && GOWORK=off GOFLAGS= GOBIN="$tmp" CGO_ENABLED=0 \
	go install -trimpath -ldflags "-s -w" "sigs.k8s.io/kwok/cmd/kwok@$kwokver") >&2
kwokdir="$(cd "$tmp" && GOWORK=off GOFLAGS= go mod download -json "sigs.k8s.io/kwok@$kwokver" | awk -F'"' '$2 == "Dir" { print $4 }')"
if [[ -z "$kwokdir" ]]; then
	log "cannot find the source of sigs.k8s.io/kwok@$kwokver in the module cache"
	exit 1
fi
for f in "${kwokstages[@]}"; do
	[[ -s "$kwokdir/$f" ]] || { log "sigs.k8s.io/kwok@$kwokver has no stage file $f"; exit 1; }
	{ echo "---"; echo "# from sigs.k8s.io/kwok@$kwokver $f"; cat "$kwokdir/$f"; } >>"$tmp/kwok-stages.yaml"
done
log "built in $((SECONDS - start)) s"

if ! mv -T "$tmp" "$dir" 2>/dev/null; then
	# Another build finished first; its binaries come from the same sources.
	complete "$dir" || { log "cannot move $tmp to $dir"; exit 1; }
	log "another build filled $dir first; using it"
fi
trap - EXIT
rm -rf "$tmp"
log "cached: $dir"
echo "$dir"
