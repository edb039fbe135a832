# privopt — build, test and demo. See README.md.
GO        ?= go
PKGCONFIG_PATHS := /usr/local/lib/pkgconfig:/usr/local/lib64/pkgconfig:/usr/local/share/pkgconfig
export PKG_CONFIG_PATH := $(PKGCONFIG_PATHS)$(if $(PKG_CONFIG_PATH),:$(PKG_CONFIG_PATH))
export LD_LIBRARY_PATH := /usr/local/lib$(if $(LD_LIBRARY_PATH),:$(LD_LIBRARY_PATH))

.PHONY: all deps build test demo bench fuzz vet clean

all: build

## deps: install HiGHS when pkg-config cannot find it (idempotent), fetch Go modules.
deps:
	@pkg-config --exists highs || bash scripts/install-highs.sh
	@$(GO) mod download

build: deps
	$(GO) build -o bin/privopt ./cmd/privopt

vet: deps
	$(GO) vet ./...

## test: the full test suite (what CI runs), with a throwaway local
## PostgreSQL server (scripts/with-postgres.sh exports PRIVOPT_TEST_PG_URL).
test: deps
	$(GO) vet ./...
	CGO_ENABLED=0 $(GO) build ./noise/ ./accounting/
	bash scripts/with-postgres.sh $(GO) test -timeout 20m ./...

## demo: the main job on a bundled example.
demo: build
	./bin/privopt demo

## bench: Go benchmarks (long sweeps live in bench/, see BENCHMARKS.md).
bench: deps
	$(GO) test -run '^$$' -bench . -benchmem ./...

## fuzz: every fuzz target of every package (go test -list '^Fuzz'), FUZZTIME
## each (default one minute): the parsers (CBF, MATPOWER, …) and the noise
## mechanisms' parameter space. Corpus entries that failed once live under each
## package's testdata/fuzz and run with make test.
FUZZTIME ?= 60s
fuzz: deps
	@set -e; for pkg in $$($(GO) list ./...); do \
		for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
			echo "== $$pkg $$f ($(FUZZTIME))"; \
			$(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg; \
		done; \
	done

clean:
	rm -rf bin
