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

.PHONY: build
build: ## build bin/dynamopg
	go build -ldflags "-X main.version=$(VERSION)" -o $(BIN)/dynamopg ./cmd/dynamopg

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
