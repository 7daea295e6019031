# creativeops — common tasks. Generators are pinned in tools/go.mod.
# The toolchain go.mod names (Go 1.26.8's net/http, crypto/tls, crypto/x509,
# mime/multipart and html/template have known vulnerabilities: make vuln).
# Exported so that a machine whose go.env pins GOTOOLCHAIN=local builds with
# it too; the go command fetches it from the module proxy once.
export GOTOOLCHAIN ?= $(shell sed -n 's/^toolchain //p' go.mod)
GO        ?= go
TOOL      := $(GO) tool -modfile=tools/go.mod
PG_URL    ?= $(CREATIVEOPS_TEST_POSTGRES_URL)

# What binaries are stamped with (creativeops version, the
# creativeops_build_info metric, the image's labels). CI builds with
# -buildvcs=false, so Go's own VCS stamping is not there to rely on.
BUILDINFO := github.com/creativeops/creativeops/internal/buildinfo
ifeq ($(origin COMMIT),undefined)
COMMIT := $(shell c=$$(git rev-parse HEAD 2>/dev/null) && { git diff --quiet HEAD -- 2>/dev/null || c=$$c-dirty; echo $$c; })
endif
# RELEASE is the file VERSION: the last release, or the one being cut
# (docs/versioning.md#cutting-a-release). A build between tags says how far
# past one it is; where no tag is known (a CI clone), it is RELEASE-devel.
RELEASE   := $(shell cat VERSION)
ifeq ($(origin VERSION),undefined)
VERSION := $(shell git describe --tags --match 'v*' --dirty 2>/dev/null || echo v$(RELEASE)-devel)
endif
LDFLAGS    = -X $(BUILDINFO).commit=$(COMMIT) -X $(BUILDINFO).version=$(VERSION)

.PHONY: client-fixtures image check-image release check-release set-version check-breaking test-long check-deploy python-grpc check-python-grpc all generate check-generated check-tidy lint lint-openapi check-openapi-traffic test test-python test-short run build bench bench-read docs bench-cluster bench-isolation bench-scale vuln h2spec fuzz-short clients check-clients test-clients test-browser dashboard check-dashboard test-dashboard

all: generate lint test

## generate: regenerate protobuf/gRPC/gateway/OpenAPI code and ent, and docs
generate:
	$(TOOL) buf generate
	$(GO) run ./internal/genopenapi
	$(GO) generate ./ent
	$(GO) run ./internal/gendocs
	$(GO) run ./internal/genevents

# What make generate writes (internal/genevents: the event types' Go
# constants, TypeScript types and the table in docs/webhooks.md).
GENERATED := gen ent docs/workflows.md docs/webhooks.md events/types.go clients/typescript/src/gen/events.ts

## check-generated: fail if committed generated code is stale
check-generated: generate
	@git diff --exit-code -- $(GENERATED) || (echo "generated code is stale: run 'make generate' and commit" >&2; exit 1)
	@test -z "$$(git status --porcelain -- $(GENERATED))" || (git status --porcelain -- $(GENERATED); echo "untracked generated files: run 'make generate' and commit" >&2; exit 1)
	@if command -v npm >/dev/null; then $(MAKE) --no-print-directory check-clients; else echo "npm not found: TypeScript client freshness not checked" >&2; fi
	@if ! command -v npm >/dev/null; then echo "npm not found: dashboard/dist freshness not checked" >&2; \
	elif [ ! -f dashboard/package.json ]; then echo "no dashboard sources (dashboard/package.json): dashboard/dist freshness not checked" >&2; \
	else $(MAKE) --no-print-directory check-dashboard; fi
	@if command -v grpc_python_plugin >/dev/null && protoc --version 2>/dev/null | grep -q "libprotoc $(PY_PROTOC)\."; then $(MAKE) --no-print-directory check-python-grpc; else echo "protoc $(PY_PROTOC).x or grpc_python_plugin not found (Debian: protobuf-compiler protobuf-compiler-grpc): Python gRPC stubs freshness not checked" >&2; fi

PY_GRPC := clients/python/creativeops/grpc/v1
# The protoc the committed stubs come from (Debian 12's); another version writes other bytes.
PY_PROTOC := 3.21

## python-grpc: regenerate the Python client's gRPC stubs (Debian: protobuf-compiler protobuf-compiler-grpc)
python-grpc:
	$(GO) run ./internal/genpygrpc

## check-python-grpc: fail if the committed Python gRPC stubs are stale
check-python-grpc: python-grpc
	@git diff --exit-code -- $(PY_GRPC) || (echo "Python gRPC stubs are stale: run 'make python-grpc' and commit" >&2; exit 1)
	@test -z "$$(git status --porcelain -- $(PY_GRPC))" || (git status --porcelain -- $(PY_GRPC); echo "untracked Python gRPC stubs: run 'make python-grpc' and commit" >&2; exit 1)

TS_CLIENT := clients/typescript

## clients: regenerate the TypeScript client's protobuf-es code and OpenAPI types (needs Node.js and npm)
clients:
	cd $(TS_CLIENT) && npm ci --no-audit --no-fund --loglevel=error
	rm -rf $(TS_CLIENT)/src/gen
	$(TOOL) buf generate --template $(TS_CLIENT)/buf.gen.yaml
	$(GO) run ./internal/genevents
	cd $(TS_CLIENT) && npx openapi-typescript ../../gen/openapi/openapi.json -o test/openapi/schema.d.ts

## check-clients: fail if the committed generated TypeScript is stale
check-clients: clients
	@git diff --exit-code -- $(TS_CLIENT)/src/gen $(TS_CLIENT)/test/openapi/schema.d.ts || (echo "generated TypeScript is stale: run 'make clients' and commit" >&2; exit 1)
	@test -z "$$(git status --porcelain -- $(TS_CLIENT)/src/gen $(TS_CLIENT)/test/openapi/schema.d.ts)" || (git status --porcelain -- $(TS_CLIENT)/src/gen; echo "untracked generated TypeScript: run 'make clients' and commit" >&2; exit 1)

## test-clients: build the TypeScript client and run its tests against a live server, the browser suite included (needs Node.js, npm and Chromium)
test-clients: client-fixtures
	cd $(TS_CLIENT) && npm ci --no-audit --no-fund --loglevel=error && npm run build && npm run typecheck && npm test

DASHBOARD := dashboard

## dashboard: build the dashboard's UI into dashboard/dist, which the binary embeds (needs Node.js and npm)
dashboard:
	cd $(DASHBOARD) && npm ci --no-audit --no-fund --loglevel=error && npm run build

## check-dashboard: fail if the committed dashboard/dist is not what its sources build
check-dashboard: dashboard
	@git diff --exit-code -- $(DASHBOARD)/dist || (echo "dashboard/dist is stale: run 'make dashboard' and commit" >&2; exit 1)
	@test -z "$$(git status --porcelain -- $(DASHBOARD)/dist)" || (git status --porcelain -- $(DASHBOARD)/dist; echo "untracked dashboard/dist files: run 'make dashboard' and commit" >&2; exit 1)

## test-dashboard: the dashboard's unit tests, then Playwright end to end against a live server in headless Chromium (CHROMIUM=/usr/bin/chromium); screenshots in dashboard/e2e/screenshots
test-dashboard: client-fixtures
	cd $(DASHBOARD) && npm ci --no-audit --no-fund --loglevel=error && npm run typecheck && npm test && npm run e2e

## test-browser: only the TypeScript client's browser suite, in Debian's Chromium (CREATIVEOPS_CHROMIUM to use another)
test-browser:
	cd $(TS_CLIENT) && npm ci --no-audit --no-fund --loglevel=error && npm run build && npm run test:browser

## check-tidy: fail if `go mod tidy` would change go.mod or go.sum of any module in the repository
check-tidy:
	@for m in $$(git ls-files '*go.mod' | xargs -n1 dirname); do \
	  (cd $$m && $(GO) mod tidy -diff >/dev/null) || { (cd $$m && $(GO) mod tidy -diff); echo "go mod tidy changes $$m/go.mod or go.sum: run it there and commit" >&2; exit 1; }; \
	done

## lint: buf lint, go vet and gofmt
lint:
	$(TOOL) buf lint
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); echo "gofmt needed" >&2; exit 1)

## check-openapi-traffic: Stoplight Prism's validating proxy in front of a live server, over every operation (needs Node.js and npm)
check-openapi-traffic:
	cd tools/openapi && npm ci --no-audit --no-fund --loglevel=error
	cd $(TS_CLIENT) && npm ci --no-audit --no-fund --loglevel=error
	$(GO) build -o $(CURDIR)/bin/prism-creativeops ./cmd/creativeops
	CREATIVEOPS_TEST_BINARY=$(CURDIR)/bin/prism-creativeops node tools/openapi/prism.mjs

## lint-openapi: Redocly's recommended rules over the served OpenAPI document (needs Node.js and npm)
lint-openapi:
	cd tools/openapi && npm ci --no-audit --no-fund --loglevel=error && npx redocly lint ../../gen/openapi/openapi.json ../../gen/openapi/webhooks.json

# The suites that start clusters of servers and hold them under load for
# minutes (bench/cluster: failure, soak, cleanup; bench/isolation): CI
# runs them (make test-long); a contributor need not before every commit.
# make test leaves out the same packages, and ./docs, whose samples need the
# built TypeScript client (make test-docs).
LONG_PKGS := ./bench/cluster ./bench/isolation

## test: the tests to run before every commit: every package but the long suites (PostgreSQL ones too when CREATIVEOPS_TEST_POSTGRES_URL is set)
test:
	CREATIVEOPS_TEST_POSTGRES_URL=$(PG_URL) $(GO) test -race -count=1 -timeout 20m $$($(GO) list ./... | grep -Ev '/bench/(cluster|isolation)$$|/docs$$')

## test-long: the long suites left out of make test (clusters, failure, soak, isolation; several minutes), which CI runs too
test-long:
	CREATIVEOPS_TEST_POSTGRES_URL=$(PG_URL) $(GO) test -race -count=1 -timeout 30m $(LONG_PKGS)

## test-docs: run the documentation's runnable samples (<!-- run --> blocks) against live servers (needs bash, curl, jq, openssl, python3, Node.js and npm)
.PHONY: test-docs
test-docs: build
	cd $(TS_CLIENT) && npm ci --no-audit --no-fund --loglevel=error && npm run build
	CREATIVEOPS_TEST_BINARY=$(CURDIR)/bin/creativeops $(GO) test -count=1 ./docs

## check-deploy: lint the Helm chart and decode what it renders strictly (deploy/helm/check), verify the systemd unit
check-deploy: build
	cd deploy/helm/check && $(GO) test -count=1 .
	./scripts/check-systemd bin/creativeops

## test-python: the Python client against a live server (needs Debian's python3-pytest)
test-python: client-fixtures
	pytest-3 -q clients/python/tests

## client-fixtures: certificates and timestamp tokens of local RFC 3161 authorities (openssl ts), written by the Go test into both clients' fixtures/external (git-ignored) for their external-timestamp checks
client-fixtures:
	CREATIVEOPS_WRITE_FIXTURES=1 $(GO) test -count=1 -run '^TestExternalTimestampAuthorities$$' ./cmd/creativeops

## vuln: report known vulnerabilities in the code the module calls (database from the module proxy; see scripts/vuln)
vuln:
	./scripts/vuln

## h2spec: HTTP/2 conformance of the API port, cleartext and TLS, against a bare net/http server in the same run (see scripts/h2spec)
h2spec:
	./scripts/h2spec

## fuzz-short: run every fuzz target for FUZZTIME (default 5s) each
FUZZTIME ?= 5s
fuzz-short:
	FUZZTIME=$(FUZZTIME) ./scripts/fuzz-short

## run: serve on the embedded SQLite database in ./data
run:
	$(GO) run -ldflags "$(LDFLAGS)" ./cmd/creativeops serve

## build: bin/creativeops, stamped with the commit and version
build:
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/creativeops ./cmd/creativeops

# Static binaries (the SQLite driver is pure Go), without paths of the
# machine that built them or debugging information.
STATIC = CGO_ENABLED=0 $(GO) build -trimpath -ldflags "$(LDFLAGS) -s -w"
IMAGE_ARCH ?= amd64
# The commit's time: the same commit gives the same image digest.
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)

## image: the container image as a tarball, bin/creativeops-image.tar (docker/podman load; no daemon needed to build it)
image:
	GOOS=linux GOARCH=$(IMAGE_ARCH) $(STATIC) -o bin/creativeops-linux-$(IMAGE_ARCH) ./cmd/creativeops
	cd deploy/image && SOURCE_DATE_EPOCH=$(SOURCE_DATE_EPOCH) $(GO) run . -binary ../../bin/creativeops-linux-$(IMAGE_ARCH) -arch $(IMAGE_ARCH) \
		-out ../../bin/creativeops-image.tar -tag creativeops:$(or $(VERSION),latest) -version "$(VERSION)" -commit "$(COMMIT)"

## check-image: build the image, check its configuration, and serve /readyz from its unpacked filesystem
check-image: image
	cd deploy/image && CREATIVEOPS_TEST_IMAGE=$(CURDIR)/bin/creativeops-image.tar CREATIVEOPS_TEST_IMAGE_COMMIT="$(COMMIT)" $(GO) test -count=1 -timeout 10m .

RELEASE_PLATFORMS := linux/amd64 linux/arm64 darwin/arm64

# The image of the last release's protos (buf build), which buf breaking
# holds the protos to; make release replaces it when it cuts a new version.
RELEASED_PROTOS = $(wildcard proto/released/*.binpb)

## release: cut v$(RELEASE) (the file VERSION) into dist/: static binaries for $(RELEASE_PLATFORMS), the npm tarball, the Python sdist and wheel, and SHA256SUMS over all; a new version's protos become proto/released/
release: VERSION = v$(RELEASE)
release:
	$(GO) test -count=1 -run TestPackagesCarryVersion .
	@grep -q '^## \[$(RELEASE)\]' CHANGELOG.md || { echo "CHANGELOG.md has no '## [$(RELEASE)]' section: move Unreleased there first (docs/versioning.md#cutting-a-release)" >&2; exit 1; }
	@if t=$$(git rev-parse -q --verify 'refs/tags/v$(RELEASE)^{commit}'); then test "$$t" = "$$(git rev-parse HEAD)" || { echo "v$(RELEASE) is tagged at $$t, not HEAD: make set-version V=... to cut a new release" >&2; exit 1; }; fi
	rm -rf dist && mkdir -p dist
	for p in $(RELEASE_PLATFORMS); do \
		GOOS=$${p%/*} GOARCH=$${p#*/} $(STATIC) -o dist/creativeops-$(VERSION)-$${p%/*}-$${p#*/} ./cmd/creativeops || exit 1; \
	done
	SOURCE_DATE_EPOCH=$(SOURCE_DATE_EPOCH) ./scripts/build-packages dist
	@if [ "$(RELEASED_PROTOS)" != proto/released/v$(RELEASE).binpb ]; then \
		$(MAKE) --no-print-directory check-breaking && rm -f $(RELEASED_PROTOS) && \
		$(TOOL) buf build --exclude-source-info -o proto/released/v$(RELEASE).binpb && \
		echo "proto/released/v$(RELEASE).binpb: the API of v$(RELEASE); commit it with the release"; fi
	cd dist && sha256sum $$(ls | grep -vx SHA256SUMS) > SHA256SUMS && cat SHA256SUMS

## set-version: V=MAJOR.MINOR.PATCH written to VERSION, the npm package and the Python package (the first step of cutting a release)
set-version:
	./scripts/set-version $(V)

## check-release: build the npm and Python packages and install each into an empty directory (npm; Debian's python3 and Python 3.8 where found) for a smoke test (~1 min)
check-release:
	./scripts/check-release

## check-breaking: fail if the protos break compatibility with the last release's (proto/released/); additions pass
check-breaking:
	@test $(words $(RELEASED_PROTOS)) -eq 1 || { echo "proto/released/ holds $(words $(RELEASED_PROTOS)) images; want one, the last release's API" >&2; exit 1; }
	$(TOOL) buf breaking --against $(RELEASED_PROTOS)

## bench: benchmarks (see bench/README.md)
bench:
	$(GO) test -run '^$$' -bench . -benchtime 3s ./bench/...

## bench-read: GET /v1/creators/{id} over REST and gRPC beside bare (the service's read, no chain) and plain (no database) servers, as ratios (~2 min; PostgreSQL too when CREATIVEOPS_TEST_POSTGRES_URL is set)
# The collector runs at GOGC=400, as `creativeops serve` runs it by default
# (docs/deployment.md); GOGC in the environment wins.
bench-read:
	GOGC=$${GOGC:-400} CREATIVEOPS_TEST_POSTGRES_URL=$(PG_URL) $(GO) test -run '^$$' -bench ReadRatio -benchtime 1x ./bench/

## bench-isolation: one organization floods bad input and webhooks while another's p99 and delivery delay are measured, SQLite then PostgreSQL (~5 min); reports in bench/results/isolation-*.md
bench-isolation:
	$(GO) build -o bin/isolation ./bench/isolation && mkdir -p bench/results
	./bin/isolation -db sqlite -out bench/results/isolation-sqlite.md; s=$$?; \
	CREATIVEOPS_TEST_POSTGRES_URL=$(PG_URL) ./bin/isolation -db postgres -out bench/results/isolation-postgres.md; p=$$?; \
	cat bench/results/isolation-sqlite.md bench/results/isolation-postgres.md; test $$s -eq 0 -a $$p -eq 0

## bench-scale: SQLite and PostgreSQL seeded to 10k, 100k and 1M rows of each kind; at each size every endpoint's p50/p99, pages 1 and 100, idle CPU and RSS, the reminder scan, bytes per row, backup and restore; rewrites the scale table of docs/performance.md (~1 h: 28 min SQLite, 35 min PostgreSQL on the 2-core guest; SIZES=10k for a quick pass, SCALE_IDLE=30s shortens the idle windows, SCALE_DB=sqlite one database)
SIZES ?= 10k,100k,1m
SCALE_DB ?= sqlite,postgres
bench-scale:
	CREATIVEOPS_TEST_POSTGRES_URL=$(PG_URL) $(GO) run ./bench/scale -sizes $(SIZES) -db $(SCALE_DB)

## bench-cluster: SQLite, PostgreSQL ×1 and ×3 under the realistic mix; rewrites docs/performance.md (~5 min)
bench-cluster:
	CREATIVEOPS_TEST_POSTGRES_URL=$(PG_URL) $(GO) run ./bench/cluster
