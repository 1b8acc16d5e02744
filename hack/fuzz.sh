#!/usr/bin/env bash
# Runs every Go fuzz target in the module for $FUZZTIME each (default 10s), one at a time.
# Targets are found, not listed, so a new Fuzz function is covered without editing this file.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime="${FUZZTIME:-10s}"
found=0
while IFS= read -r file; do
	dir="./$(dirname "$file")"
	for target in $(grep -oE '^func (Fuzz[A-Za-z0-9_]+)\(' "$file" | sed -E 's/^func (Fuzz[A-Za-z0-9_]+)\(/\1/'); do
		found=$((found + 1))
		echo "fuzz: $dir $target ($fuzztime)"
		go test -run='^$' -fuzz="^${target}\$" -fuzztime="$fuzztime" "$dir"
	done
done < <(git ls-files '*_test.go' 2>/dev/null | sort || find . -name '*_test.go' | sort)
echo "fuzz: $found targets, $fuzztime each"
