# pi — build, test and run targets. `make run` and `make test` are the two
# commands a fresh machine needs; everything else is for development.
GO      ?= go
BIN     := bin/pi
PLUGINS := $(patsubst %/,%,$(dir $(wildcard plugins/examples/*/main.go)))

.PHONY: all build plugins test run bench lint fuzz clean

all: build plugins

build:
	$(GO) build -o $(BIN) ./cmd/pi

# Each example extension builds into <dir>/<name>.wasm next to its extension.yaml.
plugins:
	@for d in $(PLUGINS); do \
		n=$$(basename $$d); \
		echo "wasm  $$d/$$n.wasm"; \
		GOOS=wasip1 GOARCH=wasm $(GO) build -buildmode=c-shared -o $$d/$$n.wasm ./$$d || exit 1; \
	done

test: build plugins
	$(GO) test ./...

run: build plugins
	$(BIN) prompt --explain --cwd examples/demo --approve --grant git-branch

# Go micro-benchmarks, then the side-by-side end-to-end table (installs the
# peer harness into .cache/bench on first use). Never part of `make test`.
bench: build plugins
	$(GO) test -run '^$$' -bench . -benchmem ./...
	@if [ -x bench/e2e.sh ]; then bench/e2e.sh; fi

fuzz:
	scripts/fuzz.sh

lint:
	$(GO) vet ./...
	GOOS=wasip1 GOARCH=wasm $(GO) vet ./sdk-guest/... ./plugins/examples/... ./host/testdata/guests/... ./cmd/pi/testdata/guests/...
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

clean:
	rm -rf bin
	rm -f plugins/examples/*/*.wasm
