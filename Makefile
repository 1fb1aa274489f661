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

## bench: ingest, thumbnails and storage strategies against cp + sync and vipsthumbnail; writes BENCHMARKS.md
bench: deps corpus
	$(SWIFT) build -c release
	scripts/bench-ingest.sh
	scripts/bench-thumbnails.sh
	scripts/bench-storage.sh

## bench-smoke: one short pass of every benchmark with the debug build, into test-output/ (CI runs it)
SMOKE_ENV = BENCH_SMOKE=1 BENCH_OUT=$(CURDIR)/test-output/BENCHMARKS-smoke.md BENCH_CHART=$(CURDIR)/test-output/storage-smoke.svg \
	ATTACH_BIN=$(CURDIR)/.build/debug/attach ATTACH_BENCH_BIN=$(CURDIR)/.build/debug/attach-bench PEAK_RSS_BIN=$(CURDIR)/.build/debug/peak-rss
bench-smoke: deps corpus
	$(SWIFT) build
	mkdir -p test-output
	$(SMOKE_ENV) scripts/bench-ingest.sh > /dev/null
	$(SMOKE_ENV) scripts/bench-thumbnails.sh > /dev/null
	$(SMOKE_ENV) scripts/bench-storage.sh > /dev/null

clean:
	rm -rf .build
