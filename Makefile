# SilentPush — `make run` and `make test` work on a fresh Debian machine: they install the
# Debian packages they need first (as root, or through sudo).

SWIFT ?= $(shell command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)
CONFIG ?= debug
# Extra flags for make test's build and test, e.g. CI's "-Xswiftc -warnings-as-errors".
SWIFT_FLAGS ?=
# Where make install puts bin/, share/man, share/silentpush and the shell completions.
PREFIX ?= /usr/local

# Build: C libraries for nghttp2, OpenSSL, SQLite and jemalloc (silentpushd's allocator). Tests and benchmarks: independent HTTP/2 peers.
BUILD_PACKAGES := pkg-config libnghttp2-dev libssl-dev libsqlite3-dev libjemalloc-dev openssl ca-certificates
PEER_PACKAGES := curl nghttp2-client nghttp2-server python3 chromium haproxy postgresql
# Their Homebrew names, for macOS.
BREW_BUILD_PACKAGES := pkg-config nghttp2 openssl@3 sqlite
BREW_PEER_PACKAGES := curl python chromium haproxy postgresql@15
# Python packages the live tests use (module=package): an APNs client library, and
# schemathesis, which tests the admin API against openapi.yaml.
PYTHON_PACKAGES := aioapns=aioapns schemathesis=schemathesis yaml=pyyaml

.PHONY: run cluster test install uninstall build lint format openapi screenshot docs deps deps-build bench bench-apns bench-policy bench-store bench-broadcast bench-cluster bench-build bench-pushsend fuzz certs clean

run: deps-build
	$(SWIFT) build -c $(CONFIG) --product silentpushd
	$(SWIFT) build -c $(CONFIG) --product pushsend
	.build/$(CONFIG)/silentpushd --listen-channels 127.0.0.1:2195 $(ARGS)

# A cluster on loopback: PostgreSQL, RECEIVERS (3) receivers with SHARDS (8) shards, HAProxy in
# front on the ports make run uses (scripts/cluster.sh; docs/cluster.md). Ctrl-C stops it all.
cluster: deps
	$(SWIFT) build -c $(CONFIG) --product silentpushd
	$(SWIFT) build -c $(CONFIG) --product pushsend
	SILENTPUSHD=.build/$(CONFIG)/silentpushd scripts/cluster.sh

# Then another package depends on SilentPush by version and runs its tests
# (Examples/ConsumerPackage), and last the installed tool is run from / (scripts/test-install.sh),
# installed from the debug build the tests ran (a release build would take as long again as
# the cold build, for nothing the check looks at).
# The tests run one at a time: the live ones hold timings (a reset within the request
# timeout, a timer firing on the system clock) that two cores running every suite at once
# cannot keep.
test: deps
	$(SWIFT) build --build-tests $(SWIFT_FLAGS)
	$(SWIFT) test --no-parallel $(SWIFT_FLAGS)
	SWIFT=$(SWIFT) scripts/test-consumer-package.sh
	MAKE="$(MAKE)" SWIFT=$(SWIFT) INSTALL_CONFIG=debug SWIFT_FLAGS="$(SWIFT_FLAGS)" scripts/test-install.sh

build: deps-build
	$(SWIFT) build -c $(CONFIG)

# Release builds of both tools (INSTALL_CONFIG=debug: debug builds), their man pages
# (swift-argument-parser's generate-manual plugin), completions and the development material
# under PREFIX (scripts/install.sh).
INSTALL_CONFIG ?= release
install: deps-build
	$(SWIFT) build -c $(INSTALL_CONFIG) --product silentpushd $(SWIFT_FLAGS)
	$(SWIFT) build -c $(INSTALL_CONFIG) --product pushsend $(SWIFT_FLAGS)
	$(SWIFT) package $(SWIFT_FLAGS) generate-manual --configuration $(INSTALL_CONFIG)
	scripts/install.sh "$(PREFIX)" .build/$(INSTALL_CONFIG) .build/plugins/GenerateManual/outputs

uninstall:
	scripts/install.sh --uninstall "$(PREFIX)"

# The toolchain's swift-format with .swift-format: `make lint` fails on any drift, `make format` fixes it.
FORMATTED := Sources Tests Benchmarks Fuzz Examples Plugins Package.swift
lint:
	$(SWIFT) format lint --strict --recursive --parallel $(wildcard $(FORMATTED))
	@scripts/install-python-packages.sh yaml=pyyaml
	scripts/openapi.py --check

# The admin API's document: openapi.yaml is the source; the server serves the Swift file made from it.
openapi:
	@scripts/install-python-packages.sh yaml=pyyaml
	scripts/openapi.py

format:
	$(SWIFT) format format --in-place --recursive --parallel $(wildcard $(FORMATTED))

# docs/timeline.png: the timeline page after a scripted run (headless Chromium).
screenshot: deps
	scripts/timeline-screenshot.sh

# DocC for the library products (swift-docc-plugin); fails on any DocC warning.
docs: deps-build
	SWIFT=$(SWIFT) scripts/docs.sh

bench: deps
	Benchmarks/h2load-vs-nghttpd.sh

# The Benchmarks package (Benchmarks/Package.swift) depends on this one by path.
bench-apns: deps-build
	$(SWIFT) run --package-path Benchmarks -c release APNsRequestBenchmark

bench-policy: deps-build
	$(SWIFT) run --package-path Benchmarks -c release WakePolicyBenchmark

bench-store: deps-build
	$(SWIFT) run --package-path Benchmarks -c release StoreWriteBenchmark

bench-broadcast: deps-build
	$(SWIFT) run --package-path Benchmarks -c release BroadcastFanOutBenchmark

# The cluster's figures (docs/benchmarks.md): PostgreSQL against SQLite, HAProxy in front, failover.
bench-cluster: deps
	Benchmarks/cluster-figures.sh

# Builds the Benchmarks package (debug), so CI notices when a change breaks it. In this
# package's build folder, so the dependencies they share are built once (docs/benchmarks.md,
# CI's build steps): only SilentPush's own modules compile again.
bench-build: deps-build
	$(SWIFT) build --package-path Benchmarks --scratch-path .build $(SWIFT_FLAGS)

bench-pushsend: deps
	Benchmarks/pushsend-vs-h2load.sh

# libFuzzer on every parser of outside bytes: FUZZ_SECONDS per target (default 60),
# FUZZ_TARGETS to pick some; crashes land in Fuzz/regressions, which make test replays.
fuzz: deps-build
	SWIFT=$(SWIFT) scripts/fuzz.sh

certs:
	certs/make-dev-certs.sh

ifeq ($(shell uname -s),Darwin)
# macOS (expected to work, not tested; see the README): the same libraries and peers from
# Homebrew. jemalloc is linked on Linux only.
deps-build:
	@brew list $(BREW_BUILD_PACKAGES) >/dev/null 2>&1 || brew install $(BREW_BUILD_PACKAGES)

deps: deps-build
	@brew list $(BREW_PEER_PACKAGES) >/dev/null 2>&1 || brew install $(BREW_PEER_PACKAGES)
	@scripts/install-python-packages.sh $(PYTHON_PACKAGES)
else
deps-build:
	@scripts/install-debian-packages.sh $(BUILD_PACKAGES)

deps:
	@scripts/install-debian-packages.sh $(BUILD_PACKAGES) $(PEER_PACKAGES)
	@scripts/install-python-packages.sh $(PYTHON_PACKAGES)
endif

clean:
	rm -rf .build .build-consumer Examples/ConsumerPackage/.build .silentpush
