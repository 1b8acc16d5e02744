#!/usr/bin/env bash
# Runs every Go fuzz target in the module for $FUZZTIME each (default 10s; a duration such as
# 2m or a count such as 2000x, as go test -fuzztime takes), one at a time.
# Targets are found, not listed, so a new Fuzz function is covered without editing this file.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime="${FUZZTIME:-10s}"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
found=0
fuzz() { go test -run='^$' -fuzz="^$1\$" -fuzztime="$fuzztime" "$2"; }
while IFS= read -r file; do
	dir="./$(dirname "$file")"
	for target in $(grep -oE '^func (Fuzz[A-Za-z0-9_]+)\(' "$file" | sed -E 's/^func (Fuzz[A-Za-z0-9_]+)\(/\1/'); do
		found=$((found + 1))
		echo "fuzz: $dir $target ($fuzztime)"
		# A duration-bounded run can end in a bare "context deadline exceeded" with nothing
		# found (golang/go#75804, go1.26): run it once more then. A real finding writes its
		# input under testdata/fuzz and fails both times.
		if ! fuzz "$target" "$dir" 2>&1 | tee "$log"; then
			if grep -q 'context deadline exceeded' "$log" && ! grep -q 'Failing input written' "$log"; then
				echo "fuzz: $target: the fuzz coordinator's deadline race (golang/go#75804), once more"
				fuzz "$target" "$dir"
			else
				exit 1
			fi
		fi
	done
done < <(git ls-files '*_test.go' 2>/dev/null | sort || find . -name '*_test.go' | sort)
echo "fuzz: $found targets, $fuzztime each"
