# creativeops — common tasks. Generators are pinned in tools/go.mod.
GO        ?= go
TOOL      := $(GO) tool -modfile=tools/go.mod
PG_URL    ?= $(CREATIVEOPS_TEST_POSTGRES_URL)

.PHONY: all generate check-generated lint test test-short run build bench docs bench-cluster vuln fuzz-short

all: generate lint test

## generate: regenerate protobuf/gRPC/gateway/OpenAPI code and ent, and docs
generate:
	$(TOOL) buf generate
	$(GO) generate ./ent
	$(GO) run ./internal/gendocs

## check-generated: fail if committed generated code is stale
check-generated: generate
	@git diff --exit-code -- gen ent docs/workflows.md || (echo "generated code is stale: run 'make generate' and commit" >&2; exit 1)
	@test -z "$$(git status --porcelain -- gen ent docs/workflows.md)" || (git status --porcelain -- gen ent docs/workflows.md; echo "untracked generated files: run 'make generate' and commit" >&2; exit 1)

## lint: buf lint, go vet and gofmt
lint:
	$(TOOL) buf lint
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); echo "gofmt needed" >&2; exit 1)

## test: all tests (PostgreSQL ones too when CREATIVEOPS_TEST_POSTGRES_URL is set)
test:
	CREATIVEOPS_TEST_POSTGRES_URL=$(PG_URL) $(GO) test -race -count=1 ./...

## vuln: report known vulnerabilities in the code the module calls (needs vuln.go.dev)
vuln:
	./scripts/vuln

## fuzz-short: run every fuzz target for FUZZTIME (default 5s) each
FUZZTIME ?= 5s
fuzz-short:
	FUZZTIME=$(FUZZTIME) ./scripts/fuzz-short

## run: serve on the embedded SQLite database in ./data
run:
	$(GO) run ./cmd/creativeops serve

build:
	$(GO) build -o bin/creativeops ./cmd/creativeops

## bench: benchmarks (see bench/README.md)
bench:
	$(GO) test -run '^$$' -bench . -benchtime 3s ./bench/...

## bench-cluster: SQLite, PostgreSQL ×1 and ×3 under the realistic mix; rewrites docs/performance.md (~5 min)
bench-cluster:
	CREATIVEOPS_TEST_POSTGRES_URL=$(PG_URL) $(GO) run ./bench/cluster
