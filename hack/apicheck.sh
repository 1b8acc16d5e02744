#!/usr/bin/env bash
# hack/apicheck.sh: compare the exported API of every library package with the record in api/,
# and fail on an incompatible change that CHANGELOG.md does not list.
#
#   hack/apicheck.sh      check (make api-check, part of make test)
#   hack/apicheck.sh -w   write the record for the code as it is (make api-record)
#
# Run from the module's root, or anywhere below it. The record holds two files per package,
# named for its path below the module (the root package: the module's last element,
# "backupkit"; archive/archivetest: "archive_archivetest"):
#   <name>.export  apidiff's export data of the package: what the check compares (binary;
#                  written with -trimpath, so positions name files by import path, not by
#                  where the clone lies)
#   <name>.txt     the package's exported declarations, as `go doc -all` prints them without
#                  their doc comments: what a reviewer reads in a diff
# The packages recorded are those `go list ./...` lists, but internal ones and those under
# examples/ and hack/ (bench/ is a module of its own).
#
# The check passes when every change apidiff calls incompatible is listed, and fails
# otherwise. Listed means: CHANGELOG.md's first section ("## ...") whose heading contains
# "unreleased" (any case) has a subsection "### <package path below the module>" (the
# root package: "### backupkit") holding the changed name in backquotes, as apidiff
# names it ("`New`", "`Backup.Items`" for the method (*Backup).Items), optionally qualified
# with the package's name ("`manifest.New`") and followed by a call ("`manifest.New(...)`").
# Changes apidiff reports of unexported names (an unexported type the API reaches) need no
# entry. A package removed is listed when its subsection says "removed". Compatible
# changes, a package without a record and a stale listing pass, printed, with the advice to
# run `make api-record`.
#
# APIDIFF is the apidiff module and version (the Makefile's APIDIFF, read from there when
# unset); `go install` builds it, from the module cache when it is there (offline).
set -euo pipefail

GO=${GO:-go}
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [ -z "${APIDIFF:-}" ]; then
	APIDIFF="$(sed -n 's/^APIDIFF ?= *//p' "$here/../Makefile")"
fi
if [ -z "$APIDIFF" ]; then
	echo "apicheck: APIDIFF is not set and $here/../Makefile has no 'APIDIFF ?=' line" >&2
	exit 2
fi

write=false
case "${1:-}" in
"") ;;
-w) write=true ;;
*)
	echo "usage: hack/apicheck.sh [-w]" >&2
	exit 2
	;;
esac

gomod="$($GO env GOMOD)"
if [ -z "$gomod" ] || [ "$gomod" = /dev/null ]; then
	echo "apicheck: not in a Go module" >&2
	exit 2
fi
cd "$(dirname "$gomod")"
module="$($GO list -m)"
record=api
changelog=CHANGELOG.md

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
GOBIN="$tmp/bin" $GO install "$APIDIFF"
apidiff="$tmp/bin/apidiff"

# packages prints the import paths recorded, one a line, sorted.
packages() {
	$GO list ./... | grep -v -E "^${module//./\\.}/(examples|hack)(/|$)|/internal(/|$)" | LC_ALL=C sort
}

# name prints the record's file name (without extension) of import path $1.
name() {
	local rel="${1#"$module"}"
	rel="${rel#/}"
	rel="${rel:-${module##*/}}"
	echo "${rel//\//_}"
}

# rel prints import path $1 below the module, as CHANGELOG.md's subsections name it.
rel() {
	local rel="${1#"$module"}"
	rel="${rel#/}"
	echo "${rel:-${module##*/}}"
}

# listing prints the exported declarations of import path $1: `go doc -all` without the
# package's documentation and without doc comments (indented prose, and "//" lines but the
# one that says a struct has unexported fields), blank lines squeezed.
listing() {
	echo "package $1"
	echo
	$GO doc -all "$1" | awk '
		/^(CONSTANTS|VARIABLES|FUNCTIONS|TYPES)$/ { body = 1 }
		!body { next }
		/^    / { next }
		/^[ \t]*\/\// && !/Has unexported fields/ { next }
		/^$/ { if (!blank) print; blank = 1; next }
		{ blank = 0; print }
	'
}

# write_record writes the record of every package into directory $1.
write_record() {
	mkdir -p "$1"
	local p n
	for p in $(packages); do
		n="$(name "$p")"
		GOFLAGS="${GOFLAGS:+$GOFLAGS }-trimpath" "$apidiff" -w "$1/$n.export" "$p"
		listing "$p" >"$1/$n.txt"
	done
}

if $write; then
	rm -rf "$record"
	write_record "$record"
	echo "apicheck: wrote $record/ for $(packages | wc -l) packages"
	exit 0
fi

# unreleased prints the subsection "### $1" of CHANGELOG.md's first unreleased section.
unreleased() {
	[ -f "$changelog" ] || return 0
	awk -v want="### $1" '
		/^## / { if (done) exit; insec = (tolower($0) ~ /unreleased/); if (insec) done = 1; insub = 0; next }
		/^### / { insub = insec && ($0 == want); next }
		insub { print }
	' "$changelog"
}

# listed says whether name $2 of import path $1 is in backquotes in its subsection. grep
# reads its whole input (no -q): under pipefail, a grep that stops at its first match can
# kill awk with SIGPIPE and fail the pipeline at random.
listed() {
	local pkg="${1##*/}" nm="${2//./\\.}"
	unreleased "$(rel "$1")" | grep -E "\`($pkg\\.)?$nm(\\([^\`]*\\))?\`" >/dev/null
}

fail=0
stale=0
declare -A current
for p in $(packages); do
	n="$(name "$p")"
	current[$n]=1
	if [ ! -f "$record/$n.export" ]; then
		echo "apicheck: $p has no record ($record/$n.export): new package?"
		stale=1
		continue
	fi
	out="$("$apidiff" "$record/$n.export" "$p")"
	incompatible="$(awk '/^Incompatible changes:/ { s = 1; next } /^Compatible changes:/ { s = 0; next } s && /^- / { print }' <<<"$out")"
	compatible="$(awk '/^Compatible changes:/ { s = 1; next } /^Incompatible changes:/ { s = 0; next } s && /^- / { print }' <<<"$out")"
	if [ -n "$compatible" ]; then
		echo "apicheck: $p: compatible changes:"
		echo "$compatible"
		stale=1
	fi
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		what="${line#- }"
		nm="${what%%:*}"
		nm="${nm//(\*/}"
		nm="${nm//(/}"
		nm="${nm//)/}"
		if [[ "$nm" =~ ^[a-z_] ]]; then
			# apidiff also reports unexported types the API reaches (an Option's unexported
			# options struct that stopped being comparable): no caller can name them.
			echo "apicheck: $p: incompatible by apidiff, of an unexported name (need not be listed): $what"
			stale=1
		elif listed "$p" "$nm"; then
			echo "apicheck: $p: incompatible, listed in $changelog: $what"
			stale=1
		else
			echo "apicheck: $p: incompatible, NOT listed in $changelog's unreleased section under '### $(rel "$p")' as \`$nm\`: $what"
			fail=1
		fi
	done <<<"$incompatible"
	if [ -f "$record/$n.txt" ] && ! cmp -s <(listing "$p") "$record/$n.txt"; then
		stale=1
	fi
done
for f in "$record"/*.export; do
	[ -e "$f" ] || continue
	n="$(basename "$f" .export)"
	[ -n "${current[$n]:-}" ] && continue
	p="$(head -n 1 "$f")"
	if unreleased "$(rel "$p")" | grep -i 'removed' >/dev/null; then
		echo "apicheck: $p: package removed, listed in $changelog"
		stale=1
	else
		echo "apicheck: $p: package removed, NOT listed in $changelog's unreleased section (a '### $(rel "$p")' subsection saying it was removed)"
		fail=1
	fi
done

if [ "$fail" = 1 ]; then
	echo "apicheck: FAIL: list each incompatible change in $changelog (see hack/apicheck.sh), then run 'make api-record'"
	exit 1
fi
if [ "$stale" = 1 ]; then
	echo "apicheck: ok; the record in $record/ is out of date: run 'make api-record' and commit it"
else
	echo "apicheck: ok; the exported API is as recorded in $record/"
fi
