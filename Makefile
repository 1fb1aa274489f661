# AttachmentStore: the two commands people need are `make run` and `make test`.
SWIFT ?= swift
STORE ?= attach-data
CORPUS ?= $(CURDIR)/.cache/corpus
export ATTACH_CORPUS := $(CORPUS)

.PHONY: run test bench bench-smoke deps corpus build clean

## deps: install libvips-dev, libsqlite3-dev and pkg-config with apt-get when missing
deps:
	@scripts/install-deps.sh

## corpus: build the shared corpus of real photos into .cache/corpus (for tests and benchmarks)
corpus:
	@scripts/build-corpus.sh

## build: compile the package (debug)
build: deps
	$(SWIFT) build

## run: build, create the store in ./$(STORE) if needed, and show what it holds
run: deps
	$(SWIFT) build --product attach
	$(SWIFT) run attach init --store $(STORE)
	$(SWIFT) run attach stats --store $(STORE)

## test: install what is missing, build the corpus, run every test
test: deps corpus
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

## bench: measure ingest against cp + sync on the corpus, then the micro-benchmarks
## (package-benchmark, Benchmarks/StoreBenchmarks); write both into BENCHMARKS.md
bench: deps corpus
	$(SWIFT) build -c release --product attach
	scripts/bench-ingest.sh
	SWIFT=$(SWIFT) scripts/bench-micro.sh

## bench-smoke: one short pass of every benchmark, into test-output/ (for CI; its figures are not
## a measurement). Ingest uses the debug build; the micro-benchmarks need a release build.
SMOKE_ENV = BENCH_SMOKE=1 BENCH_OUT=$(CURDIR)/test-output/BENCHMARKS-smoke.md ATTACH_BIN=$(CURDIR)/.build/debug/attach
bench-smoke: deps corpus
	$(SWIFT) build
	mkdir -p test-output
	$(SMOKE_ENV) scripts/bench-ingest.sh > /dev/null
	$(SMOKE_ENV) SWIFT=$(SWIFT) scripts/bench-micro.sh > /dev/null

clean:
	rm -rf .build
