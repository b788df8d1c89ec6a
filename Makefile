# pi — build, test and run targets. `make run` and `make test` are the two
# commands a fresh machine needs; everything else is for development.
GO      ?= go
BIN     := bin/pi
UI_BIN  := bin/pi-ui
PLUGINS := $(patsubst %/,%,$(dir $(wildcard plugins/examples/*/main.go)))
# AssemblyScript examples (a package.json next to the manifest); they need npm.
ASPLUGINS := $(patsubst %/,%,$(dir $(wildcard plugins/examples/*/package.json)))

.PHONY: peer all build pi pi-ui helper plugins test run bench bench-side lint fuzz clean interop interop-trust mcp-servers examples-ts

all: build plugins

# pi, its build with the terminal UI (bin/pi-ui) and its confining helper
# (bin/pi-sandbox, started for every sandboxed bash call) share a build
# stamp: pi uses the helper, and hands interactive sessions to pi-ui, only
# when they match.
STAMP   := $(shell date +%s%N)-$(shell git rev-parse --short HEAD 2>/dev/null)
LDFLAGS := -X github.com/piwasm/pi/core/sandbox/confine.buildStamp=$(STAMP)

# Both are static (no cgo): see RATIONALE.md, "pi is static".
# The helper also has its own entry point (cmd/pi-sandbox/entry_linux_*.s),
# which creates the command's namespaces before the Go runtime starts its
# threads, so pi can start the helper with vfork (see docs/sandbox.md). Where
# there is none the helper is linked without it, and pi starts it in
# namespaces it creates itself, with a full fork. The tests that build the
# helper build it through `make helper` (HELPER_OUT=FILE STAMP=), so this is
# the one place its link flags are.
GOOSARCH     := $(shell $(GO) env GOOS GOARCH | paste -sd/ -)
HELPER_ENTRY := $(if $(filter linux/amd64 linux/arm64,$(GOOSARCH)),-E pisandbox_rt0)
HELPER_OUT   ?= bin/pi-sandbox

build: pi pi-ui helper

# bin/pi is built without the interactive terminal UI (tag noui), whose
# packages would be a third of its size and a quarter of the memory of every
# pi -p run (RATIONALE.md, "Two binaries"); it hands interactive sessions to
# bin/pi-ui, the full build. A plain go build ./cmd/pi is the full build.
# The tests that build them build them through these targets
# (BIN=FILE UI_BIN=FILE STAMP=...).
pi:
	CGO_ENABLED=0 $(GO) build -tags noui -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/pi

pi-ui:
	CGO_ENABLED=0 $(GO) build -ldflags "$(LDFLAGS)" -o $(UI_BIN) ./cmd/pi

helper:
	CGO_ENABLED=0 $(GO) build -ldflags "$(LDFLAGS) $(HELPER_ENTRY)" -o $(HELPER_OUT) ./cmd/pi-sandbox

# Each example extension builds into <dir>/<name>.wasm next to its extension.yaml.
plugins:
	@for d in $(PLUGINS); do \
		n=$$(basename $$d); \
		echo "wasm  $$d/$$n.wasm"; \
		GOOS=wasip1 GOARCH=wasm $(GO) build -buildmode=c-shared -buildvcs=false -o $$d/$$n.wasm ./$$d || exit 1; \
	done
	@for d in $(ASPLUGINS); do echo "wasm  $$d/$$(basename $$d).wasm (AssemblyScript)"; done
	@scripts/build-as.sh $(ASPLUGINS)

# What pi writes while the demo and the tests run stays under the clone
# (make clean removes it): the per-project build caches of sandboxed
# commands (XDG_CACHE_HOME; Go's own build cache stays where it is, read
# before the variable moves) and the demo's agent dir (grants, compiled
# extensions, sessions) instead of ~/.pi/agent.
CACHE_ENV = GOCACHE="$$($(GO) env GOCACHE)" XDG_CACHE_HOME="$(CURDIR)/.cache/xdg"
DEMO_ENV  = $(CACHE_ENV) PI_CODING_AGENT_DIR="$(CURDIR)/.cache/demo-agent"

test: build plugins mcp-servers peer
	$(CACHE_ENV) $(GO) test -timeout 30m ./...

# The established harness (npm), which the interop tests run side by side
# with pi, into .cache/bench; without npm or the registry those tests skip.
peer:
	@mkdir -p .cache && bench/peer/install.sh >/dev/null 2>.cache/peer-install.log || \
		echo "skipped: the established harness (npm; see .cache/peer-install.log): the interop tests will skip; run make peer when the npm registry is reachable"

# The MCP project's reference servers (npm), which the MCP tests run, into
# .cache/mcp-servers; without npm the tests that need them skip.
mcp-servers:
	@scripts/mcp-servers.sh .cache/mcp-servers

# Trust decisions written by pi and by the TypeScript pi (when installed,
# as bench/ installs it) are honoured by the other, on one agent directory.
interop-trust: build
	sh scripts/interop-trust.sh

# The main job: a recorded task replayed on a fresh copy of examples/demo
# (no network, no key): the agent runs the failing tests, reads the code,
# fixes it and runs the tests again, with today's tools and extensions.
# Then the prompt that run used, section by section, with where each came from.
DEMO_TASK := The slug tests fail. Find out why, fix it, and run the tests again.
run: build plugins
	@rm -rf .cache/demo && mkdir -p .cache && cp -R examples/demo .cache/demo
	@echo "── replaying examples/recordings/fix-slug.jsonl in .cache/demo (a copy of examples/demo) ──"
	$(DEMO_ENV) $(BIN) -p --approve --grant git-branch --no-session --cwd .cache/demo \
		--model replay:examples/recordings/fix-slug.jsonl --transcript "$(DEMO_TASK)"
	@echo "── the system prompt of that run, section by section ──"
	$(DEMO_ENV) $(BIN) prompt --explain --cwd .cache/demo --approve --grant git-branch

# Go micro-benchmarks, then the side-by-side end-to-end table (installs the
# peer harness into .cache/bench on first use). Never part of `make test`.
bench: build plugins
	$(GO) test -run '^$$' -bench . -benchmem ./...
	@if [ -x bench/e2e.sh ]; then bench/e2e.sh; fi
	bench/side.sh --no-build --others

# The side-by-side table alone (pi, the established harness, Codex CLI and
# Claude Code on the same scripted work; see docs/performance.md).
bench-side: build
	bench/side.sh --no-build --others

# pi and the established harness take turns on one agent dir and one session
# (installs the peer into .cache/bench on first use; needs the npm registry).
interop:
	scripts/interop.sh

fuzz:
	scripts/fuzz.sh

# Cross-compiles for the systems pi ships on (no tests run there): every
# package for linux, darwin, windows and freebsd on amd64 and arm64, and go
# vet (which type-checks the tests too) once per system.
LINT_OS   := linux darwin windows freebsd
LINT_ARCH := amd64 arm64
lint:
	$(GO) vet ./...
	@for os in $(LINT_OS); do for arch in $(LINT_ARCH); do \
		echo "build GOOS=$$os GOARCH=$$arch"; \
		GOOS=$$os GOARCH=$$arch $(GO) build ./... || exit 1; \
	done; done
	@# Tests too must compile everywhere (build skips _test.go files).
	@for os in $(filter-out linux,$(LINT_OS)); do \
		echo "vet GOOS=$$os"; \
		GOOS=$$os $(GO) vet ./... || exit 1; \
	done
	@# linux/arm64 has its own assembly (cmd/pi-sandbox's entry point).
	GOOS=linux GOARCH=arm64 $(GO) vet ./cmd/... ./core/sandbox/...
	@# bin/pi's build without the UI (make build), on every system.
	@for os in $(LINT_OS); do \
		echo "vet -tags noui GOOS=$$os ./cmd/pi"; \
		GOOS=$$os $(GO) vet -tags noui ./cmd/pi || exit 1; \
	done
	GOOS=wasip1 GOARCH=wasm $(GO) vet ./sdk-guest/... ./plugins/examples/... ./host/testdata/guests/... ./cmd/pi/testdata/guests/...
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# Everything make run and make test wrote: binaries, example modules, npm
# installs and .cache/ (the demo copy and its agent dir, sandbox build
# caches, the MCP servers and the established harness). Module caches are
# written read-only, hence the chmod.
clean:
	rm -rf bin
	@[ ! -d .cache ] || chmod -R u+w .cache
	rm -rf .cache
	rm -f plugins/examples/*/*.wasm
	rm -rf plugins/examples/*/node_modules

# The established harness's 78 example extensions, each run in pi -p and in
# that harness against one scripted model (cmd/pi TestEstablishedExamples);
# skipped with one line when the harness is not installed.
examples-ts: build peer
	PI_EXAMPLES_TS=1 PI_BENCH_CACHE=$${PI_BENCH_CACHE:-$(CURDIR)/.cache/bench} PI_EXAMPLES_REPORT=$${PI_EXAMPLES_REPORT:-$(CURDIR)/.cache/examples-ts.md} \
		$(GO) test -count=1 -timeout 30m -run TestEstablishedExamples ./cmd/pi
