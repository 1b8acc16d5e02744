#!/usr/bin/env bash
# Builds versitygw (an S3 server over a posix directory) for backupstore's live tests,
# caches it, and prints the directory holding it on stdout. Everything else goes to stderr.
# The version is the one pinned in this directory's go.mod (go.sum checks the download); it
# is a module of its own so that versitygw never enters the library's go.mod.
#
# The cache directory is keyed by the versitygw version, GOOS, GOARCH and a hash of this
# script, go.mod and go.sum:
#   ${BACKUPKIT_TESTBIN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/backupkit-testbin}/versitygw<v>-<os>-<arch>-<hash>/
# A hit returns at once. A miss builds into a temporary directory next to it and renames it
# into place, so an interrupted or concurrent build never leaves a half-filled directory.
#
# Use: export BACKUPKIT_S3BIN="$(bash hack/s3bin/build.sh)"
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
log() { echo "s3bin: $*" >&2; }

ver="$(awk '$1 == "require" { $1 = ""; $0 = $0 } $1 == "github.com/versity/versitygw" && $2 ~ /^v/ { print $2; exit }' "$here/go.mod")"
if [[ -z "$ver" ]]; then
	log "cannot read the github.com/versity/versitygw version from $here/go.mod"
	exit 1
fi
goos="$(go env GOOS)"
goarch="$(go env GOARCH)"
hash="$(cat "$here/build.sh" "$here/go.mod" "$here/go.sum" | sha256sum | cut -c1-12)"
root="${BACKUPKIT_TESTBIN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/backupkit-testbin}"
dir="$root/versitygw$ver-$goos-$goarch-$hash"
if [[ -x "$dir/versitygw" ]]; then
	log "cache hit: $dir"
	echo "$dir"
	exit 0
fi

mkdir -p "$root"
tmp="$(mktemp -d "$root/.build-XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
log "building versitygw $ver into $tmp"
start=$SECONDS
(cd "$here" && GOWORK=off GOFLAGS="${GOFLAGS:-} -mod=readonly" CGO_ENABLED=0 \
	go build -trimpath -ldflags "-s -w" -o "$tmp/versitygw" github.com/versity/versitygw/cmd/versitygw) >&2
log "built in $((SECONDS - start)) s"
if ! mv -T "$tmp" "$dir" 2>/dev/null; then
	[[ -x "$dir/versitygw" ]] || { log "cannot move $tmp to $dir"; exit 1; }
	log "another build filled $dir first; using it"
fi
trap - EXIT
rm -rf "$tmp"
log "cached: $dir"
echo "$dir"
