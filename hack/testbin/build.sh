#!/usr/bin/env bash
# Builds kube-apiserver and etcd from the module pinned in this directory (go.mod + go.sum),
# caches them, and prints the directory holding both on stdout. Everything else goes to stderr.
#
# The cache directory is keyed by the Kubernetes and etcd versions, GOOS, GOARCH and a hash of
# this script, go.mod and go.sum:
#   ${BACKUPKIT_TESTBIN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/backupkit-testbin}/<k8s>-<etcd>-<os>-<arch>-<hash>/
# A hit returns at once. A miss builds into a temporary directory next to it and renames it into
# place, so an interrupted or concurrent build never leaves a half-filled directory behind.
# Cold (empty Go build cache): about 7 CPU-minutes and 2 GB of memory; warm Go cache: seconds.
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
hash="$(cat "$here/build.sh" "$here/go.mod" "$here/go.sum" | sha256sum | cut -c1-12)"

root="${BACKUPKIT_TESTBIN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/backupkit-testbin}"
dir="$root/$k8sver-$etcdver-$goos-$goarch-$hash"
if [[ -x "$dir/kube-apiserver" && -x "$dir/etcd" ]]; then
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
build etcd "$etcdflags" go.etcd.io/etcd/server/v3
log "built in $((SECONDS - start)) s"

if ! mv -T "$tmp" "$dir" 2>/dev/null; then
	# Another build finished first; its binaries come from the same sources.
	[[ -x "$dir/kube-apiserver" && -x "$dir/etcd" ]] || { log "cannot move $tmp to $dir"; exit 1; }
	log "another build filled $dir first; using it"
fi
trap - EXIT
rm -rf "$tmp"
log "cached: $dir"
echo "$dir"
