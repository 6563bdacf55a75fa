# corral - process-tree supervisor. See README.md.
#
#   make            build/corral, build/libcorral.a, build/libcorral.so
#   make deps       install missing Debian packages (or print the command)
#   make test       unit (cmocka) + integration tests
#   make demo       run corral on a small real tree, show tree and journal
#   make asan       build and run the tests under ASan + UBSan
#   make bench      benchmarks (bench/README), make bench-quick for a look

CC      ?= cc
BUILD   ?= build
PKGS    := libseccomp libunwind-ptrace
CFLAGS  ?= -O2 -g
override CFLAGS += -std=gnu11 -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter \
           -fPIC -Iinclude -Itracer -Isandbox -Icli -D_GNU_SOURCE
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CMOCKA_LIBS = $(shell pkg-config --libs cmocka 2>/dev/null)
override LDLIBS += $(PKG_LIBS)

DEBS := libseccomp-dev libunwind-dev libcmocka-dev bubblewrap pkg-config \
        gcc make jq python3

LIB_SRC := $(sort $(wildcard tracer/*.c sandbox/*.c))
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
CLI_SRC := $(wildcard cli/*.c)
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
FIX_SRC := $(wildcard tests/fixtures/*.c)
FIX_BIN := $(FIX_SRC:tests/fixtures/%.c=$(BUILD)/fixtures/%)

.PHONY: all deps check-deps test unit integration demo asan clean format \
        bench bench-quick install

all: $(BUILD)/corral $(BUILD)/libcorral.a $(BUILD)/libcorral.so

$(BUILD)/obj/%.o: %.c $(wildcard include/*.h tracer/*.h sandbox/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) -c -o $@ $<

$(BUILD)/libcorral.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/libcorral.so: $(LIB_OBJ)
	$(CC) $(CFLAGS) -shared -o $@ $^ $(LDFLAGS) $(LDLIBS)

$(BUILD)/corral: $(CLI_OBJ) $(BUILD)/libcorral.a
	$(CC) $(CFLAGS) -o $@ $(CLI_OBJ) $(BUILD)/libcorral.a $(LDFLAGS) $(LDLIBS)

# Unit tests link the library and the CLI's option parser (not main).
CLI_LIB_OBJ := $(filter-out $(BUILD)/obj/cli/corral.o,$(CLI_OBJ))

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libcorral.a $(CLI_LIB_OBJ) $(wildcard tests/unit/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) -Icli -Itests/unit -o $@ $< $(CLI_LIB_OBJ) $(BUILD)/libcorral.a \
		$(LDFLAGS) $(LDLIBS) $(CMOCKA_LIBS)

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

test: deps
	$(MAKE) all
	$(MAKE) $(UNIT_BIN) $(FIX_BIN)
	BUILD=$(BUILD) tests/run.sh

unit: all $(UNIT_BIN)
	BUILD=$(BUILD) tests/run.sh unit

integration: all $(FIX_BIN)
	BUILD=$(BUILD) tests/run.sh integration

demo: deps
	$(MAKE) all $(FIX_BIN)
	BUILD=$(BUILD) tests/demo.sh

asan:
	$(MAKE) BUILD=build-asan CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
		LDFLAGS="-fsanitize=address,undefined" test

format:
	clang-format -i $(LIB_SRC) $(CLI_SRC) $(UNIT_SRC) $(wildcard include/*.h tracer/*.h sandbox/*.h)

install: all
	install -D -m 0755 $(BUILD)/corral $(DESTDIR)/usr/local/bin/corral
	install -D -m 0644 docs/corral.1 $(DESTDIR)/usr/local/share/man/man1/corral.1

clean:
	rm -rf build build-asan

-include bench/bench.mk
