# AttachmentStore: the two commands people need are `make run` and `make test`.
SWIFT ?= swift
STORE ?= attach-data
CORPUS ?= $(CURDIR)/.cache/corpus
export ATTACH_CORPUS := $(CORPUS)

.PHONY: run test bench deps corpus build clean

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

## bench: measure ingest against cp + sync on the corpus, write BENCHMARKS.md
bench: deps corpus
	$(SWIFT) build -c release --product attach
	scripts/bench-ingest.sh
	scripts/bench-thumbnails.sh

clean:
	rm -rf .build
