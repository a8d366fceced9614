# tokenfare: the front door. `make help` lists the targets.

GO       ?= go
FUZZTIME ?= 10s
BIN      ?= bin
# The CPU profile release builds are optimised with (bench/pgo.sh).
PGO      := cmd/tokenfare/release.pgo
GEN      := ./cmd/tokenfare-gen

# Tools, installed by `go install` at these versions into TOOLBIN when
# missing or of another version.
STATICCHECK_VERSION := v0.8.2
ERRCHECK_VERSION    := v1.30.0
GORELEASER_VERSION  := v2.15.1
TOOLBIN     ?= $(or $(shell $(GO) env GOBIN),$(shell $(GO) env GOPATH)/bin)
STATICCHECK := $(TOOLBIN)/staticcheck
ERRCHECK    := $(TOOLBIN)/errcheck
GORELEASER  := $(TOOLBIN)/goreleaser

# The platforms lint builds for (every package) and releases ship.
PLATFORMS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64

# The packages whose code runs goroutines or shares state between them,
# tested under the race detector; a pattern that matches nothing is skipped.
RACE_PKGS ?= ./ledger/... ./pricing/... ./internal/run/... ./internal/serve/... ./internal/metrics/... ./internal/cli/...

SAMPLE      := testdata/sample/spendlogs-2026-10.csv
SAMPLE_DUMP := testdata/sample/spendlogs-dump-2026-10.csv

.PHONY: help test test-long race hostile bench bench-smoke fuzz lint tools release-check golden build pgo sample bench-reconcile bench-instr bench-instr-groups bench-groups bench-report workbook-preview bench-postgres bench-serve test-citus

PREVIEW ?= preview

help: ## list the targets
	@awk -F':.*## ' '/^[a-z-]+:.*## / {printf "  %-16s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

test: ## the front door: every test once, without the cache, but the long ones (-short; about 80 s on 2 cores)
	$(GO) test -short -count=1 ./...

test-long: ## every test once, the long ones too (spill equivalences, the attack corpus, database sweeps; minutes)
	$(GO) test -count=1 ./...

race: ## run the tests of RACE_PKGS under the race detector (-short: the memory-bound tests skip; internal/cli takes about 8 minutes on 2 cores)
	$(GO) test -race -short -count=1 -timeout 30m $$($(GO) list $(RACE_PKGS) 2>/dev/null)

hostile: ## run the attack corpus (docs/hostile.md) against the built binary, bounded in time and memory
	$(GO) test -count=1 -v -run '^TestHostile$$' ./internal/hostile

bench: ## run every Go benchmark with allocations
	$(GO) test -run='^$$' -bench=. -benchmem ./...

bench-smoke: ## run every benchmark once, so a broken one fails CI
	$(GO) test -run='^$$' -bench=. -benchtime=1x ./...

fuzz: ## run each Fuzz* target for FUZZTIME (default 10s)
	@set -e; for pkg in $$($(GO) list ./...); do \
		for fn in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
			echo "fuzz $$pkg $$fn ($(FUZZTIME))"; \
			$(GO) test -run='^$$' -fuzz="^$$fn\$$" -fuzztime=$(FUZZTIME) $$pkg; \
		done; \
	done

lint: tools ## gofmt, go vet, staticcheck, errcheck (ignores named in .errcheck-exclude), go.mod/go.sum drift, builds for every platform of PLATFORMS
	@out=$$(gofmt -l $$(find . -name '*.go' -not -path './bench/duckdb/node_modules/*')); \
		if [ -n "$$out" ]; then echo "gofmt -l: not formatted:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(STATICCHECK) ./...
	$(ERRCHECK) -exclude .errcheck-exclude -ignoretests ./...
	$(GO) mod tidy -diff
	@set -e; for p in $(PLATFORMS); do \
		echo "GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) build ./..."; \
		GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) build ./...; \
	done

# need-tool BINARY,MODULE,PACKAGE,VERSION: go install PACKAGE@VERSION into
# TOOLBIN unless TOOLBIN/BINARY was built from MODULE at VERSION.
need-tool = $(GO) version -m $(TOOLBIN)/$(1) 2>/dev/null | grep -Eq '^[[:space:]]+mod[[:space:]]+$(2)[[:space:]]+$(4)([[:space:]]|$$)' || \
	{ echo "GOBIN=$(TOOLBIN) $(GO) install $(3)@$(4)"; GOBIN=$(TOOLBIN) $(GO) install $(3)@$(4); }

tools: ## install staticcheck STATICCHECK_VERSION and errcheck ERRCHECK_VERSION into TOOLBIN unless there
	@$(call need-tool,staticcheck,honnef.co/go/tools,honnef.co/go/tools/cmd/staticcheck,$(STATICCHECK_VERSION))
	@$(call need-tool,errcheck,github.com/kisielk/errcheck,github.com/kisielk/errcheck,$(ERRCHECK_VERSION))

# A clone without a remote (a work tree, an offline mirror) is given one in
# the environment: goreleaser asks git for its URL (never fetching it) and
# without one stamps the snapshot "commit none".
RELEASE_ENV := GOPROXY=off GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=remote.origin.url \
	GIT_CONFIG_VALUE_0=https://github.com/tokenfare/tokenfare.git

release-check: ## check .goreleaser.yaml, build a snapshot of every release archive into dist/ offline, run its version, check it is built with the release profile
	@$(call need-tool,goreleaser,github.com/goreleaser/goreleaser/v2,github.com/goreleaser/goreleaser/v2,$(GORELEASER_VERSION))
	$(RELEASE_ENV) $(GORELEASER) check
	$(RELEASE_ENV) $(GORELEASER) release --snapshot --clean --skip=publish
	@set -e; bin=$$(ls dist/tokenfare_$$($(GO) env GOOS)_$$($(GO) env GOARCH)*/tokenfare); \
		got=$$($$bin version); echo "$$bin version: $$got"; \
		case "$$got" in *"commit $$(git rev-parse HEAD), "*) ;; \
		*) echo "the snapshot is not stamped with commit $$(git rev-parse HEAD)"; exit 1;; esac; \
		$(GO) version -m $$bin | grep -q -- '-pgo=release.pgo' || { echo "the snapshot is not built with $(PGO)"; exit 1; }

golden: ## rewrite golden files (packages whose tests define -update)
	@pkgs=$$(grep -rlE --include='*_test.go' 'flag\.Bool(Var)?\(.*"update"' . | xargs -r -n1 dirname | sort -u); \
		if [ -z "$$pkgs" ]; then echo "no test defines -update"; exit 0; fi; \
		echo $(GO) test -count=1 $$pkgs -update; \
		$(GO) test -count=1 $$pkgs -update

build: ## build every package and $(BIN)/tokenfare, optimised as releases are (PGO: cmd/tokenfare/release.pgo)
	$(GO) build ./...
	$(GO) build -pgo=$(PGO) -o $(BIN)/tokenfare ./cmd/tokenfare

pgo: ## profile the benchmarks' workloads into cmd/tokenfare/release.pgo, the profile releases and make build optimise with (about 3 minutes)
	bench/pgo.sh

sample: ## regenerate the bundled sample spend logs
	$(GO) run $(GEN) -rows 12000 -seed 1 -start 2026-10-01T00:00:00Z -days 31 -o $(SAMPLE)
	$(GO) run $(GEN) -rows 1000 -seed 1 -start 2026-10-01T00:00:00Z -days 31 -format dump -o $(SAMPLE_DUMP)

bench-reconcile: ## time tokenfare reconcile against readsum, DuckDB and zcat on 5M rows; peak RSS on 5M and 20M; then bench-groups, gathered into bench/results.md
	bench/run.sh
	bench/groups.sh
	bench/collect.sh

bench-instr: ## count instructions per row of readsum and tokenfare reconcile under valgrind (200k rows): a figure other work on the machine does not change
	bench/instr.sh

bench-instr-groups: ## count instructions a group costs beyond the read under valgrind (1M rows, 244k groups; INSTR_BASELINE=BINARY counts an older build beside): a figure other work on the machine does not change
	BASELINE=$(INSTR_BASELINE) bench/instr-groups.sh

bench-groups: ## time tokenfare reconcile by a few to a million groups (BENCH_CASES=10m: ten million): CPU, peak RSS and their cost per group (bench/groups.md)
	bench/groups.sh

BENCH_ROWS ?= 5000000

bench-postgres: ## time push-down and row mode against a bare scan on BENCH_ROWS rows in a real PostgreSQL (bench/postgres.md, gathered into bench/results.md)
	BENCH_ROWS=$(BENCH_ROWS) bench/postgres.sh
	bench/collect.sh

test-citus: ## given a Citus install (pg_config): a coordinator and two workers against one PostgreSQL, same JSON byte for byte, the plan (bench/citus)
	bench/citus/run.sh

bench-serve: ## time a serve refresh after one more day against a full 28-day blend on BENCH_ROWS rows in PostgreSQL; serve's RSS over 20 batches (bench/serve.md)
	BENCH_ROWS=$(BENCH_ROWS) bench/serve.sh

bench-report: ## time tokenfare report against reconcile on 1M rows (CPU, wall, peak RSS)
	bench/report.sh

workbook-preview: ## the sample month's workbook and FOCUS export, and the workbook as PDF and PNG pages, in $(PREVIEW)/
	@command -v libreoffice >/dev/null && command -v pdftoppm >/dev/null || \
		{ echo "workbook-preview needs the Debian packages libreoffice-calc and poppler-utils"; exit 2; }
	mkdir -p $(PREVIEW)
	rm -f $(PREVIEW)/sample-2026-10*.png
	$(GO) run ./cmd/tokenfare report --calls $(SAMPLE) --month 2026-10 --tz Asia/Shanghai \
		--xlsx $(PREVIEW)/sample-2026-10.xlsx --focus $(PREVIEW)/sample-2026-10-focus.csv --savings
	libreoffice -env:UserInstallation=file://$(abspath $(PREVIEW))/.libreoffice --headless \
		--convert-to pdf --outdir $(PREVIEW) $(PREVIEW)/sample-2026-10.xlsx >/dev/null
	pdftoppm -png -r 80 $(PREVIEW)/sample-2026-10.pdf $(PREVIEW)/sample-2026-10
	@ls $(PREVIEW)/sample-2026-10*
