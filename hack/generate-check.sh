#!/usr/bin/env bash
# Fails when a checked-in CustomResourceDefinition differs from what controller-gen writes
# from the Go types. Every `//go:generate go run sigs.k8s.io/controller-tools/cmd/controller-gen@...`
# line of the module is run as written but with its output:crd:dir pointed at a temporary
# directory, which is then compared with the checked-in one (files added, lost or changed).
# The work tree is not touched. Regenerate with `go generate ./examples/externaljob`.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
found=0
status=0
while IFS= read -r file; do
	dir="$(dirname "$file")"
	while IFS= read -r line; do
		cmd="${line#//go:generate }"
		out="$(grep -oE 'output:crd:dir=[^ ]+' <<<"$cmd" | head -1)"
		if [ -z "$out" ]; then
			echo "generate-check: $file: a controller-gen line without output:crd:dir=: $cmd" >&2
			status=1
			continue
		fi
		found=$((found + 1))
		rel="${out#output:crd:dir=}"
		want="$dir/${rel#./}"
		got="$tmp/$found"
		mkdir -p "$got"
		# The line holds no quoted arguments, so word splitting gives go run its arguments.
		# shellcheck disable=SC2086
		(cd "$dir" && ${cmd/"$out"/output:crd:dir=$got})
		if ! diff -ru "$want" "$got"; then
			echo "generate-check: $want differs from what controller-gen writes (- checked in, + generated); run go generate ./$dir" >&2
			status=1
		fi
	done < <(grep -E '^//go:generate go run sigs\.k8s\.io/controller-tools/cmd/controller-gen@' "$file")
done < <(git ls-files '*.go' 2>/dev/null || find . -name '*.go')
if [ "$found" -eq 0 ] && [ "$status" -eq 0 ]; then
	echo "generate-check: no controller-gen line found" >&2
	exit 1
fi
exit "$status"
