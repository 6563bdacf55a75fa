# corral - process-tree supervisor. See README.md.
#
#   make            build/corral, build/libcorral.a, build/libcorral.so*
#   make install    PREFIX, DESTDIR, BINDIR, LIBDIR, INCLUDEDIR, MANDIR,
#                   DOCDIR, PKGCONFIGDIR, COMPLETIONDIR (GNU defaults
#                   under /usr/local);
#                   make uninstall with the same variables removes it all
#   make deps       install missing Debian packages (or print the command)
#   make test       unit (cmocka) + integration tests; TEST_FILTER=REGEX
#                   runs the tests whose name matches, names as the runner
#                   prints them: unit/test_x, integration/x.sh,
#                   integration/x.sh (unprivileged), integration/x.sh
#                   (kernel: landlock 5) (docs/testing.md)
#   make help       this list
#   make check-layers  tracer/ calls only downward (docs/design.md, "Layers"),
#                   no function over 100 lines without a reason, one
#                   writer per part of struct corral (tests/check-owners.py)
#   make check-deb  build, lint, install and remove the Debian packages (root)
#   make demo       run corral on a small real tree, show tree and journal
#   make asan       build and run the tests under ASan + UBSan
#   make soak       the repetitions make test samples, at soak length
#   make bench      benchmarks (bench/README), make bench-quick for a look

CC      ?= cc
BUILD   ?= build
PKGS    := libseccomp libunwind-ptrace yajl nettle
CFLAGS  ?= -O2 -g
# -fvisibility=hidden: the library exports what include/ declares and
# nothing else (docs/api.md). CPPFLAGS is the caller's (dpkg-buildflags).
# WERROR= builds with warnings as warnings (debian/rules: a newer compiler's
# new warning must not fail a distribution's build); developers keep -Werror.
WERROR  ?= -Werror
override CFLAGS += -std=gnu11 -Wall -Wextra $(WERROR) -Wshadow -Wno-unused-parameter \
           -fPIC -fvisibility=hidden -D_GNU_SOURCE
# The library sees its internal headers; the CLI sees only include/.
# tracer/ is in folders by layer (docs/design.md, "Layers"): each is on
# the include path, so a header is named by its file name alone (the names
# are unique across the folders; tests/check-layers.py checks it).
TRACER_DIRS := $(patsubst %/,%,$(sort $(dir $(wildcard tracer/*/*.[ch]))))
LIB_INC := -Iinclude $(TRACER_DIRS:%=-I%) -Isandbox
TRACER_HDR = $(wildcard tracer/*/*.h tracer/*/*.def)
CLI_INC := -Iinclude -Icli
# What libcorral-journal links: no libseccomp, no libunwind (docs/api.md).
JPKGS   := yajl nettle
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CMOCKA_LIBS = $(shell pkg-config --libs cmocka 2>/dev/null)
override LDLIBS += $(PKG_LIBS)

DEBS := libseccomp-dev libunwind-dev libcmocka-dev bubblewrap pkg-config \
        gcc make jq gojq python3 binutils dpkg-dev debhelper lintian \
        libyajl-dev nettle-dev chromium libssl-dev git strace

LIB_SRC := $(sort $(wildcard tracer/*/*.c sandbox/*.c report/*.c))
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
CLI_SRC := $(wildcard cli/*.c)
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
FIX_SRC := $(wildcard tests/fixtures/*.c)
FIX_BIN := $(FIX_SRC:tests/fixtures/%.c=$(BUILD)/fixtures/%)

# The public headers (docs/api.md, "Headers"): corral.h includes the rest.
PUB_H   := include/corral.h $(sort $(wildcard include/corral/*.h))
# The version (and the SONAME's major) come from include/corral/common.h.
VERSION := $(shell sed -n 's/^\#define CORRAL_VERSION "\(.*\)"/\1/p' include/corral/common.h)
SOMAJOR := $(firstword $(subst ., ,$(VERSION)))
SONAME  := libcorral.so.$(SOMAJOR)
SOFILE  := libcorral.so.$(VERSION)

# libcorral-journal: the journal check and the report alone, for a program
# that reads journals and supervises nothing (docs/api.md, "Two
# libraries"). Its objects are the library's own, the same .o files; the
# link (--no-undefined, without libseccomp and libunwind) fails if one of
# them needs more than these.
JLIB_SRC := tracer/base/abi.c tracer/journal/chain.c tracer/base/grow.c tracer/base/json.c \
	tracer/base/log.c tracer/base/names.c tracer/base/quote.c tracer/base/safe_open.c \
	tracer/journal/verify.c \
	$(wildcard report/*.c)
JLIB_OBJ := $(JLIB_SRC:%.c=$(BUILD)/obj/%.o)
JSONAME  := libcorral-journal.so.$(SOMAJOR)
JSOFILE  := libcorral-journal.so.$(VERSION)

# Installation (GNU names). LIBDIR may be multiarch (debian/rules).
PREFIX       ?= /usr/local
BINDIR       ?= $(PREFIX)/bin
LIBDIR       ?= $(PREFIX)/lib
INCLUDEDIR   ?= $(PREFIX)/include
DATADIR      ?= $(PREFIX)/share
MANDIR       ?= $(DATADIR)/man
DOCDIR       ?= $(DATADIR)/doc/corral
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
COMPLETIONDIR ?= $(DATADIR)/bash-completion/completions
# README.md in DOCDIR, what it links in DOCDIR/docs: its links resolve.
DOCS         := $(wildcard docs/*.md) docs/report-timeline.png docs/corral.1
EXAMPLES     := $(wildcard examples/*.c) examples/Makefile
# Run after (un)installing without DESTDIR, as root; LDCONFIG= to skip.
LDCONFIG     ?= ldconfig

.PHONY: all deps check-deps test soak unit integration demo asan clean format check-layers \
        bench bench-quick install uninstall check-deb print-pkgs

all: $(BUILD)/corral $(BUILD)/libcorral.a $(BUILD)/libcorral.so \
     $(BUILD)/$(SONAME) $(BUILD)/dist/libcorral.a \
     $(BUILD)/libcorral-journal.so $(BUILD)/$(JSONAME) $(BUILD)/dist/libcorral-journal.a

$(BUILD)/obj/cli/%.o: cli/%.c $(PUB_H) $(wildcard cli/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(CLI_INC) -c -o $@ $<

$(BUILD)/obj/%.o: %.c $(PUB_H) $(wildcard sandbox/*.h report/*.h) $(TRACER_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LIB_INC) $(PKG_CFLAGS) -c -o $@ $<

# The report's HTML template (report/timeline.html) is compiled in as a C
# string literal: one line of the file per line of the literal.
$(BUILD)/gen/timeline_html.inc: report/timeline.html
	@mkdir -p $(dir $@)
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $< >$@
$(BUILD)/obj/report/html.o: $(BUILD)/gen/timeline_html.inc
$(BUILD)/obj/report/html.o: override CFLAGS += -I$(BUILD)/gen

# For the CLI and the unit tests, which use internal functions too.
$(BUILD)/libcorral.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

# What is installed: one object whose internal (hidden) symbols are made
# local, so that a program linking it statically cannot clash with them.
$(BUILD)/dist/libcorral.a $(BUILD)/dist/libcorral-journal.a: $(BUILD)/dist/%.a:
	@mkdir -p $(dir $@)
	@rm -f $@
	$(LD) -r -o $(BUILD)/dist/$*.o $^
	objcopy --localize-hidden $(BUILD)/dist/$*.o
	ar rcs $@ $(BUILD)/dist/$*.o
$(BUILD)/dist/libcorral.a: $(LIB_OBJ)
$(BUILD)/dist/libcorral-journal.a: $(JLIB_OBJ)

# The version script lists what include/ gives default visibility (every
# global the objects define that is not hidden, but for the compiler's own
# __* instrumentation), all in one node: CORRAL_0 for libcorral,
# CORRAL_JOURNAL_0 for libcorral-journal. The build stops if anything else
# than corral_* would be exported.
$(BUILD)/libcorral.map: NODE := CORRAL_$(SOMAJOR)
$(BUILD)/libcorral.map: $(LIB_OBJ)
$(BUILD)/libcorral-journal.map: NODE := CORRAL_JOURNAL_$(SOMAJOR)
$(BUILD)/libcorral-journal.map: $(JLIB_OBJ)
$(BUILD)/libcorral.map $(BUILD)/libcorral-journal.map:
	@{ echo "$(NODE) {"; echo "	global:"; \
	  readelf -sW $^ | awk '$$5 == "GLOBAL" && $$6 == "DEFAULT" && \
	    $$7 != "UND" && $$8 !~ /^__/ { print "		" $$8 ";" }' | sort -u; \
	  echo "	local: *;"; echo "};"; } > $@.tmp
	@if grep -v '^CORRAL_\|^	global:\|^	local:\|^};\|^		corral_' $@.tmp; then \
	  echo "$(notdir $@): only corral_* may be exported (see above)"; \
	  rm -f $@.tmp; exit 1; fi
	@mv $@.tmp $@

$(BUILD)/$(SOFILE): $(LIB_OBJ) $(BUILD)/libcorral.map
	$(CC) $(CFLAGS) -shared -Wl,-soname,$(SONAME) \
		-Wl,--version-script,$(BUILD)/libcorral.map -Wl,--no-undefined \
		-o $@ $(LIB_OBJ) $(LDFLAGS) $(LDLIBS)

$(BUILD)/$(SONAME) $(BUILD)/libcorral.so: $(BUILD)/$(SOFILE)
	ln -sfn $(SOFILE) $@

$(BUILD)/$(JSOFILE): $(JLIB_OBJ) $(BUILD)/libcorral-journal.map
	$(CC) $(CFLAGS) -shared -Wl,-soname,$(JSONAME) \
		-Wl,--version-script,$(BUILD)/libcorral-journal.map -Wl,--no-undefined \
		-o $@ $(JLIB_OBJ) $(LDFLAGS) $(shell pkg-config --libs $(JPKGS) 2>/dev/null)

$(BUILD)/$(JSONAME) $(BUILD)/libcorral-journal.so: $(BUILD)/$(JSOFILE)
	ln -sfn $(JSOFILE) $@

$(BUILD)/corral: $(CLI_OBJ) $(BUILD)/libcorral.a
	$(CC) $(CFLAGS) -o $@ $(CLI_OBJ) $(BUILD)/libcorral.a $(LDFLAGS) $(LDLIBS)

# Unit tests link the library and the CLI's option parser (not main), and
# OpenSSL's libcrypto: test_chain checks the chain's HMAC (nettle's
# SHA-256) against OpenSSL's, an independent implementation.
CLI_LIB_OBJ := $(filter-out $(BUILD)/obj/cli/main.o,$(CLI_OBJ))

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libcorral.a $(CLI_LIB_OBJ) $(wildcard tests/unit/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LIB_INC) $(PKG_CFLAGS) -Icli -Itests/unit -o $@ $< $(CLI_LIB_OBJ) $(BUILD)/libcorral.a \
		$(LDFLAGS) $(LDLIBS) $(CMOCKA_LIBS) -lcrypto

# build/tests/corral-testkernel: the CLI, able to believe the kernel offers
# less than it does (no Landlock or an older ABI, no
# PTRACE_GET_SYSCALL_INFO: tests/testkernel/testkernel.h, docs/testing.md),
# so that the suite runs corral's fallback paths on this kernel. The files
# that ask the kernel are compiled again with -DCORRAL_TESTING and linked
# before libcorral.a, whose own copies are then left out. Nothing of it is
# in the library or in build/corral.
TK_SRC := tracer/base/landlock.c tracer/audit/audit.c tracer/stacks/execstack.c
TK_OBJ := $(TK_SRC:%.c=$(BUILD)/obj-testkernel/%.o) $(BUILD)/obj-testkernel/testkernel.o
TESTKERNEL := $(BUILD)/tests/corral-testkernel

$(BUILD)/obj-testkernel/tracer/%.o: tracer/%.c tests/testkernel/testkernel.h \
		$(PUB_H) $(wildcard sandbox/*.h) $(TRACER_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -DCORRAL_TESTING $(LIB_INC) -Itests/testkernel $(PKG_CFLAGS) -c -o $@ $<

$(BUILD)/obj-testkernel/testkernel.o: tests/testkernel/testkernel.c tests/testkernel/testkernel.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(TESTKERNEL): $(CLI_OBJ) $(TK_OBJ) $(BUILD)/libcorral.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $(CLI_OBJ) $(TK_OBJ) $(BUILD)/libcorral.a $(LDFLAGS) $(LDLIBS)

# Fixtures: small real programs the integration tests run. Built without
# frame pointers on purpose: stacks must not depend on them.
$(BUILD)/fixtures/%: tests/fixtures/%.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O1 -g -fomit-frame-pointer -D_GNU_SOURCE -Wall -o $@ $< -lpthread

# Missing Debian packages are installed as root; otherwise the command
# to run is printed and the build stops.
deps:
	@missing=""; for p in $(DEBS); do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then \
	  echo "make deps: installing$$missing"; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing) >/dev/null || exit 1; \
	else \
	  echo "make deps: missing packages; run as root:"; \
	  echo "  apt-get update && apt-get install -y$$missing"; exit 1; \
	fi

# The build is parallel whatever the caller's -j (a newcomer types plain
# `make test`): one job per CPU.
NPROC := $(shell nproc 2>/dev/null || echo 1)

test: deps
	$(MAKE) -j$(NPROC) all
	$(MAKE) -j$(NPROC) $(UNIT_BIN) $(FIX_BIN) $(TESTKERNEL)
	BUILD=$(BUILD) tests/run.sh

# Soak: what make test samples, at soak length (docs/testing.md): the
# instants over bubblewrap's setup (sandbox_setup_window.sh: 300 a way
# instead of 24), the sanitizers' leak checks under corral (sanitizers.sh:
# 50 runs of each threaded case instead of 3), the pidfd race (adv_race.sh:
# 20000 attempts a run instead of 500). Minutes.
soak: deps
	$(MAKE) -j$(NPROC) all
	$(MAKE) -j$(NPROC) $(FIX_BIN)
	SW_RUNS=300 TEST_FILTER='sandbox_setup_window' BUILD=$(BUILD) tests/run.sh integration
	SAN_RUNS=50 TEST_FILTER='sanitizers' BUILD=$(BUILD) tests/run.sh integration
	ADV_RACE_N=20000 TEST_FILTER='adv_race' BUILD=$(BUILD) tests/run.sh integration

# What libcorral links (tests/integration/install_tree.sh checks that
# debian/control names the Debian packages that provide them), and
# libcorral-journal's (JPKGS_ONLY=1).
print-pkgs:
	@echo $(if $(JPKGS_ONLY),$(JPKGS),$(PKGS))

# Installs packages on this machine: CI runs it after make test.
check-deb: deps
	BUILD=$(BUILD) bash tests/package/deb.sh

# The unit tests alone (debian/rules runs them in the package build).
# The layer map is the picture in docs/design.md, "Layers"; what a file
# uses comes from nm on its object and its #includes. make test runs it as
# tests/integration/check_layers.sh, which also breaks it on purpose.
# The second step: no function over 100 lines in tracer/ sandbox/ report/
# cli/ without "/* long: <reason> */" above it (docs/design.md, "Function
# length"; tests/integration/check_functions.sh breaks it on purpose).
check-layers: all
	python3 tests/check-layers.py --build $(BUILD)
	python3 tests/check-functions.py
	python3 tests/check-owners.py

unit: all $(UNIT_BIN) $(FIX_BIN)
	BUILD=$(BUILD) tests/run.sh unit

integration: all $(FIX_BIN) $(TESTKERNEL)
	BUILD=$(BUILD) tests/run.sh integration

# make help: the list at the top of this file.
.PHONY: help
help:
	@sed -n '3,/^$$/p' Makefile | sed 's/^#  \{0,1\}//'

demo: deps
	$(MAKE) all $(FIX_BIN)
	BUILD=$(BUILD) tests/demo.sh

asan:
	$(MAKE) BUILD=build-asan CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
		LDFLAGS="-fsanitize=address,undefined" test

format:
	clang-format -i $(LIB_SRC) $(CLI_SRC) $(UNIT_SRC) $(PUB_H) $(wildcard tracer/*/*.h sandbox/*.h)

# corral.pc and corral-journal.pc from their templates: paths under PREFIX
# are written relative to ${prefix} (pkg-config --define-prefix can relocate
# them), Requires.private is PKGS or JPKGS (what libcorral.a or
# libcorral-journal.a needs). Written straight to their place: install
# writes nothing in $(BUILD), so installs into two DESTDIRs may run at once
# (the install tests run beside the others in make test).
pcpath = $(patsubst $(PREFIX)/%,$${prefix}/%,$(1))
# $(call mkpc,NAME,PKGS): DESTDIR's PKGCONFIGDIR/NAME.pc from NAME.pc.in
mkpc = sed -e 's|@PREFIX@|$(PREFIX)|' \
	    -e 's|@LIBDIR@|$(call pcpath,$(LIBDIR))|' \
	    -e 's|@INCLUDEDIR@|$(call pcpath,$(INCLUDEDIR))|' \
	    -e 's|@VERSION@|$(VERSION)|' -e 's|@PKGS@|$(2)|' \
	    $(1).pc.in > $(DESTDIR)$(PKGCONFIGDIR)/$(1).pc && \
	chmod 0644 $(DESTDIR)$(PKGCONFIGDIR)/$(1).pc

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) \
		$(DESTDIR)$(INCLUDEDIR)/corral $(DESTDIR)$(PKGCONFIGDIR) \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(DOCDIR)/examples \
		$(DESTDIR)$(DOCDIR)/docs $(DESTDIR)$(COMPLETIONDIR)
	install -m 0755 $(BUILD)/corral $(DESTDIR)$(BINDIR)/corral
	install -m 0644 $(BUILD)/$(SOFILE) $(DESTDIR)$(LIBDIR)/$(SOFILE)
	ln -sfn $(SOFILE) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sfn $(SONAME) $(DESTDIR)$(LIBDIR)/libcorral.so
	install -m 0644 $(BUILD)/dist/libcorral.a $(DESTDIR)$(LIBDIR)/libcorral.a
	install -m 0644 $(BUILD)/$(JSOFILE) $(DESTDIR)$(LIBDIR)/$(JSOFILE)
	ln -sfn $(JSOFILE) $(DESTDIR)$(LIBDIR)/$(JSONAME)
	ln -sfn $(JSONAME) $(DESTDIR)$(LIBDIR)/libcorral-journal.so
	install -m 0644 $(BUILD)/dist/libcorral-journal.a $(DESTDIR)$(LIBDIR)/libcorral-journal.a
	install -m 0644 include/corral.h $(DESTDIR)$(INCLUDEDIR)/corral.h
	install -m 0644 $(wildcard include/corral/*.h) $(DESTDIR)$(INCLUDEDIR)/corral/
	$(call mkpc,corral,$(PKGS))
	$(call mkpc,corral-journal,$(JPKGS))
	install -m 0644 docs/corral.1 $(DESTDIR)$(MANDIR)/man1/corral.1
	install -m 0644 README.md $(DESTDIR)$(DOCDIR)/README.md
	install -m 0644 $(DOCS) $(DESTDIR)$(DOCDIR)/docs/
	install -m 0644 completion/corral.bash $(DESTDIR)$(COMPLETIONDIR)/corral
	install -m 0644 $(EXAMPLES) $(DESTDIR)$(DOCDIR)/examples/
	$(if $(LDCONFIG),@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ]; then $(LDCONFIG); fi)

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/corral \
	      $(DESTDIR)$(LIBDIR)/$(SOFILE) $(DESTDIR)$(LIBDIR)/$(SONAME) \
	      $(DESTDIR)$(LIBDIR)/libcorral.so $(DESTDIR)$(LIBDIR)/libcorral.a \
	      $(DESTDIR)$(LIBDIR)/$(JSOFILE) $(DESTDIR)$(LIBDIR)/$(JSONAME) \
	      $(DESTDIR)$(LIBDIR)/libcorral-journal.so $(DESTDIR)$(LIBDIR)/libcorral-journal.a \
	      $(DESTDIR)$(PKGCONFIGDIR)/corral-journal.pc \
	      $(DESTDIR)$(INCLUDEDIR)/corral.h $(DESTDIR)$(PKGCONFIGDIR)/corral.pc \
	      $(addprefix $(DESTDIR)$(INCLUDEDIR)/,$(patsubst include/%,%,$(wildcard include/corral/*.h))) \
	      $(DESTDIR)$(MANDIR)/man1/corral.1 $(DESTDIR)$(COMPLETIONDIR)/corral
	rm -f $(DESTDIR)$(DOCDIR)/README.md \
	      $(addprefix $(DESTDIR)$(DOCDIR)/docs/,$(notdir $(DOCS))) \
	      $(addprefix $(DESTDIR)$(DOCDIR)/examples/,$(notdir $(EXAMPLES)))
	rmdir $(DESTDIR)$(DOCDIR)/examples $(DESTDIR)$(DOCDIR)/docs \
	      $(DESTDIR)$(DOCDIR) $(DESTDIR)$(INCLUDEDIR)/corral 2>/dev/null || true
	$(if $(LDCONFIG),@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ]; then $(LDCONFIG); fi)

clean:
	rm -rf build build-asan

-include bench/bench.mk

# make fuzz also runs the report's libFuzzer target (fuzz/fuzz_report.c):
# the journal reader and every writer of `corral report`, with ASan+UBSan,
# asserting that no journal byte reaches the terminal or Markdown outputs
# raw; seeds in fuzz/report-seeds/, a dictionary in fuzz/report.dict.
REPORT_FUZZ := $(BUILD)/fuzz/fuzz_report
REPORT_FUZZ_SECONDS ?= 60
# The reader calls the journal's chain check, which pulls in most of the
# library: the whole library is built into the target (with clang).
$(REPORT_FUZZ): fuzz/fuzz_report.c $(LIB_SRC) $(wildcard report/*.h sandbox/*.h) \
		$(TRACER_HDR) $(PUB_H) \
		$(BUILD)/gen/timeline_html.inc
	@mkdir -p $(dir $@)
	clang -std=gnu11 -g -O1 -D_GNU_SOURCE $(LIB_INC) -I$(BUILD)/gen \
		$(PKG_CFLAGS) -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=all -o $@ fuzz/fuzz_report.c $(LIB_SRC) \
		$(PKG_LIBS)

.PHONY: fuzz fuzz-report
fuzz-report: all $(REPORT_FUZZ)
	@mkdir -p $(BUILD)/fuzz/report-corpus
	$(BUILD)/corral run -q -j $(BUILD)/fuzz/report-corpus/seed.jsonl -- \
		sh -c 'ls / >/dev/null; (sleep 9 &); exit 3' || true
	python3 tests/integration/report_gen.py 200 5 >$(BUILD)/fuzz/report-corpus/storm.jsonl
	cp fuzz/report-seeds/* $(BUILD)/fuzz/report-corpus/
	$(REPORT_FUZZ) -max_total_time=$(REPORT_FUZZ_SECONDS) -max_len=65536 \
		-timeout=10 -dict=fuzz/report.dict \
		-artifact_prefix=$(BUILD)/fuzz/ $(BUILD)/fuzz/report-corpus
fuzz: fuzz-report

# make fuzz: the libFuzzer target for the journal reader (fuzz/), built
# with clang (ASan + UBSan) and run for FUZZ_SECONDS. Not part of make test
# nor of CI; its packages are FUZZ_DEBS (apt-get install them by hand).
FUZZ_DEBS    := clang libclang-rt-14-dev
FUZZ_SECONDS ?= 60
FUZZ_CC      ?= clang
FUZZ_DIR     := $(BUILD)/fuzz

VERIFY_FUZZ_SRC := tracer/journal/chain.c tracer/base/json.c tracer/base/grow.c \
		   tracer/base/log.c tracer/base/safe_open.c
$(FUZZ_DIR)/verify_fuzz: fuzz/verify_fuzz.c $(VERIFY_FUZZ_SRC) $(PUB_H) $(TRACER_HDR)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -std=gnu11 -g -O1 -D_GNU_SOURCE $(LIB_INC) \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		-o $@ fuzz/verify_fuzz.c $(VERIFY_FUZZ_SRC) -lnettle

# make fuzz runs this one too (fuzz-verify).
.PHONY: fuzz-verify
fuzz: fuzz-verify
fuzz-verify: all $(FUZZ_DIR)/verify_fuzz
	@mkdir -p $(FUZZ_DIR)/corpus
	$(BUILD)/corral run -q -j $(FUZZ_DIR)/seed.jsonl -- sh -c 'ls / >/dev/null; exit 3' || true
	printf '\x05' | cat - $(FUZZ_DIR)/seed.jsonl >$(FUZZ_DIR)/corpus/seed-lines
	printf '\x00' | cat - $(FUZZ_DIR)/seed.jsonl >$(FUZZ_DIR)/corpus/seed-plain
	$(FUZZ_DIR)/verify_fuzz -max_total_time=$(FUZZ_SECONDS) -max_len=65536 \
		-timeout=10 $(FUZZ_DIR)/corpus
