# dynamopg: a DynamoDB-compatible server on PostgreSQL (or SQLite).
# `make help` lists the targets.

SQLC_VERSION := v1.31.1
BIN          := $(CURDIR)/bin
SQLC         := $(BIN)/sqlc-$(SQLC_VERSION)
VERSION      ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
GO_TEST_FLAGS ?= -count=1 -timeout 15m

.DEFAULT_GOAL := help

.PHONY: help
help: ## list the targets
	@grep -hE '^[a-zA-Z_-]+:.*?## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*?## "}; {printf "  %-10s %s\n", $$1, $$2}'

.PHONY: run
run: build ## start the server: SQLite file dynamopg.db, port 8000
	$(BIN)/dynamopg serve

# The binary is built without cgo by default (static, no C compiler needed), DWARF or
# symbol table: a cold build takes about 12% less CPU and the binary is a
# third smaller; stack traces and pprof profiles are unchanged. DEBUG=1
# keeps DWARF for debuggers.
ifeq ($(DEBUG),)
BUILD_FLAGS := -gcflags=all=-dwarf=false -ldflags "-s -w -X main.version=$(VERSION)"
else
BUILD_FLAGS := -ldflags "-X main.version=$(VERSION)"
endif

# SQLITE=cgo links SQLite's C library (github.com/mattn/go-sqlite3; needs
# gcc, and a first build compiles SQLite's C source) instead of modernc's
# translation to Go: fewer instructions per item operation, a slower cold
# build and a dynamically linked binary (docs/performance.md, "The SQLite
# driver").
ifeq ($(SQLITE),cgo)
BUILD_ENV   := CGO_ENABLED=1
BUILD_FLAGS += -tags sqlite_cgo
else
BUILD_ENV   := CGO_ENABLED=0
endif

# build prints a progress line every 10 s while packages compile (a first
# build compiles about 350, SQLite's the longest), and nothing when the
# binary is up to date: go build -v names each package as it starts, and a
# ticker's lines keep the count coming through a long one.
.PHONY: build
build: ## build bin/dynamopg
	@{ (while sleep 5; do echo __tick; done) & tick=$$!; \
	  $(BUILD_ENV) go build -v $(BUILD_FLAGS) -o $(BIN)/dynamopg ./cmd/dynamopg 2>&1; echo "__exit $$?"; \
	  kill $$tick 2>/dev/null; } | awk ' \
	  /^__tick$$/ { t += 5; if (n > 0 && t % 10 == 0) printf "  ... %3d s: %d of %d packages compiled, the latest started %s\n", t, n, total, cur; next } \
	  /^__exit / { if (n > 0 && $$2 == 0) printf "built bin/dynamopg in about %d s\n", t; exit $$2 } \
	  /^go: / || / / || /:[0-9]+:/ { print; next } \
	  n++ == 0 { print "building bin/dynamopg: a first build compiles every package (a minute or more on 2 cores); later builds take seconds"; \
	             "go list -deps ./cmd/dynamopg 2>/dev/null | wc -l" | getline total } \
	  { cur = $$0 }'

$(SQLC):
	@mkdir -p $(BIN)
	GOBIN=$(BIN) go install github.com/sqlc-dev/sqlc/cmd/sqlc@$(SQLC_VERSION)
	mv $(BIN)/sqlc $(SQLC)

.PHONY: generate
generate: $(SQLC) ## regenerate gen/ (and sqlitestore's internal/sqlitedb) with sqlc
	$(SQLC) generate

.PHONY: verify-generated
verify-generated: $(SQLC) ## fail when sqlc's output (both drivers) is out of date
	$(SQLC) diff

.PHONY: test
test: verify-generated ## run every test (PostgreSQL: DYNAMOPG_TEST_PG or a throwaway cluster)
	go vet ./...
	go test $(GO_TEST_FLAGS) ./...

.PHONY: e2e
e2e: build ## the tools users bring (AWS CLI walk-through, boto3, JS v3, dynamodb-admin); not part of test
	tests/tools/e2e.sh

.PHONY: bench
bench: bench-tools ## run the benchmark (cmd/dynamobench; BENCH_FLAGS, default '-online-build'; ~20 min), then go test -bench
	go run ./cmd/dynamobench $(BENCH_FLAGS)
	go test -run '^$$' -bench . -benchtime 1x -timeout 30m ./...

BENCH_FLAGS ?= -online-build

# The benchmark's tools: pgbench (the PostgreSQL floor) and node/npm (the
# dynalite peer, installed from npm by dynamobench itself); valgrind only
# for -callgrind. Installed with apt when missing and we are root.
.PHONY: bench-tools
bench-tools: ## install what make bench needs (pgbench, node and npm; Debian, as root)
	@missing=""; \
	command -v pgbench >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/pgbench >/dev/null 2>&1 || missing="$$missing postgresql-client"; \
	command -v node >/dev/null 2>&1 || missing="$$missing nodejs"; \
	command -v npm >/dev/null 2>&1 || missing="$$missing npm"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "bench-tools: installing$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	  else \
	    echo "bench-tools: missing$$missing (dynamobench reports the targets it cannot run)"; \
	  fi; \
	fi

.PHONY: lint
lint: ## gofmt and go vet
	@test -z "$$(gofmt -l $$(git ls-files '*.go' | grep -v '^gen/'))" || (gofmt -l $$(git ls-files '*.go' | grep -v '^gen/'); exit 1)
	go vet ./...

.PHONY: clean
clean: ## remove build outputs
	rm -rf $(BIN)
