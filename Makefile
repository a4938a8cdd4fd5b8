# clasp: an OCI container runtime that confines AI coding agents.
# `make` builds build/clasp and the hooks; `make check` installs missing
# dependencies (Debian/Ubuntu, as root), builds, and runs every test.

PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
LIBEXECDIR ?= $(PREFIX)/libexec
MANDIR     ?= $(PREFIX)/share/man
DATADIR    ?= $(PREFIX)/share
DESTDIR    ?=
COMPLETIONDIR ?= $(DATADIR)/bash-completion/completions
MAN_PAGES  := $(wildcard docs/man/*.8)
CONTRIB_EXAMPLES := podman/containers.conf.d/clasp.conf containerd/config.toml.d/clasp.toml \
              kubernetes/runtimeclass.yaml kubernetes/example-pod.yaml

CC         ?= cc
BUILD      ?= build
VERSION    := 0.1.0
COMMIT     := $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)

PKGS       := yajl libseccomp libcap
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -lyajl -lseccomp -lcap)

OPT        ?= -O2
WARN       := -Wall -Wextra -Werror -Wno-unused-parameter
CFLAGS     ?=
CFLAGS_ALL := -std=gnu11 $(OPT) -g $(WARN) -D_GNU_SOURCE -Isrc $(PKG_CFLAGS) \
              -DCLASP_VERSION='"$(VERSION)"' -DCLASP_COMMIT='"$(COMMIT)"' \
              -DCLASP_LIBEXECDIR='"$(LIBEXECDIR)/clasp"' $(CFLAGS)
LDFLAGS    ?=

ifeq ($(ASAN),1)
BUILD      := build/asan
OPT        := -O1
CFLAGS_ALL += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS    += -fsanitize=address,undefined
endif

LIB_SRC    := $(filter-out src/main.c,$(wildcard src/*.c src/*/*.c src/*/*/*.c))
LIB_OBJ    := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(LIB_SRC))
EGRESS_SRC := $(wildcard hooks/egress/*.c)
EGRESS_OBJ := $(patsubst hooks/egress/%.c,$(BUILD)/obj/hooks/egress/%.o,$(EGRESS_SRC))
UNIT_SRC   := $(wildcard tests/unit/test_*.c)
UNIT_BIN   := $(patsubst tests/unit/%.c,$(BUILD)/unit/%,$(UNIT_SRC))
HELPER_SRC := $(wildcard tests/helpers/*.c)
HELPER_BIN := $(patsubst tests/helpers/%.c,$(BUILD)/helpers/%,$(HELPER_SRC))

BINS       := $(BUILD)/clasp $(if $(EGRESS_SRC),$(BUILD)/clasp-egress)

.PHONY: all clean check check-cgroup2 check-asan-subset e2e security rootless stress helpers unit integration conformance deps demo install uninstall asan static fuzz lint bench
all: $(BINS)

$(BUILD)/obj/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -MMD -MP -c -o $@ $<

$(BUILD)/obj/hooks/egress/%.o: hooks/egress/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Ihooks/egress -MMD -MP -c -o $@ $<

$(BUILD)/libclasp.a: $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/clasp: $(BUILD)/obj/main.o $(BUILD)/libclasp.a
	$(CC) $(CFLAGS_ALL) -o $@ $< $(BUILD)/libclasp.a $(LDFLAGS) $(PKG_LIBS)

$(BUILD)/clasp-egress: $(EGRESS_OBJ) $(BUILD)/libclasp.a
	$(CC) $(CFLAGS_ALL) -o $@ $(EGRESS_OBJ) $(BUILD)/libclasp.a $(LDFLAGS) $(PKG_LIBS)

$(BUILD)/unit/%: tests/unit/%.c $(BUILD)/libclasp.a $(EGRESS_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Itests/unit -Ihooks/egress -o $@ $< \
	  $(filter-out %/main.o,$(EGRESS_OBJ)) $(BUILD)/libclasp.a $(LDFLAGS) $(PKG_LIBS)

$(BUILD)/helpers/%: tests/helpers/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -o $@ $< $(LDFLAGS) $(PKG_LIBS)

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)

unit: $(UNIT_BIN)
	@set -e; for t in $(UNIT_BIN); do echo "== $$t"; timeout 300 $$t; done

helpers: $(HELPER_BIN)

# Tests run the real binary as root on real bundles. Every bats test has a
# timeout so that nothing can hang CI.
BATS       ?= bats
BATS_FLAGS ?= --timing
export BATS_TEST_TIMEOUT ?= 120
export CLASP ?= $(abspath $(BUILD)/clasp)
export CLASP_EGRESS ?= $(abspath $(BUILD)/clasp-egress)
export CLASP_HELPERS ?= $(abspath $(BUILD)/helpers)

deps:
	@scripts/install-deps.sh test

integration: all helpers
	$(BATS) $(BATS_FLAGS) -r tests/integration

conformance: all helpers
	$(BATS) $(BATS_FLAGS) -r tests/conformance

check: deps
	$(MAKE) all helpers $(UNIT_BIN)
	$(MAKE) unit
	$(MAKE) integration
	$(MAKE) conformance
	$(MAKE) security
	$(MAKE) rootless
	$(BATS) $(BATS_FLAGS) -r tests/stress
	scripts/valgrind.sh
	$(MAKE) check-asan-subset
	$(MAKE) e2e
	$(MAKE) check-cgroup2
	scripts/fuzz.sh 30
	$(MAKE) lint

# clasp run by an unprivileged test user the suite creates (docs/rootless.md).
rootless: all helpers
	$(BATS) $(BATS_FLAGS) -r tests/rootless

# A representative subset under ASan+UBSan (lifecycle, exec, sandbox, proxy,
# error paths); `make check ASAN=1` runs everything against that build.
ASAN_SUBSET := tests/integration/lifecycle.bats tests/integration/exec.bats tests/integration/sandbox.bats \
               tests/integration/egress_container.bats tests/integration/hygiene.bats tests/integration/hooks.bats
check-asan-subset:
	$(MAKE) ASAN=1 all
	CLASP=$(abspath build/asan/clasp) ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 $(BATS) $(BATS_FLAGS) $(ASAN_SUBSET)

# The long forms of the failure-injection and race tests (docs/reliability.md).
stress: all helpers
	STRESS=1 $(BATS) $(BATS_FLAGS) -r tests/stress
	STRESS=1 $(BATS) $(BATS_FLAGS) tests/security/mount_race.bats

# One bats file per known runtime escape class (docs/security.md).
security: all helpers
	$(BATS) $(BATS_FLAGS) -r tests/security

# libFuzzer harnesses (clang), 60 s per target; make check runs 30 s each.
fuzz:
	scripts/fuzz.sh 60

# cppcheck and clang-tidy with the checked-in .clang-tidy: zero findings.
lint:
	scripts/lint.sh

# podman and containerd driving build/clasp (installed by the suites when
# missing; they skip with the reason only when the package cannot be had).
e2e: all helpers
	$(BATS) $(BATS_FLAGS) -r tests/e2e

# Pure cgroup v2 (and an older 6.1 kernel) in a qemu VM: the static binary and
# the cgroup checks in one boot (tests/vm/README.md).
check-cgroup2:
	tests/vm/check-cgroup2.sh

asan:
	$(MAKE) ASAN=1 all

# A static binary for hosts without the libraries. Debian ships yajl's static
# archive as libyajl_s.a, which pkg-config --static does not name.
static:
	$(MAKE) BUILD=build/static LDFLAGS="-static" \
	  PKG_LIBS="$$(pkg-config --static --libs libseccomp libcap | sed 's/-lyajl//') \
	  $$(for d in /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib; do \
	       [ -f $$d/libyajl_s.a ] && echo $$d/libyajl_s.a && break; done)" all

demo: 
	@scripts/install-deps.sh demo
	$(MAKE) all
	@scripts/demo.sh $(abspath $(BUILD)/clasp) build/demo

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBEXECDIR)/clasp $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(COMPLETIONDIR)
	install -m 0755 $(BUILD)/clasp $(DESTDIR)$(BINDIR)/clasp
	$(if $(EGRESS_SRC),install -m 0755 $(BUILD)/clasp-egress $(DESTDIR)$(LIBEXECDIR)/clasp/clasp-egress)
	install -m 0644 $(MAN_PAGES) $(DESTDIR)$(MANDIR)/man8/
	install -m 0644 contrib/completion/clasp.bash $(DESTDIR)$(COMPLETIONDIR)/clasp
	for f in $(CONTRIB_EXAMPLES); do install -D -m 0644 contrib/$$f $(DESTDIR)$(DATADIR)/clasp/$$f || exit 1; done

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/clasp $(DESTDIR)$(LIBEXECDIR)/clasp/clasp-egress
	-rmdir $(DESTDIR)$(LIBEXECDIR)/clasp
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man8/,$(notdir $(MAN_PAGES)))
	rm -f $(DESTDIR)$(COMPLETIONDIR)/clasp
	rm -f $(addprefix $(DESTDIR)$(DATADIR)/clasp/,$(CONTRIB_EXAMPLES))
	-cd $(DESTDIR)$(DATADIR)/clasp 2>/dev/null && rmdir -p $(sort $(dir $(CONTRIB_EXAMPLES))) 2>/dev/null; true
	-rmdir $(DESTDIR)$(DATADIR)/clasp 2>/dev/null; true

clean:
	rm -rf build
