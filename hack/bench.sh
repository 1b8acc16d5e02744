#!/usr/bin/env bash
# Runs every benchmark in the module once per size with allocation figures.
# Record results with the machine (nproc, CPU model) and this command.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(go version)"
go test -run='^$' -bench="${BENCH:-.}" -benchmem -count="${COUNT:-1}" ./...
