# bench/bench.mk - benchmarks (issue 6), included by the top Makefile.
#
#   make bench         the full set: several runs per figure, trees up to
#                      10,000 members, 100,000 threads; prints a table
#   make bench-quick   fewer runs and smaller sizes (74 s to 5 min: docs/bench.md)
#
# Results (table.md, results.json, kill-latency.png) go to $(BUILD)/bench/out.
# Method and the latest figures: docs/bench.md.

BENCH_DIR   := $(BUILD)/bench
BENCH_PROGS := floor runner tree threads forkexec storm sleepers
BENCH_BIN   := $(BENCH_PROGS:%=$(BENCH_DIR)/%) $(BENCH_DIR)/bigargv \
	       $(BENCH_DIR)/waitpath
# Own flags: the bench programs do not link libcorral, and their speed must
# not depend on how the library is built (asan, -O0...).
BENCH_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE
BENCH_PY    := /usr/bin/python3

$(BENCH_DIR)/%: bench/%.c bench/bench.h
	@mkdir -p $(dir $@)
	$(CC) $(BENCH_CFLAGS) -o $@ $< -lpthread

$(BENCH_DIR)/runner: bench/runner.c bench/procwalk.c bench/cgkill.c \
		     bench/bench.h bench/ending.h
	@mkdir -p $(dir $@)
	$(CC) $(BENCH_CFLAGS) -o $@ bench/runner.c bench/procwalk.c bench/cgkill.c

# The one bench program that links the library: it wraps the kernel seam
# (tracer/core/sys.h) to time, in place, what corral does while a task waits.
# Built as the library is (its figures are the library's), with the unit
# tests' view of the internal headers.
$(BENCH_DIR)/waitpath: bench/waitpath.c $(BUILD)/libcorral.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LIB_INC) $(PKG_CFLAGS) -o $@ $< \
		$(BUILD)/libcorral.a $(LDFLAGS) $(LDLIBS)

# The large-argv load is the test fixture itself (one source).
$(BENCH_DIR)/bigargv: tests/fixtures/bigargv.c
	@mkdir -p $(dir $@)
	$(CC) $(BENCH_CFLAGS) -o $@ $<

.PHONY: bench-progs bench-deps
bench-progs: $(BENCH_BIN)

# gnuplot draws the chart, strace is a contender: Debian packages, installed
# when missing as `make deps` does (root), else the command is printed and
# the bench goes on without them.
bench-deps:
	@missing=""; for p in gnuplot-nox strace; do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "bench: installing$$missing"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
	      apt-get install -y -qq $$missing) >/dev/null || \
	      echo "bench: could not install$$missing; going on without"; \
	  else \
	    echo "bench: missing$$missing; as root: apt-get install -y$$missing"; \
	  fi; \
	fi

bench: all bench-progs bench-deps
	$(BENCH_PY) bench/bench.py --build $(BUILD)

bench-quick: all bench-progs bench-deps
	$(BENCH_PY) bench/bench.py --build $(BUILD) --quick
