# dsprof: build, set-up, tests.  Everything generated lives under $(BUILD).
#
#   make           build build/dsprof
#   make deps      install the Debian packages dsprof needs (as root)
#   make demo      deps + build (the simulator too) + record the bundled example,
#                  print its report and the false-sharing story
#   make test      deps + build + the whole test suite
#   make check     the suite under ASan+UBSan (big inputs whole: --full), then the fuzzers for a bounded time
#   make fuzz      the fuzzers only (FUZZ_SECONDS each; FUZZ_TARGETS="session tui" picks some)
#   make bench     benchmarks against perf, printed as ratios
#   make install   PREFIX=/usr/local: the program and its man pages

BUILD   ?= build
# One spelling of the build folder: one inside the tree is made relative, so
# that an object's dependency file (which names the object as the rule did)
# matches the rules of every later make, however the folder was given (the
# install test gives it absolute; header changes then went unseen).
override BUILD := $(patsubst $(CURDIR)/%,%,$(abspath $(BUILD)))
PREFIX  ?= /usr/local
CC      ?= gcc
SAN     ?=
FUZZ_SECONDS ?= 30
FUZZ_TARGETS ?=

# Debian 12 packages (dsprof's dependencies are Debian packages only).
# libc6-dbg resolves samples in libc the same on every machine; Open MPI
# runs the real MPI job of the experiment-group tests.  make bench
# also installs BENCH_DEBS: dpkg-dev, cmake, tcl and libgmock-dev get and
# build bench/realprogs.sh's real programs.
DEBS := gcc make pkg-config libelf-dev libdwarf-dev libcapstone-dev libpfm4-dev \
        libpapi-dev libncurses-dev liblzma-dev zlib1g-dev libzstd-dev valgrind linux-perf \
        clang libclang-rt-14-dev g++ xz-utils binutils procps coreutils util-linux \
        dwarves tmux libc6-dbg libunwind-dev openmpi-bin libopenmpi-dev
BENCH_DEBS := dpkg-dev cmake tcl libgmock-dev heaptrack

PKG_MODULES := libelf capstone papi liblzma zlib libzstd
PKG_CFLAGS  := $(shell pkg-config --cflags $(PKG_MODULES) 2>/dev/null)
PKG_LIBS    := $(shell pkg-config --libs $(PKG_MODULES) 2>/dev/null)

WARN    := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wno-format-nonliteral
CFLAGS  ?= -O2 -g
ALL_CFLAGS := -std=gnu11 $(CFLAGS) $(WARN) -D_GNU_SOURCE -I. -I/usr/include/libdwarf \
              $(PKG_CFLAGS) -MMD -MP
# libdwarf 20210528 and libpfm4 ship no .pc file in Debian 12.
LDLIBS  := -ldwarf $(PKG_LIBS) -lpfm -lstdc++ -lpthread -lm
# tui/ uses ncurses' wide-character build; its .pc adds nothing our flags lack.
LDLIBS  += $(shell pkg-config --libs ncursesw 2>/dev/null || echo -lncursesw -ltinfo)

ifneq ($(SAN),)
ALL_CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS    += -fsanitize=address,undefined
endif

# Modules (one folder, one public header each), in dependency order.
MODULES := base experiment memobj arch dwarfmap backtrack sampler analyze tui
LIB_SRCS := $(foreach m,$(MODULES),$(wildcard $(m)/*.c))
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o)
CLI_SRCS := $(wildcard cli/*.c)
CLI_OBJS := $(CLI_SRCS:%.c=$(BUILD)/obj/%.o)
LIB      := $(BUILD)/libdsprof.a
PROG     := $(BUILD)/dsprof

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/unit/%)
TESTPROG_SRCS := $(wildcard tests/programs/*.c)
TESTPROGS := $(TESTPROG_SRCS:tests/programs/%.c=$(BUILD)/tests/programs/%)
TOOL_SRCS := $(wildcard tests/tools/*.c)
TOOL_BINS := $(TOOL_SRCS:tests/tools/%.c=$(BUILD)/tests/tools/%)
BENCH_SRCS := $(wildcard bench/*.c)
BENCH_BINS := $(BENCH_SRCS:bench/%.c=$(BUILD)/bench/%)
MANPAGES := $(wildcard docs/*.1)

.PHONY: all deps demo test test-run check fuzz bench install clean

all: $(PROG)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(LIB): $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(PROG): $(CLI_OBJS) $(LIB)
	$(CC) $(LDFLAGS) -o $@ $(CLI_OBJS) $(LIB) $(LDLIBS)

$(BUILD)/tests/unit/%: tests/unit/%.c tests/unit/unit.h $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

# The heap tracker's call-frame walk lives in its preloaded library, not in
# libdsprof: its test builds it in, with the unwinder it is checked against.
$(BUILD)/tests/unit/test_walk: tests/unit/test_walk.c sampler/preload/walk.c sampler/preload/walk.h \
		tests/unit/unit.h $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< sampler/preload/walk.c $(LIB) $(LDLIBS) \
		$(shell pkg-config --libs libunwind 2>/dev/null || echo -lunwind)

$(BUILD)/tests/tools/%: tests/tools/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

# Test programs are the profiled code: built as users build theirs (-O2 -g),
# with frame pointers so that fp callchains see every frame.
$(BUILD)/tests/programs/%: tests/programs/%.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -D_GNU_SOURCE -O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -Wall -Wextra -Werror -pthread -o $@ $<

# Programs built exactly as Debian builds its packages: -O2 -g and no frame
# pointers, for call chains that must come from the call-frame information.
TESTPROG_PLAIN := $(wildcard tests/programs/plain/*.c)
TESTPROGS += $(TESTPROG_PLAIN:tests/programs/plain/%.c=$(BUILD)/tests/programs/%)
$(BUILD)/tests/programs/%: tests/programs/plain/%.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror -pthread -o $@ $<

# The padded build of counters.c: the "after" of the false-sharing demo.
TESTPROGS += $(BUILD)/tests/programs/counters_padded
$(BUILD)/tests/programs/counters_padded: tests/programs/counters.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -D_GNU_SOURCE -O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -Wall -Wextra -Werror -pthread -DPADDED -o $@ $<

# Two compilation units that define one struct name differently.
TESTPROGS += $(BUILD)/tests/programs/samename
$(BUILD)/tests/programs/samename: tests/programs/samename/tu1.c tests/programs/samename/tu2.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -D_GNU_SOURCE -O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -Wall -Wextra -Werror -o $@ $^

# heapleak linked statically: record --heap cannot preload into it.
TESTPROGS += $(BUILD)/tests/programs/heapleak_static
$(BUILD)/tests/programs/heapleak_static: tests/programs/heapleak.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -D_GNU_SOURCE -O2 -g -fno-omit-frame-pointer -Wall -Wextra -Werror -pthread -static -o $@ $<

# heapleak built without frame pointers, as Debian builds: every stack of
# record --heap is unwound from its CFI.
TESTPROGS += $(BUILD)/tests/programs/heapleak_nofp
$(BUILD)/tests/programs/heapleak_nofp: tests/programs/heapleak.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -D_GNU_SOURCE -O2 -g -fomit-frame-pointer -Wall -Wextra -Werror -pthread -o $@ $<

# pagefault built without frame pointers: --call-graph auto copies 8 KiB of
# stack with each of its page faults, the largest samples dsprof takes by
# default, for the ring buffers to keep (tests/e2e/lost.sh).
TESTPROGS += $(BUILD)/tests/programs/pagefault_nofp
$(BUILD)/tests/programs/pagefault_nofp: tests/programs/pagefault.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -D_GNU_SOURCE -O2 -g -fomit-frame-pointer -Wall -Wextra -Werror -pthread -o $@ $<

# An MPI program, built with Open MPI's mpicc: a real job for experiment groups.
TESTPROGS += $(BUILD)/tests/programs/mpi_ranks
$(BUILD)/tests/programs/mpi_ranks: tests/programs/mpi/ranks.c
	@mkdir -p $(dir $@)
	mpicc -std=gnu11 -O2 -g -fno-omit-frame-pointer -Wall -Wextra -Werror -o $@ $<

# C++ test programs, built the same way with g++.
TESTPROG_CXX := $(wildcard tests/programs/*.cc)
TESTPROGS += $(TESTPROG_CXX:tests/programs/%.cc=$(BUILD)/tests/programs/%)
$(BUILD)/tests/programs/%: tests/programs/%.cc
	@mkdir -p $(dir $@)
	g++ -std=gnu++17 -O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -Wall -Wextra -Werror -o $@ $<

# owners with the C++ library linked in (-static-libstdc++): operator new
# is the program's own code, with no debug information.
TESTPROGS += $(BUILD)/tests/programs/owners_staticxx
$(BUILD)/tests/programs/owners_staticxx: tests/programs/owners.cc
	@mkdir -p $(dir $@)
	g++ -std=gnu++17 -O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -Wall -Wextra -Werror -static-libstdc++ -o $@ $<

$(BUILD)/bench/%: bench/%.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -D_GNU_SOURCE -O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -Wall -Wextra -Werror -pthread -o $@ $<

# Fuzz targets (tests/fuzz/), each built twice: with libFuzzer for `make
# fuzz` (clang; the modules compiled once more, with coverage and the
# sanitizers, into their own archive), and with tests/fuzz/replay.c's main
# for the regression replay of `make test` (the build's own compiler and
# flags, SAN=1 included, and no fuzzer runtime).  Targets that run a
# subcommand (cmd_import, cmd_diff, cli_archive...) get cli/ too.
FUZZ_NAMES := perfdata json mobj elf session meta kallsyms machine simstream tui \
              heap group diff archive import suggest
FUZZ_BINS := $(FUZZ_NAMES:%=$(BUILD)/fuzz/fuzz_%)
FUZZ_REPLAYS := $(FUZZ_NAMES:%=$(BUILD)/tests/fuzz/fuzz_%-replay)
# UBSan's reports stop the fuzzer (else it prints them and goes on: no finding).
FUZZ_CFLAGS := -std=gnu11 -O1 -g -D_GNU_SOURCE -I. -I/usr/include/libdwarf $(PKG_CFLAGS) \
               -fsanitize=address,undefined -fno-sanitize-recover=undefined
# cli/'s objects, main.c's with its main made weak: the target's own main
# (libFuzzer's, replay.c's) is the program's.
FUZZ_CLI_OBJS := $(filter-out cli/main.o,$(CLI_SRCS:%.c=%.o)) cli/main-weak.o
FUZZ_LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/fuzz/obj/%.o) $(FUZZ_CLI_OBJS:%=$(BUILD)/fuzz/obj/%) \
                 $(BUILD)/fuzz/obj/tests/fuzz/fuzz.o
FUZZ_LIB := $(BUILD)/fuzz/libdsprof-fuzz.a
$(BUILD)/fuzz/obj/%.o: %.c Makefile
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c -o $@ $<
$(FUZZ_LIB): $(FUZZ_LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^
$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FUZZ_LIB)
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIB) $(LDLIBS)
%/cli/main-weak.o: %/cli/main.o
	objcopy --weaken-symbol=main $< $@
FUZZ_CLI_LIB := $(BUILD)/tests/fuzz/libdsprof-cli.a
$(FUZZ_CLI_LIB): $(FUZZ_CLI_OBJS:%=$(BUILD)/obj/%)
	@mkdir -p $(dir $@)
	@rm -f $@
	ar rcs $@ $^
$(BUILD)/tests/fuzz/fuzz_%-replay: tests/fuzz/fuzz_%.c tests/fuzz/replay.c tests/fuzz/fuzz.c \
				   tests/fuzz/fuzz.h $(FUZZ_CLI_LIB) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< tests/fuzz/replay.c tests/fuzz/fuzz.c \
		$(FUZZ_CLI_LIB) $(LIB) $(LDLIBS)

# The heap tracker `record --heap` preloads into the target: a shared
# library of its own (sampler/preload/), without libdsprof or sanitizers
# (it runs inside the profiled program), beside the dsprof binary.
HEAP_LIB := $(BUILD)/lib/libdsprof-heap.so
$(HEAP_LIB): sampler/preload/heap.c sampler/preload/walk.c sampler/preload/walk.h \
		sampler/preload/fdguard.c sampler/preload/fdguard.h sampler/preload/heapask.c \
		sampler/preload/heapask.h experiment/heapfile.h
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -g -fPIC -shared -fvisibility=hidden -fno-omit-frame-pointer -Wall -Wextra \
		-Werror -D_GNU_SOURCE -I. -o $@ $(filter %.c,$^) \
		$(shell pkg-config --libs libunwind 2>/dev/null || echo -lunwind) -ldl -pthread
all test-run demo bench fuzz: $(HEAP_LIB)

# The evaluator benchmark measures dsprof's own code, so unlike the
# profiled bench programs it is built and linked like the tests.
$(BUILD)/bench/mobj_eval: bench/mobj_eval.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

deps:
	@missing=""; \
	for p in $(DEBS) $(if $(filter bench,$(MAKECMDGOALS)),$(BENCH_DEBS)); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "dsprof: installing Debian packages:$$missing"; \
		if [ "$$(id -u)" != 0 ]; then \
			echo "dsprof: run as root, or run: sudo apt-get install$$missing" >&2; exit 2; \
		fi; \
		export DEBIAN_FRONTEND=noninteractive; \
		apt-get install -y --no-install-recommends $$missing >/dev/null 2>&1 || \
		{ apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends $$missing; } \
		|| { echo "dsprof: apt-get install$$missing failed" >&2; exit 2; }; \
	fi

test-run: $(PROG) $(UNIT_BINS) $(TOOL_BINS) $(TESTPROGS) $(FUZZ_REPLAYS)
	@tests/run.sh $(TEST_FLAGS) $(BUILD)

test: deps
	@$(MAKE) --no-print-directory test-run

# The fuzzers run even when the suite fails: both say what they found.
check: deps
	@status=0; \
	$(MAKE) --no-print-directory BUILD=$(BUILD)/san SAN=1 TEST_FLAGS=--full test-run || status=1; \
	$(MAKE) --no-print-directory fuzz || status=1; \
	exit $$status

fuzz: $(FUZZ_BINS) $(PROG) $(TESTPROGS) $(TOOL_BINS) sim
	@tests/fuzz/run.sh $(BUILD) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

demo: deps
	@$(MAKE) --no-print-directory $(PROG) $(TESTPROGS) sim
	@tests/demo.sh $(BUILD)

bench: deps
	@$(MAKE) --no-print-directory $(PROG) $(BENCH_BINS) $(TESTPROGS) $(TOOL_BINS) sim
	@bench/run.sh $(BUILD)

install: $(PROG) $(HEAP_LIB)
	install -D -m 0755 $(PROG) $(DESTDIR)$(PREFIX)/bin/dsprof
	install -D -m 0644 $(HEAP_LIB) $(DESTDIR)$(PREFIX)/lib/dsprof/libdsprof-heap.so
	install -d $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0644 $(MANPAGES) $(DESTDIR)$(PREFIX)/share/man/man1/

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD)/obj $(BUILD)/fuzz/obj -name '*.d' 2>/dev/null)

include sampler/sim/sim.mk
