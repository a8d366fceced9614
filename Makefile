# tokenfare: the front door. `make help` lists the targets.

GO       ?= go
FUZZTIME ?= 10s
BIN      ?= bin
# testdata/ is skipped by ./... patterns; the generator has its own tests.
GEN      := ./testdata/gen

SAMPLE      := testdata/sample/spendlogs-2026-10.csv
SAMPLE_DUMP := testdata/sample/spendlogs-dump-2026-10.csv

.PHONY: help test hostile bench bench-smoke fuzz lint golden build sample bench-reconcile bench-groups bench-report workbook-preview bench-postgres

PREVIEW ?= preview

help: ## list the targets
	@awk -F':.*## ' '/^[a-z-]+:.*## / {printf "  %-16s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

test: ## run every test once, without the cache
	$(GO) test -count=1 ./... $(GEN)

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

lint: ## gofmt, go vet, go.mod/go.sum drift, and Windows and macOS builds
	@out=$$(gofmt -l $$(find . -name '*.go' -not -path './bench/duckdb/node_modules/*')); \
		if [ -n "$$out" ]; then echo "gofmt -l: not formatted:"; echo "$$out"; exit 1; fi
	$(GO) vet ./... $(GEN)
	$(GO) mod tidy -diff
	GOOS=windows $(GO) build ./...
	GOOS=darwin $(GO) build ./...

golden: ## rewrite golden files (packages whose tests define -update)
	@pkgs=$$(grep -rlE --include='*_test.go' 'flag\.Bool(Var)?\(.*"update"' . | xargs -r -n1 dirname | sort -u); \
		if [ -z "$$pkgs" ]; then echo "no test defines -update"; exit 0; fi; \
		echo $(GO) test -count=1 $$pkgs -update; \
		$(GO) test -count=1 $$pkgs -update

build: ## build every package and $(BIN)/tokenfare
	$(GO) build ./...
	$(GO) build -o $(BIN)/tokenfare ./cmd/tokenfare

sample: ## regenerate the bundled sample spend logs
	$(GO) run $(GEN) -rows 12000 -seed 1 -start 2026-10-01T00:00:00Z -days 31 -o $(SAMPLE)
	$(GO) run $(GEN) -rows 1000 -seed 1 -start 2026-10-01T00:00:00Z -days 31 -format dump -o $(SAMPLE_DUMP)

bench-reconcile: ## time tokenfare reconcile against readsum, DuckDB and zcat on 5M rows; peak RSS on 5M and 20M; then bench-groups
	bench/run.sh
	bench/groups.sh

bench-groups: ## time tokenfare reconcile by a few to a million groups on 5M rows: CPU, peak RSS and their cost per group (bench/groups.md)
	bench/groups.sh

BENCH_ROWS ?= 5000000

bench-postgres: ## time push-down and row mode against a bare scan on BENCH_ROWS rows in a real PostgreSQL
	TOKENFARE_BENCH_ROWS=$(BENCH_ROWS) $(GO) test -run='^$$' -bench='^BenchmarkScale$$' -benchtime=1x -timeout=3h -v ./ledger/postgres

bench-report: ## time tokenfare report against reconcile on 1M rows (CPU, wall, peak RSS)
	bench/report.sh

workbook-preview: ## the sample month's workbook and FOCUS export, and the workbook as PDF and PNG pages, in $(PREVIEW)/
	@command -v libreoffice >/dev/null && command -v pdftoppm >/dev/null || \
		{ echo "workbook-preview needs the Debian packages libreoffice-calc and poppler-utils"; exit 2; }
	mkdir -p $(PREVIEW)
	rm -f $(PREVIEW)/sample-2026-10*.png
	$(GO) run ./cmd/tokenfare report --calls $(SAMPLE) --month 2026-10 --tz Asia/Shanghai \
		--xlsx $(PREVIEW)/sample-2026-10.xlsx --focus $(PREVIEW)/sample-2026-10-focus.csv
	libreoffice -env:UserInstallation=file://$(abspath $(PREVIEW))/.libreoffice --headless \
		--convert-to pdf --outdir $(PREVIEW) $(PREVIEW)/sample-2026-10.xlsx >/dev/null
	pdftoppm -png -r 80 $(PREVIEW)/sample-2026-10.pdf $(PREVIEW)/sample-2026-10
	@ls $(PREVIEW)/sample-2026-10*
