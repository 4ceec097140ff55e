# The simulated PMU: dsprofsim, a Valgrind tool (sampler/sim/*.c), built the
# way Valgrind builds its own tools (Makefile.tool.am): a static executable
# without libc, linked at Valgrind's tool address against libcoregrind and
# libvex.  It runs with VALGRIND_LIB=$(SIM_LIB), a folder holding the tool
# and links to Valgrind's support files.  Included by the Makefile.
#
# The tool never gets sanitizers (SAN=1 builds only dsprof with them): it
# runs inside Valgrind, without the runtime they need.

VG_INC  ?= /usr/include/valgrind
VG_A    ?= /usr/lib/x86_64-linux-gnu/valgrind
VG_EXEC ?= /usr/libexec/valgrind

SIM_LIB  := $(BUILD)/sim/lib
SIM_TOOL := $(SIM_LIB)/dsprofsim-amd64-linux
# record --heap --sim: the same tool with the preloaded library that sends
# the client's malloc and free to it (Valgrind loads vgpreload_TOOL from
# VALGRIND_LIB whenever it is there, so it has a folder of its own)
SIM_LIB_HEAP := $(BUILD)/sim/lib-heap
SIM_PRELOAD  := $(SIM_LIB_HEAP)/vgpreload_dsprofsim-amd64-linux.so
SIM_SRCS := $(wildcard sampler/sim/*.c)
SIM_OBJS := $(SIM_SRCS:sampler/sim/%.c=$(BUILD)/sim/obj/%.o)

SIM_CFLAGS := -std=gnu11 -O2 -g -m64 -fno-stack-protector -fno-strict-aliasing -fno-builtin \
              -fomit-frame-pointer -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter \
              -I. -I$(VG_INC) -DVGA_amd64=1 -DVGO_linux=1 -DVGP_amd64_linux=1 \
              -DVGPV_amd64_linux_vanilla=1 -MMD -MP
SIM_LDFLAGS := -m64 -static -nodefaultlibs -nostartfiles -u _start -Wl,--build-id=none \
               -Wl,-Ttext-segment=0x58000000
SIM_LIBS := $(VG_A)/libcoregrind-amd64-linux.a $(VG_A)/libvex-amd64-linux.a -lgcc \
            $(VG_A)/libgcc-sup-amd64-linux.a

.PHONY: sim
ifneq ($(wildcard $(VG_A)/libcoregrind-amd64-linux.a),)
sim: $(SIM_TOOL) $(SIM_PRELOAD)
else
sim:
	@echo "dsprof: valgrind is not installed: 'dsprof record --sim' will not work ('make deps' installs it)"
endif

$(BUILD)/sim/obj/%.o: sampler/sim/%.c
	@mkdir -p $(dir $@)
	$(CC) $(SIM_CFLAGS) -c -o $@ $<

# Valgrind's support files are linked, not copied, so the folder follows
# the installed Valgrind.
$(SIM_TOOL): $(SIM_OBJS)
	@mkdir -p $(SIM_LIB)
	@for f in $(VG_EXEC)/*; do ln -sfn "$$f" $(SIM_LIB)/; done
	$(CC) -o $@ $(SIM_OBJS) $(SIM_LDFLAGS) $(SIM_LIBS)

# Linked as Valgrind links its tools' preloads (Makefile.all.am's
# PRELOAD_LDFLAGS): Valgrind's replacement functions, whole, and no libc.
$(SIM_PRELOAD): $(SIM_TOOL)
	@mkdir -p $(SIM_LIB_HEAP)
	@for f in $(VG_EXEC)/*; do ln -sfn "$$f" $(SIM_LIB_HEAP)/; done
	ln -sfn ../lib/dsprofsim-amd64-linux $(SIM_LIB_HEAP)/dsprofsim-amd64-linux
	$(CC) -m64 -o $@ -shared -nodefaultlibs -Wl,-z,interpose,-z,initfirst \
		-Wl,--whole-archive $(VG_A)/libreplacemalloc_toolpreload-amd64-linux.a -Wl,--no-whole-archive

all test-run: sim

# Installed next to the program: dsprof looks for PREFIX/lib/dsprof/sim.
SIM_INSTDIR = $(DESTDIR)$(PREFIX)/lib/dsprof/sim
.PHONY: install-sim
install: install-sim
install-sim: sim
	@if [ -x $(SIM_TOOL) ]; then \
		install -D -m 0755 $(SIM_TOOL) $(SIM_INSTDIR)/dsprofsim-amd64-linux && \
		for f in $(VG_EXEC)/*; do ln -sfn "$$f" $(SIM_INSTDIR)/; done; \
		install -D -m 0644 $(SIM_PRELOAD) $(SIM_INSTDIR)-heap/vgpreload_dsprofsim-amd64-linux.so && \
		ln -sfn ../sim/dsprofsim-amd64-linux $(SIM_INSTDIR)-heap/dsprofsim-amd64-linux && \
		for f in $(VG_EXEC)/*; do ln -sfn "$$f" $(SIM_INSTDIR)-heap/; done; \
	fi

-include $(SIM_OBJS:.o=.d)
