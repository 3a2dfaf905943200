# informer-proxy: plain GNU make, every library through pkg-config.
#
#   make                 build bin/informer-proxy, bin/fake-apiserver
#   make run             install deps, build, start a seeded fake apiserver
#                        with the proxy in front, print how to query it
#   make test            install deps, build, run every test (unit
#                        binaries and e2e modules several at a time)
#   make test-quick      the unit tests and the core e2e modules
#   make SANITIZE=1 test AddressSanitizer + UndefinedBehaviorSanitizer
#   make SANITIZE=thread test-unit   ThreadSanitizer on the unit tests
#   make fuzz            libFuzzer (clang) on each tests/fuzz target for
#                        FUZZ_SECONDS (60) s, or FUZZ_RUNS inputs if
#                        fewer; see docs/FUZZING.md
#   make bench           B1-B16 of docs/PERFORMANCE.md and the JSON library
#                        benchmark; figures land in bench/results.json
#                        (bench/run.sh B14 runs one row alone)
#   make bench-large     B15: a million pods (5.5 GB of LIST), about 3 min;
#                        needs about 15 GB of free memory, refuses without it
#   make soak            1000 watchers, 100 writes/s and an upstream fault
#                        a minute for 10 min (SOAK_SECONDS=N); RSS and fds
#                        before and after; first, test_isolation with
#                        10,000 reads (make test makes 3,000)
#   make image           build/informer-proxy-VERSION.oci.tar: an OCI image
#                        from scratch, offline (umoci; scripts/image.sh),
#                        for linux/amd64 and linux/arm64 (cross-compiled
#                        into build/arm64), reproducible, with an SBOM
#   make format          clang-format every C file (.clang-format)
#   make lint            check the format and the include graph; compile
#                        everything, any warning an error
#   make help            this text

SHELL := /bin/bash
# No built-in rules: make's own "%: %.o" would try to link every included
# dependency file (replay-NAME.d from replay-NAME.d.o, built from the
# fuzz replay rule) before reading it.
MAKEFLAGS += --no-builtin-rules
.SUFFIXES:
# The version object's rule below comes first; a bare `make` builds all.
.DEFAULT_GOAL := all
CC ?= cc
PKGS := libmicrohttpd libcurl liburcu-bp yaml-0.1 openssl gnutls libisal
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
# jsmn is header-only and ships no .pc file; nothing to link.
FAKE_PKGS := libmicrohttpd jansson gnutls zlib
FAKE_CFLAGS = $(shell pkg-config --cflags $(FAKE_PKGS) 2>/dev/null)
FAKE_LIBS = $(shell pkg-config --libs $(FAKE_PKGS) 2>/dev/null)

WARN := -Wall -Wextra -Wshadow -Wno-unused-parameter -Wformat=2 -Wvla
CFLAGS ?= -O2 -g
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE -pthread $(WARN) $(CFLAGS) -I. $(PKG_CFLAGS)
LDLIBS_ALL = $(PKG_LIBS) -pthread -lm

ifeq ($(SANITIZE),1)
MODE := asan
ALL_CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
else ifeq ($(SANITIZE),thread)
MODE := tsan
ALL_CFLAGS += -fsanitize=thread -fno-omit-frame-pointer
LDFLAGS += -fsanitize=thread
else
MODE := release
endif

B := build/$(MODE)
# The arm64 proxy of make image, whatever the mode (see image below).
A := build/arm64
# Binaries land in bin/ whatever the mode; a stamp relinks them when the
# mode changes, so `make SANITIZE=1 test` never runs a stale plain build.
STAMP := build/mode-$(MODE).stamp
$(shell mkdir -p build; [ -f $(STAMP) ] || { rm -f build/mode-*.stamp; touch $(STAMP); })

# The release (VERSION) and the git commit go into config/version.c only;
# its stamp changes with them, so a new commit recompiles one object.
VERSION := $(shell cat VERSION)
GIT_COMMIT := $(shell git rev-parse HEAD 2>/dev/null)
VERSION_STAMP := build/version-$(MODE).stamp
$(shell mkdir -p build; echo '$(VERSION) $(GIT_COMMIT)' | cmp -s - $(VERSION_STAMP) || echo '$(VERSION) $(GIT_COMMIT)' >$(VERSION_STAMP))
$(B)/config/version.o: $(VERSION_STAMP)
$(B)/config/version.o: ALL_CFLAGS += -DINFORMER_PROXY_VERSION='"$(VERSION)"' -DINFORMER_PROXY_COMMIT='"$(GIT_COMMIT)"'

CONFIG_SRC := $(wildcard config/*.c)
CACHE_SRC := $(wildcard cache/*.c)
# proxy/ is the program and its wings: table/, pass/, front/.
PROXY_SRC := $(filter-out proxy/main.c,$(wildcard proxy/*.c proxy/*/*.c))
FAKE_SRC := $(wildcard tests/fake-apiserver/*.c)
# Unit tests mirror the tree: tests/unit/cache/test_store.c tests cache/store.c.
UNIT_SRC := $(wildcard tests/unit/*/test_*.c tests/unit/*/*/test_*.c)
# The fake apiserver's own unit tests live beside it, apart from the product's.
FAKE_UNIT_SRC := $(wildcard tests/fake-apiserver/tests/test_*.c)
LOADGEN_SRC := $(wildcard tests/load/*.c)

obj = $(patsubst %.c,$(B)/%.o,$(1))
LIB_OBJ := $(call obj,$(CONFIG_SRC) $(CACHE_SRC) $(PROXY_SRC))
UNIT_BIN := $(patsubst tests/unit/%.c,$(B)/tests/bin/%,$(UNIT_SRC))
FAKE_UNIT_BIN := $(patsubst tests/fake-apiserver/tests/%.c,$(B)/tests/fake-apiserver/%,$(FAKE_UNIT_SRC))
# Each tests/fuzz/NAME.c but replay.c is a fuzz target; make test runs it
# over its committed corpus as the plain binary fuzz_NAME.
FUZZ_TARGETS := $(patsubst tests/fuzz/%.c,%,$(filter-out tests/fuzz/replay.c,$(wildcard tests/fuzz/*.c)))
FUZZ_REPLAY := $(patsubst %,$(B)/tests/fuzz_%,$(FUZZ_TARGETS))

# Every C file the build knows. make lint compiles them in the build's own
# tree (nothing twice): a compile keeps its diagnostics beside its object
# (NAME.o.warn), and lint fails on any, as -Werror would.
LINT_OBJ := $(call obj,$(CONFIG_SRC) $(CACHE_SRC) $(PROXY_SRC) proxy/main.c $(FAKE_SRC) \
	$(LOADGEN_SRC) $(UNIT_SRC) $(FAKE_UNIT_SRC) bench/static_server.c bench/fanout_ceiling.c) \
	$(B)/proxy/gzip-zlib.o

.PHONY: image
.PHONY: all build deps deps-test deps-fuzz run test test-quick test-build test-unit test-e2e fuzz bench bench-large soak format lint lint-objs lint-checks help clean
# Keep the unit tests' objects: they are intermediate in the pattern rules,
# and make would delete (and so rebuild) them every time.
.SECONDARY:

# The targets a person types run their steps in order (packages first,
# then the compile); each compile is a make of its own with one job per
# CPU, unless the command line already chose -j.
ifndef INNER
.NOTPARALLEL:
endif
JOBS := $(if $(filter -j%,$(MAKEFLAGS)),,-j$(shell nproc 2>/dev/null || echo 2))
SUBMAKE = $(MAKE) --no-print-directory INNER=1 $(JOBS)

all: deps
	@$(SUBMAKE) build
build: bin/informer-proxy bin/fake-apiserver bin/loadgen

deps:
	@scripts/deps.sh build
deps-test:
	@scripts/deps.sh test
	@scripts/deps-clients.sh
deps-fuzz:
	@scripts/deps.sh fuzz

Q := $(if $(V),,@)
$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  CC $<")
	$(Q)$(CC) $(ALL_CFLAGS) $(if $(findstring fake-apiserver,$<)$(findstring tests/fuzz,$<),$(FAKE_CFLAGS)) $(if $(findstring tests/unit/,$<),-Itests/unit) -MMD -MP -c $< -o $@ 2>$@.warn; \
		rc=$$?; cat $@.warn >&2; exit $$rc

bin/informer-proxy: $(B)/proxy/main.o $(LIB_OBJ) $(STAMP)
	@mkdir -p bin
	@$(if $(V),,echo "  LD $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $(filter %.o,$^) $(LDLIBS_ALL)

# The fake apiserver shares only the base utilities, the selector
# parser, the protobuf schema and encoder (with the JSON tokenizer it
# reads through) with the proxy; its store is its own,
# so that a store bug cannot hide in a comparison between the two.
FAKE_LIB_OBJ := $(call obj,$(CONFIG_SRC) cache/selector_label.c cache/selector_field.c $(wildcard cache/pb_*.c) \
	cache/json.c cache/json_index.c cache/json_read.c)
bin/fake-apiserver: $(call obj,$(FAKE_SRC)) $(FAKE_LIB_OBJ) $(STAMP)
	@mkdir -p bin
	@$(if $(V),,echo "  LD $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $(filter %.o,$^) $(FAKE_LIBS) $(LDLIBS_ALL)

# loadgen shares no code with the proxy, so a bug in one cannot hide in
# the other's measurements.
bin/loadgen: $(call obj,$(LOADGEN_SRC)) $(STAMP)
	@mkdir -p bin
	@$(if $(V),,echo "  LD $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $(filter %.o,$^) -pthread -lm

# Reference servers for make bench, always optimized and uninstrumented.
BENCH_BIN := build/bench/static_server build/bench/fanout_ceiling
build/bench/static_server: bench/static_server.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) -std=c11 -D_GNU_SOURCE -pthread $(WARN) -O2 -g $(shell pkg-config --cflags libmicrohttpd) $< -o $@ $(shell pkg-config --libs libmicrohttpd)
build/bench/fanout_ceiling: bench/fanout_ceiling.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) -std=c11 -D_GNU_SOURCE -pthread $(WARN) -O2 -g $< -o $@

# A unit test links what test_NAME_OBJ lists, or else the whole library.
test_selector_label_OBJ = $(FAKE_LIB_OBJ)
test_selector_field_OBJ = $(FAKE_LIB_OBJ)
# proxy/gzip.c on zlib, as the arm64 image has it (proxy/gzip.c says why)
test_gzip_zlib_OBJ = $(filter-out $(B)/proxy/gzip.o,$(LIB_OBJ)) $(B)/proxy/gzip-zlib.o
$(B)/proxy/gzip-zlib.o: proxy/gzip.c $(STAMP)
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  CC $< (zlib)")
	$(Q)$(CC) $(ALL_CFLAGS) -DPROXY_GZIP_ZLIB -MMD -MP -c $< -o $@ 2>$@.warn; \
		rc=$$?; cat $@.warn >&2; exit $$rc
.SECONDEXPANSION:
$(B)/tests/bin/%: $(B)/tests/unit/%.o $$(if $$($$(notdir $$*)_OBJ),$$($$(notdir $$*)_OBJ),$$(LIB_OBJ))
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  LD $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(FAKE_LIBS) $(LDLIBS_ALL)

# A unit test of the fake links the fake (without its main) and what the
# fake shares with the proxy, never the proxy's library.
FAKE_TEST_OBJ = $(FAKE_LIB_OBJ) $(call obj,$(filter-out %/main.c,$(FAKE_SRC)))
$(B)/tests/fake-apiserver/test_%: $(B)/tests/fake-apiserver/tests/test_%.o $(FAKE_TEST_OBJ)
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  LD $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(FAKE_LIBS) $(LDLIBS_ALL)

# The replay main() around a target, told which corpus is its own.
$(B)/tests/fuzz/replay-%.o: tests/fuzz/replay.c
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  CC $< ($*)")
	$(Q)$(CC) $(ALL_CFLAGS) -DFUZZ_NAME='"$*"' -MMD -MP -c $< -o $@
$(B)/tests/fuzz_%: $(B)/tests/fuzz/%.o $(B)/tests/fuzz/replay-%.o $(LIB_OBJ)
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  LD $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(FAKE_LIBS) $(LDLIBS_ALL)

# The protobuf targets drive the fake's decoder too.
PB_FUZZ := pb_decode pb_roundtrip
$(patsubst %,$(B)/tests/fuzz_%,$(PB_FUZZ)): $(call obj,tests/fake-apiserver/fake_proto.c)

TEST_BIN = $(UNIT_BIN) $(FAKE_UNIT_BIN) $(FUZZ_REPLAY)
# test_image packs the arm64 proxy too: cross-compiled here, with the rest.
test-build: build $(TEST_BIN) $(LINT_OBJ) $(A)/bin/informer-proxy

test: deps deps-test
	@$(SUBMAKE) test-build
	@$(MAKE) --no-print-directory lint-checks
	@tests/run.sh $(MODE) $(TEST_BIN)

# The unit tests and the e2e modules that cover the core (list, get,
# watch, the protocol, faults, reloads, clients): the check to run before
# a commit.
QUICK_E2E := test_proxy test_protocol test_consistency test_reflector_faults \
	test_reload test_passthrough test_client_python test_fake
test-quick: deps deps-test
	@$(SUBMAKE) build $(TEST_BIN)
	@tests/run.sh $(MODE) --e2e-modules "$(QUICK_E2E)" $(TEST_BIN)

test-unit: deps deps-test
	@$(SUBMAKE) $(TEST_BIN)
	@tests/run.sh $(MODE) --unit-only $(TEST_BIN)

test-e2e: deps-test all
	@tests/run.sh $(MODE) --e2e-only

# make fuzz: the same targets built by clang with libFuzzer, ASan and
# UBSan, the whole library instrumented too, in build/fuzz whatever the
# mode; tests/fuzz/run.sh runs them one at a time.
FUZZ_SECONDS ?= 60
FUZZ_CC := clang
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FB := build/fuzz
FUZZ_LIB_OBJ := $(patsubst %.c,$(FB)/%.o,$(CONFIG_SRC) $(CACHE_SRC) $(PROXY_SRC))
$(FB)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  CC[fuzz] $<")
	$(Q)$(FUZZ_CC) -std=c11 -D_GNU_SOURCE -pthread $(WARN) -Wno-format-nonliteral -O1 -g -fsanitize=fuzzer-no-link $(FUZZ_SAN) -I. $(PKG_CFLAGS) $(FAKE_CFLAGS) -MMD -MP -c $< -o $@
$(FB)/bin/%: $(FB)/tests/fuzz/%.o $(FUZZ_LIB_OBJ)
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  LD[fuzz] $@")
	$(Q)$(FUZZ_CC) -fsanitize=fuzzer $(FUZZ_SAN) -o $@ $^ $(FAKE_LIBS) $(LDLIBS_ALL)

$(patsubst %,$(FB)/bin/%,$(PB_FUZZ)): $(FB)/tests/fake-apiserver/fake_proto.o

fuzz: deps-fuzz
	@$(MAKE) --no-print-directory $(patsubst %,$(FB)/bin/%,$(FUZZ_TARGETS))
	@FUZZ_RUNS=$(FUZZ_RUNS) FUZZ_FLAGS="$(FUZZ_FLAGS)" tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

run: deps bin/informer-proxy bin/fake-apiserver
	@scripts/run.sh

# The arm64 half of the image: the proxy alone, cross-compiled by
# Debian's aarch64 gcc against Debian's arm64 libraries (scripts/deps.sh
# image installs both), always release, in a tree of its own, $(A) (set
# beside $(B)), so that it never mixes with the native objects.
ARM64_CC := aarch64-linux-gnu-gcc
ARM64_PKG_CONFIG := PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig pkg-config
# zlib's gzip in place of ISA-L's (proxy/gzip.c says why)
ARM64_PKGS := $(filter-out libisal,$(PKGS)) zlib
ARM64_CFLAGS = -std=c11 -D_GNU_SOURCE -pthread $(WARN) -O2 -g -I. -DPROXY_GZIP_ZLIB $(shell $(ARM64_PKG_CONFIG) --cflags $(ARM64_PKGS))
$(A)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  CC[arm64] $<")
	$(Q)$(ARM64_CC) $(ARM64_CFLAGS) -MMD -MP -c $< -o $@
# Its own version stamp: a mode's stamp would recompile it at each change
# of SANITIZE.
$(shell mkdir -p $(A); echo '$(VERSION) $(GIT_COMMIT)' | cmp -s - $(A)/version.stamp || echo '$(VERSION) $(GIT_COMMIT)' >$(A)/version.stamp)
$(A)/config/version.o: $(A)/version.stamp
$(A)/config/version.o: ARM64_CFLAGS += -DINFORMER_PROXY_VERSION='"$(VERSION)"' -DINFORMER_PROXY_COMMIT='"$(GIT_COMMIT)"'
$(A)/bin/informer-proxy: $(patsubst %.c,$(A)/%.o,proxy/main.c $(CONFIG_SRC) $(CACHE_SRC) $(PROXY_SRC))
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  LD[arm64] $@")
	$(Q)$(ARM64_CC) -o $@ $^ $$($(ARM64_PKG_CONFIG) --libs $(ARM64_PKGS)) -pthread -lm

# The image takes the release binary only: a sanitizer build links its
# runtime and is no image to ship. One make image builds both
# architectures and the index that names them.
image: deps
	@[ "$(MODE)" = release ] || { echo "make image: not with SANITIZE" >&2; exit 1; }
	@scripts/deps.sh image
	@$(SUBMAKE) bin/informer-proxy $(A)/bin/informer-proxy
	@scripts/image.sh build/informer-proxy-$(VERSION).oci.tar

bench: all $(BENCH_BIN)
	@scripts/deps.sh bench
	@$(MAKE) --no-print-directory -C bench/json run
	@bench/run.sh

# Not part of bench: it holds about 13 GB while it runs.
bench-large: all $(BENCH_BIN)
	@scripts/deps.sh bench
	@bench/run.sh B15

soak: deps-test all
	@ISOLATION_REQUESTS=10000 /usr/bin/python3 tests/e2e/runner.py test_isolation
	@SOAK_SECONDS=$(or $(SOAK_SECONDS),600) /usr/bin/python3 tests/soak/soak.py

# clang-format is idempotent with .clang-format: a second run changes nothing.
format:
	clang-format -i $$(git ls-files '*.c' '*.h')

LINT_FORMAT = $(shell git ls-files '*.c' '*.h')
lint: deps-test
	@$(SUBMAKE) lint-objs
	@$(MAKE) --no-print-directory lint-checks
lint-objs: $(LINT_OBJ)
lint-checks:
	@echo "  FORMAT (clang-format --dry-run -Werror)"
	$(Q)clang-format --dry-run -Werror $(LINT_FORMAT)
	$(Q)for d in proxy cache config; do scripts/include-graph.sh $$d || exit 1; done
	@echo "  WARNINGS (every object's compile, as -Werror)"
	$(Q)bad=0; for w in $(addsuffix .warn,$(LINT_OBJ)); do \
		if [ ! -f $$w ]; then echo "$$w: missing: compile it first (make lint)"; bad=1; \
		elif [ -s $$w ]; then cat $$w; bad=1; fi; done; exit $$bad

help:
	@sed -n '3,30p' Makefile | sed 's/^# //'

clean:
	rm -rf build bin

-include $(shell find build/$(MODE) build/fuzz build/arm64 -name '*.d' 2>/dev/null)
