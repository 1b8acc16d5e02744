# backupkit: every check CI runs is `make test`.
SHELL := /bin/bash
GO ?= go
# Pinned so that nothing needs a manual install; `go run` fetches it through the module proxy.
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
# The same for apidiff, which api-check compares the exported API with (hack/apicheck.sh reads
# this line when run by hand). This version builds with go1.26 (its go.mod says go 1.26.0).
APIDIFF ?= golang.org/x/exp/cmd/apidiff@v0.0.0-20261113113407-e3970619a1a4
# Per fuzz target: a short bounded run in `make test`, a longer one in `make fuzz`. The short
# run is a count of executions, not a duration: go1.26's fuzz coordinator can fail a
# duration-bounded run with a bare "context deadline exceeded" when the time runs out under
# load (golang/go#75804, fixed in go1.27); a count has no deadline to race.
FUZZTIME_SHORT ?= 5000x
FUZZTIME ?= 2m

.PHONY: test api-check api-record generate-check fmt-check no-unsafe loopback-only vet staticcheck testbin s3bin unit unit-newest fuzz-short fuzz bench bench-smoke bench-compare

test: fmt-check generate-check api-check no-unsafe loopback-only vet staticcheck unit unit-newest fuzz-short bench-smoke

fmt-check:
	@out="$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))"; \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# The library reaches its speed by design, not with package unsafe: no Go file outside bench/
# (whose peers are not ours) may import it, tests included.
no-unsafe:
	@out="$$(git grep -l -E '^[[:space:]]*(import[[:space:]]+)?([A-Za-z_.]+[[:space:]]+)?"unsafe"' -- '*.go' ':!bench/' 2>/dev/null)"; \
	if [ -n "$$out" ]; then echo "package unsafe imported (not allowed outside bench/):"; echo "$$out"; exit 1; fi

# Tests reach only loopback and the network namespaces internal/vethns makes: no Go file
# outside internal/vethns looks up this machine's interfaces or listens on all addresses.
loopback-only:
	@out="$$(git grep -n -E 'net\.(Interfaces|InterfaceAddrs|InterfaceByName|InterfaceByIndex)\(|Listen(TCP|UDP|Packet)?\([^)]*"(:|0\.0\.0\.0|\[::\])' -- '*.go' ':!internal/vethns/' 2>/dev/null)"; \
	if [ -n "$$out" ]; then echo "an interface address or all addresses (serve on 127.0.0.1, or on an internal/vethns listener):"; echo "$$out"; exit 1; fi

# The CRDs controller-gen generates from kubebuilder markers (examples/externaljob/crd) must be
# what it writes now: hack/generate-check.sh runs each go:generate controller-gen line into a
# temporary directory and compares.
generate-check:
	bash hack/generate-check.sh

# The exported API of every library package against its record in api/: an incompatible change
# fails unless CHANGELOG.md's unreleased section lists it (hack/apicheck.sh says how);
# compatible changes pass, printed. api-record writes the record for the code as it is.
api-check:
	APIDIFF=$(APIDIFF) GO=$(GO) bash hack/apicheck.sh

api-record:
	APIDIFF=$(APIDIFF) GO=$(GO) bash hack/apicheck.sh -w

vet:
	$(GO) vet ./...

staticcheck:
	$(GO) run $(STATICCHECK) ./...

# The test cluster's binaries (kube-apiserver, etcd, kube-controller-manager, kube-scheduler,
# kwok), built from source and cached (hack/testbin/build.sh prints their directory; a cache
# hit is instant).
testbin:
	bash hack/testbin/build.sh >/dev/null

# versitygw, the S3 server backupstore's and the examples' object-storage tests run against,
# built from source and cached the same way (hack/s3bin/build.sh; its own go.mod pins it).
s3bin:
	bash hack/s3bin/build.sh >/dev/null

unit: testbin s3bin
	BACKUPKIT_TESTBIN="$$(bash hack/testbin/build.sh 2>/dev/null)" BACKUPKIT_S3BIN="$$(bash hack/s3bin/build.sh 2>/dev/null)" $(GO) test -race -count=1 ./...

# go.mod requires the lowest versions the library works with (README.md, "For forks of
# Velero"), so `unit` tests that end; this tests the other. Every test `unit` runs, the live
# ones included (BACKUPKIT_TESTBIN as there), with NEWEST (k8s.io/api, apimachinery,
# client-go and utils at @latest: the newest the module proxy has when it runs) and
# whatever else that raises through MVS and `go mod tidy`. The upgrade is made in a copy of
# go.mod and go.sum in a temporary directory, used with -modfile: the checked-in go.mod and
# go.sum are never changed. It prints the versions it tests. Without -race: `unit` runs the
# race detector over the same tests at the floors, and this run is about the versions.
NEWEST ?= k8s.io/api@latest k8s.io/apimachinery@latest k8s.io/client-go@latest k8s.io/utils@latest
unit-newest: testbin s3bin
	@set -e; tmp="$$(mktemp -d)"; trap 'rm -rf "$$tmp"' EXIT; \
	cp go.mod go.sum "$$tmp/"; \
	$(GO) get -modfile="$$tmp/go.mod" $(NEWEST); \
	$(GO) mod tidy -modfile="$$tmp/go.mod"; \
	echo "unit-newest: testing with" $$($(GO) list -modfile="$$tmp/go.mod" -m k8s.io/api k8s.io/apimachinery k8s.io/client-go k8s.io/utils); \
	BACKUPKIT_TESTBIN="$$(bash hack/testbin/build.sh 2>/dev/null)" BACKUPKIT_S3BIN="$$(bash hack/s3bin/build.sh 2>/dev/null)" $(GO) test -modfile="$$tmp/go.mod" -count=1 ./...

# Packages whose tests start a test cluster in TestMain (readiness, restore) start it for their
# fuzz targets too: the binaries are passed as for the unit tests.
fuzz-short: testbin s3bin
	BACKUPKIT_TESTBIN="$$(bash hack/testbin/build.sh 2>/dev/null)" BACKUPKIT_S3BIN="$$(bash hack/s3bin/build.sh 2>/dev/null)" FUZZTIME=$(FUZZTIME_SHORT) bash hack/fuzz.sh

fuzz: testbin s3bin
	BACKUPKIT_TESTBIN="$$(bash hack/testbin/build.sh 2>/dev/null)" BACKUPKIT_S3BIN="$$(bash hack/s3bin/build.sh 2>/dev/null)" FUZZTIME=$(FUZZTIME) bash hack/fuzz.sh

bench:
	bash hack/bench.sh

# bench/ and bench/order are Go modules of their own (the peers are their dependencies, never the
# library's). The smoke tests run every side-by-side benchmark once at its smallest size; the
# restore benchmark's start kube-apiserver and etcd (with CI=true, missing binaries fail them).
bench-smoke: testbin s3bin
	cd bench && BACKUPKIT_TESTBIN="$$(bash ../hack/testbin/build.sh 2>/dev/null)" BACKUPKIT_S3BIN="$$(bash ../hack/s3bin/build.sh 2>/dev/null)" $(GO) test -count=1 ./...
	cd bench/order && $(GO) test -count=1 ./...

# Side-by-side benchmarks against the peers (about 11 minutes on 2 cores, plus the restore
# section, issue 21: about 30 more); writes bench/RESULTS.md. Not part of `test`.
bench-compare: testbin s3bin
	cd bench && BACKUPKIT_TESTBIN="$$(bash ../hack/testbin/build.sh 2>/dev/null)" BACKUPKIT_S3BIN="$$(bash ../hack/s3bin/build.sh 2>/dev/null)" $(GO) run ./cmd/compare -out RESULTS.md -runs 5
