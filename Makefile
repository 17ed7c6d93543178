# ccore top-level build.
#
#   make            build the userspace: libccore, tools in build/bin/, firmware,
#                   and the PyTorch backend in build/python/ when torch is
#                   installed (make deps-torch installs it)
#   make demo       run the main job on the embedded simulated devices
#   make check      build and run every test: userspace (also under ASan/UBSan,
#                   the threaded ones under ThreadSanitizer, the PyTorch
#                   backend against gloo), the kernel module's build
#                   checks, its selftests in QEMU
#   make driver     build build/driver/ccore.ko (the top-level Kbuild)
#   make install    install libccore (libccore.so.0, libccore.a), its headers,
#                   ccore.pc, the tools, the firmware and the Python package
#                   ccore (when built) into DESTDIR/PREFIX (default
#                   /usr/local); make uninstall removes them
#   make bench      run the benchmarks that print figures (device COPY, the
#                   timed model's 1024-rank 1 GiB Ring AllReduce and the
#                   tuner's choice at every size with their planning and
#                   lowering, the tuner's regret, the TP + FSDP executable's
#                   packet-size priority)
#   make bench-torch  time a 25 MiB AllReduce and a DDP step through
#                   torch.distributed, ccore against gloo, 4 processes
#   make fuzz       fuzz the executable loader (libFuzzer, ASan/UBSan) for
#                   FUZZ_SECONDS (default 60); FUZZ_TARGET=exe_text: the
#                   text description reader, FUZZ_TARGET=verify: the model's
#                   descriptor and program verifier and what it accepts
#   make fuzz-kernel  fuzz ccore.ko's ioctls in QEMU for FUZZ_SECONDS
#                   (default 600) over FUZZ_SEEDS (default "1 2 3")
#
# Each of demo, check, driver and bench-torch installs the Debian packages it
# needs first.

BUILD ?= build
SAN ?=
V ?= 0

ifeq ($(V),0)
Q := @
else
Q :=
endif

CC ?= gcc
CXX ?= g++
CSTD := -std=c11
WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
OPT ?= -O2 -g
SANFLAGS :=
ifeq ($(SAN),1)
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
endif
# ThreadSanitizer: the model's shim then runs on pthread primitives
# (model/ccm_os_user.h), which the sanitizer sees.
ifeq ($(SAN),thread)
SANFLAGS := -fsanitize=thread -fno-omit-frame-pointer
endif
# libdrm: drm.h for the uAPI header, and the accel backend's library.
DRM_CFLAGS := $(shell pkg-config --cflags libdrm 2>/dev/null || echo -I/usr/include/libdrm)
DRM_LIBS := $(shell pkg-config --libs libdrm 2>/dev/null || echo -ldrm)
INCLUDES := -Iuapi/drm -Iuapi $(DRM_CFLAGS) -Iruntime/include -Iruntime
# The device model's headers: for the model itself, the sim backend that
# embeds it, and the tools and tests that build sim fabrics; the rest of
# the runtime knows the device only through the uAPI.
MODEL_INCLUDES := -Imodel
CFLAGS_ALL := $(CSTD) $(OPT) $(WARN) -D_GNU_SOURCE -pthread -MMD -MP $(INCLUDES) $(SANFLAGS) $(EXTRA_CFLAGS)
LDFLAGS_ALL := -pthread $(SANFLAGS)
LDLIBS_ALL := -lm
# what linking libccore takes besides
LIBCCORE_LIBS := $(DRM_LIBS)

# Debian packages each target needs (installed only when missing).
DEPS_BUILD := gcc g++ make libc6-dev libdrm-dev pkg-config libnl-genl-3-dev python3 libfabric-dev
# the PyTorch backend's build and tests (bindings/pytorch/, about 820 MB)
DEPS_TORCH := python3-torch libtorch-dev pybind11-dev
# check also runs the verifier fuzzer (clang's libFuzzer), hosts as network
# namespaces (ip, from iproute2), the PyTorch backend's test and the
# across-hosts benchmark's short run next to Open MPI
DEPS_CHECK := $(DEPS_BUILD) clang libclang-rt-14-dev iproute2 $(DEPS_TORCH) openmpi-bin libopenmpi-dev

OBJ := $(BUILD)/obj
BIN := $(BUILD)/bin
GEN := $(BUILD)/gen
FW := $(BUILD)/firmware

# --- sources ---------------------------------------------------------------
MODEL_SRCS := $(sort $(filter-out model/ccm_os_kernel.c,$(wildcard model/*.c)))
ISA_SRCS := $(sort $(wildcard runtime/isa/*.c))
# The network transport (runtime/net/) loads libfabric when first used
# (runtime/net/net_dl.c): libccore does not link it, libfabric-dev gives
# its headers.
RUNTIME_SRCS := $(sort $(filter-out $(ISA_SRCS),$(wildcard runtime/*.c runtime/*/*.c)))
FW_SRCS := $(sort $(wildcard firmware-programs/*.ccs))
FW_BINS := $(patsubst firmware-programs/%.ccs,$(FW)/ccore/%.bin,$(FW_SRCS))
FW_GEN := $(GEN)/firmware_blobs.c

TOOL_NAMES := $(sort $(notdir $(wildcard tools/ccore-*)))
TOOLS := $(addprefix $(BIN)/,$(TOOL_NAMES))

TEST_SRCS := $(sort $(wildcard selftests/runtime/*_test.c selftests/uapi/*_test.c selftests/bootstrap/*_test.c))
TESTS := $(patsubst selftests/%.c,$(BUILD)/tests/%,$(TEST_SRCS))
SCRIPT_TESTS := $(patsubst selftests/%.sh,$(BUILD)/tests/%,$(wildcard selftests/tools/*_test.sh selftests/netns/*_test.sh))
# The tests' helpers, and the collective call the tools make too (coll_call.h).
TEST_LIB_SRCS := $(wildcard selftests/lib/*.c) tools/common/coll_call.c
# What the tests run besides programs, copied into the build: a script
# (executable) or a file a test reads.
define install_script
	@mkdir -p $(dir $@)
	$(Q)install -m 755 $< $@
endef
define install_data
	@mkdir -p $(dir $@)
	$(Q)install -m 644 $< $@
endef
# How every C test program is linked: its source, the tests' helpers and the
# library.  TEST_FLAGS, set for a target, builds a variant of a shared source
# (the accel backend's subset of a sim test); unlike CFLAGS_ALL it reaches
# no object the target depends on, as only this recipe reads it.
define link_test
	@mkdir -p $(dir $@)
	@echo "  TEST    $@"
	$(Q)$(CC) $(CFLAGS_ALL) $(TEST_FLAGS) -Iselftests/lib $< $(TEST_LIB_OBJS) $(LIBCCORE) -o $@ $(LDFLAGS_ALL) $(LIBCCORE_LIBS) $(LDLIBS_ALL)
endef
# Run in the QEMU guest on the kernel driver (selftests/qemu/run.sh runs
# every executable in tests/kernel/), never on the host.
KERNEL_TESTS := $(BUILD)/tests/kernel/coll_accel $(BUILD)/tests/kernel/accel_backend \
	$(BUILD)/tests/kernel/streams_accel $(BUILD)/tests/kernel/exe_run_accel \
	$(BUILD)/tests/kernel/reason_accel $(BUILD)/tests/kernel/mproc_accel \
	$(BUILD)/tests/kernel/accel_nic

objs = $(patsubst %.c,$(OBJ)/%.o,$(1))

# The library's objects are position independent (one set for the shared
# library and both archives) and hide every name the public headers do not
# mark CCORE_API.
PIC := $(BUILD)/obj-pic
picobjs = $(patsubst %.c,$(PIC)/%.o,$(1))
LIB_CFLAGS := -fPIC -fvisibility=hidden -fno-semantic-interposition
MODEL_OBJS := $(call picobjs,$(MODEL_SRCS))
ISA_OBJS := $(call picobjs,$(ISA_SRCS))
RUNTIME_OBJS := $(call picobjs,$(RUNTIME_SRCS)) $(PIC)/gen/firmware_blobs.o
LIB_OBJS := $(MODEL_OBJS) $(ISA_OBJS) $(RUNTIME_OBJS)
TEST_LIB_OBJS := $(call objs,$(TEST_LIB_SRCS))
# What the tests and tools link: every object, internal names included
# (never installed).
LIBCCORE := $(BUILD)/lib/libccore-internal.a
# What a program links (make install): only the ccore_* API of the public
# headers (runtime/include/) is global, in the shared library and in the
# archive alike.  The version is the one ccore.h gives.
CCORE_VERSION := $(shell awk '$$2 ~ /^CCORE_(MAJOR|MINOR|PATCH)$$/ { v = v sep $$3; sep = "." } \
	END { print v }' runtime/include/ccore.h)
CCORE_SOMAJOR := $(firstword $(subst ., ,$(CCORE_VERSION)))
LIBCCORE_A := $(BUILD)/lib/libccore.a
LIBCCORE_SO := $(BUILD)/lib/libccore.so
LIBCCORE_SONAME := libccore.so.$(CCORE_SOMAJOR)
LIBCCORE_SO_REAL := $(BUILD)/lib/libccore.so.$(CCORE_VERSION)
LIBCCORE_MAP := runtime/libccore.map
LIBCCORE_PUBLIC := $(LIBCCORE_A) $(LIBCCORE_SO) $(BUILD)/lib/$(LIBCCORE_SONAME) $(LIBCCORE_SO_REAL)
HDR_CHECKS := $(BUILD)/tests/uapi/header_c.stamp $(BUILD)/tests/uapi/header_cxx.stamp

.SECONDEXPANSION:
.SECONDARY:

.PHONY: all demo check test bench bench-compare bench-hosts clean deps deps-check help driver
.DEFAULT_GOAL := all

all: $(LIBCCORE) $(LIBCCORE_PUBLIC) $(TOOLS) $(TESTS) $(KERNEL_TESTS) $(SCRIPT_TESTS) $(FW_BINS) $(HDR_CHECKS)

# The host's shell tests source ../lib/tap.sh, installed beside them
# (not executable: selftests/run.sh runs every executable in tests/).
$(BUILD)/tests/%: selftests/%.sh | $(BUILD)/tests/lib/tap.sh
	$(install_script)

$(BUILD)/tests/lib/tap.sh: selftests/lib/tap.sh
	$(install_data)

# The uAPI header must compile on its own, in C and in C++.
HDR_CHECK_SRC := selftests/uapi/header_standalone.c
$(BUILD)/tests/uapi/header_c.stamp: uapi/drm/ccore_accel.h $(HDR_CHECK_SRC)
	@mkdir -p $(dir $@)
	@echo "  HDRCHK  C   $<"
	$(Q)$(CC) -std=c99 -pedantic -Wall -Wextra -Werror -isystem /usr/include/libdrm -Iuapi/drm -fsyntax-only $(HDR_CHECK_SRC)
	$(Q)touch $@
$(BUILD)/tests/uapi/header_cxx.stamp: uapi/drm/ccore_accel.h $(HDR_CHECK_SRC)
	@mkdir -p $(dir $@)
	@echo "  HDRCHK  C++ $<"
	$(Q)$(CXX) -x c++ -std=c++11 -pedantic -Wall -Wextra -Werror -isystem /usr/include/libdrm -Iuapi/drm -fsyntax-only $(HDR_CHECK_SRC)
	$(Q)touch $@

# The syzkaller descriptions of the uAPI (tools/syzkaller/) match the header:
# ioctl numbers, struct layouts, flags, every ioctl described; the checker
# also shows that it rejects each kind of mistake (--self-test).
PYTHON ?= python3
SYZ_DIR := tools/syzkaller
SYZ_CHECKS := $(BUILD)/tests/syzkaller/dev_ccore.stamp
all: $(SYZ_CHECKS)
$(SYZ_CHECKS): $(SYZ_DIR)/dev_ccore.txt $(SYZ_DIR)/dev_ccore.txt.const $(SYZ_DIR)/syz-check.py \
		$(SYZ_DIR)/ccore-qemu.cfg uapi/drm/ccore_accel.h
	@mkdir -p $(dir $@)
	@echo "  SYZCHK  $<"
	$(Q)$(PYTHON) $(SYZ_DIR)/syz-check.py --cc "$(CC)" --self-test --config $(SYZ_DIR)/ccore-qemu.cfg \
		--c-out $(BUILD)/tests/syzkaller/dev_ccore_check.c $< >$(BUILD)/tests/syzkaller/dev_ccore.log \
		|| { cat $(BUILD)/tests/syzkaller/dev_ccore.log; false; }
	$(Q)touch $@

# A typical instance of every descriptor and instruction variant of the
# descriptions must pass the verifier: syz_variants_test on the sim backend,
# syz_variants_accel on the kernel driver in the QEMU guest.
SYZ_VARIANTS_H := $(GEN)/syz_variants.h
$(SYZ_VARIANTS_H): $(SYZ_DIR)/dev_ccore.txt $(SYZ_DIR)/dev_ccore.txt.const $(SYZ_DIR)/syz-check.py
	@mkdir -p $(dir $@)
	@echo "  GEN     $@"
	$(Q)$(PYTHON) $(SYZ_DIR)/syz-check.py --variants-h $@ $<
$(BUILD)/tests/runtime/syz_variants_test: $(SYZ_VARIANTS_H)
$(BUILD)/tests/runtime/syz_variants_test: CFLAGS_ALL += -I$(GEN)
all: $(BUILD)/tests/kernel/syz_variants_accel
$(BUILD)/tests/kernel/syz_variants_accel: TEST_FLAGS := -DCCORE_TEST_ACCEL -I$(GEN)
$(BUILD)/tests/kernel/syz_variants_accel: selftests/runtime/syz_variants_test.c $(SYZ_VARIANTS_H) $(TEST_LIB_OBJS) $(LIBCCORE)
	$(link_test)

# What the descriptions assume of a running system (file names, option
# lists), checked in the QEMU guest by syzkaller_test.sh.
SYZ_GUEST_TESTS := $(BUILD)/tests/kernel/syzkaller_test.sh $(BUILD)/tests/kernel/helpers/dev_ccore.probes
ifeq ($(SAN),)
all: $(SYZ_GUEST_TESTS)
endif
$(BUILD)/tests/kernel/syzkaller_test.sh: selftests/driver/syzkaller_test.sh $(BUILD)/tests/kernel/helpers/tap.sh
	$(install_script)
$(BUILD)/tests/kernel/helpers/dev_ccore.probes: $(SYZ_DIR)/dev_ccore.txt $(SYZ_DIR)/syz-check.py
	@mkdir -p $(dir $@)
	$(Q)$(PYTHON) $(SYZ_DIR)/syz-check.py --guest-probes $@ $<

# The comment at the top of this file, whole: it ends at the first line
# that is not a comment.
help:
	@sed -n '2,/^[^#]/{/^#/!q;s/^# \{0,1\}//;p}' Makefile

deps:
	$(Q)scripts/deps.sh $(DEPS_BUILD)

deps-check:
	$(Q)scripts/deps.sh $(DEPS_CHECK)

$(OBJ)/model/%.o $(PIC)/model/%.o $(OBJ)/runtime/sim/%.o $(PIC)/runtime/sim/%.o \
$(OBJ)/tools/%.o $(OBJ)/selftests/%.o $(BIN)/% $(BUILD)/tests/% $(BUILD)/fuzzers/%: CFLAGS_ALL += $(MODEL_INCLUDES)
$(OBJ)/selftests/%.o $(BUILD)/tests/%: CFLAGS_ALL += -Itools/common

$(OBJ)/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS_ALL) -c $< -o $@

$(PIC)/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS_ALL) $(LIB_CFLAGS) -c $< -o $@

$(PIC)/gen/%.o: $(GEN)/%.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS_ALL) $(LIB_CFLAGS) -c $< -o $@

$(LIBCCORE): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	@echo "  AR      $@"
	$(Q)rm -f $@ && ar rcs $@ $^

# The public archive: the objects linked into one (ld -r), whose hidden
# names become local, so a program's own log_init() or rt_open() never
# meets ours.
$(LIBCCORE_A): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	@echo "  AR      $@"
	$(Q)$(LD) -r -o $(BUILD)/lib/ccore-all.o $^
	$(Q)objcopy --localize-hidden $(BUILD)/lib/ccore-all.o
	$(Q)rm -f $@ && ar rcs $@ $(BUILD)/lib/ccore-all.o && rm -f $(BUILD)/lib/ccore-all.o

# -z defs: everything the library needs is in LIBCCORE_LIBS (what ccore.pc
# says); not under the sanitizers, whose runtime the program brings.
SO_DEFS := $(if $(SAN),,-Wl,-z,defs)
$(LIBCCORE_SO_REAL): $(LIB_OBJS) $(LIBCCORE_MAP)
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	$(Q)$(CC) -shared -Wl,-soname,$(LIBCCORE_SONAME) -Wl,--version-script=$(LIBCCORE_MAP) $(SO_DEFS) \
		$(LDFLAGS_ALL) $(LIB_OBJS) -o $@ $(LIBCCORE_LIBS) $(LDLIBS_ALL)
$(BUILD)/lib/$(LIBCCORE_SONAME): $(LIBCCORE_SO_REAL)
	$(Q)ln -sfn $(notdir $<) $@
$(LIBCCORE_SO): $(BUILD)/lib/$(LIBCCORE_SONAME)
	$(Q)ln -sfn $(notdir $<) $@

# ccore-as is needed to build the firmware the library embeds, so it links
# only the ISA code, never libccore itself.
$(BIN)/ccore-as: $(call objs,$(wildcard tools/ccore-as/*.c)) $(ISA_OBJS)
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	$(Q)$(CC) $(LDFLAGS_ALL) $^ -o $@ $(LDLIBS_ALL)

# ccore-info --netlink and --watch speak the driver's generic netlink
# family through libnl-genl-3 (headers as system headers: -Werror is ours).
NL_CFLAGS := $(patsubst -I%,-isystem %,$(shell pkg-config --cflags libnl-genl-3.0 2>/dev/null || echo -I/usr/include/libnl3))
NL_LIBS := $(shell pkg-config --libs libnl-genl-3.0 2>/dev/null || echo -lnl-genl-3 -lnl-3)
$(OBJ)/tools/ccore-info/%.o: CFLAGS_ALL += $(NL_CFLAGS)
$(BIN)/ccore-info: LDLIBS_ALL += $(NL_LIBS)

# tools/common/: what every tool shares (the JSON writer), linked into each.
TOOL_COMMON_OBJS := $(call objs,$(wildcard tools/common/*.c))

$(BIN)/%: $$(call objs,$$(wildcard tools/%/*.c)) $(TOOL_COMMON_OBJS) $(LIBCCORE)
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	$(Q)$(CC) $(LDFLAGS_ALL) $^ -o $@ $(LIBCCORE_LIBS) $(LDLIBS_ALL)

# The JSON writer on its own: every escape, read back by python3's parser.
all: $(BUILD)/tests/tools/json_test
$(BUILD)/tests/tools/json_test: selftests/tools/json_test.c $(OBJ)/tools/common/json.o
	@mkdir -p $(dir $@)
	@echo "  TEST    $@"
	$(Q)$(CC) $(CFLAGS_ALL) -Itools/common $< $(OBJ)/tools/common/json.o -o $@ $(LDFLAGS_ALL) $(LDLIBS_ALL)

$(FW)/ccore/%.bin: firmware-programs/%.ccs $(BIN)/ccore-as
	@mkdir -p $(dir $@)
	@echo "  AS      $<"
	$(Q)$(BIN)/ccore-as -o $@ $<

$(FW_GEN): $(FW_SRCS) $(BIN)/ccore-as
	@mkdir -p $(dir $@)
	@echo "  GEN     $@"
	$(Q)$(BIN)/ccore-as --c-array -o $@ $(FW_SRCS)

$(BUILD)/tests/%: selftests/%.c $(TEST_LIB_OBJS) $(LIBCCORE)
	$(link_test)

# The network transport's tests (selftests/net/) and ccore-netbw link libccore
# as the other tests and tools do (libfabric is loaded at run time).
NET_TESTS := $(patsubst selftests/%.c,$(BUILD)/tests/%,$(sort $(wildcard selftests/net/*_test.c)))
all: $(NET_TESTS)

# The bootstrap's test reads the runtime's sources (the settings table is complete).
$(BUILD)/tests/bootstrap/boot_test: CFLAGS_ALL += -DCCORE_SRCDIR='"$(CURDIR)"'

# The sim tests whose sources also build a subset for the kernel driver, as
# build/tests/kernel/NAME_accel with -DCCORE_TEST_ACCEL (each source says
# which of its tests run there): the collectives, streams and packet sizes,
# running executables, and the ioctls' reasons from the sim's table.
ACCEL_VARIANTS := $(patsubst %,$(BUILD)/tests/kernel/%_accel,coll streams exe_run reason)
$(ACCEL_VARIANTS): TEST_FLAGS := -DCCORE_TEST_ACCEL
$(ACCEL_VARIANTS): $(BUILD)/tests/kernel/%_accel: selftests/runtime/%_test.c $(TEST_LIB_OBJS) $(LIBCCORE)
	$(link_test)

# The accel backend itself (maps, sharing, deadlines, error messages).
$(BUILD)/tests/kernel/accel_backend: selftests/accel/backend_test.c $(TEST_LIB_OBJS) $(LIBCCORE)
	$(link_test)

# The driver's NIC queue through the accel backend's proxy (runtime/accel/accel_nic.c):
# two fabrics of the guest as two hosts, a socketpair as the wire.
$(BUILD)/tests/kernel/accel_nic: selftests/accel/nic_proxy_test.c $(TEST_LIB_OBJS) $(LIBCCORE)
	$(link_test)

# One process per rank on the kernel driver: fds between processes (see mproc_test.c).
$(BUILD)/tests/kernel/mproc_accel: selftests/accel/mproc_test.c $(TEST_LIB_OBJS) $(LIBCCORE)
	$(link_test)

# --- kernel driver selftests ------------------------------------------------
# kselftest-harness programs for the uAPI of /dev/accel/accelN (the ccore
# driver), run in the QEMU guest by selftests/qemu/run.sh from
# $(BUILD)/tests/kernel/.  They include the kernel's kselftest_harness.h,
# which scripts/kernel-deps.sh extracts into build/linux-src/; plain `make`
# builds them only when it is there (and not in the sanitizer build), so the
# userspace build never depends on the kernel sources.  `make kernel-tests`
# always builds them (or says what is missing).
KSFT_DIR := build/linux-src/tools/testing/selftests
KTEST_SRCS := $(sort $(wildcard selftests/driver/*_test.c))
KTESTS := $(patsubst selftests/driver/%.c,$(BUILD)/tests/kernel/%,$(KTEST_SRCS))
KTEST_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare \
	-Werror -D_GNU_SOURCE -pthread -MMD -MP -isystem $(KSFT_DIR) -isystem /usr/include/libdrm \
	-Iuapi/drm -Iselftests/driver

.PHONY: kernel-tests
ifneq ($(wildcard $(KSFT_DIR)/kselftest_harness.h),)
ifeq ($(SAN),)
all: $(KTESTS)
endif
kernel-tests: $(KTESTS)
else
kernel-tests:
	@echo "kernel-tests: $(KSFT_DIR)/kselftest_harness.h is missing; run scripts/kernel-deps.sh" >&2
	@false
endif

$(BUILD)/tests/kernel/%: selftests/driver/%.c uapi/drm/ccore_accel.h
	@mkdir -p $(dir $@)
	@echo "  KTEST   $@"
	$(Q)$(CC) $(KTEST_CFLAGS) $< -o $@ -pthread

# --- installing --------------------------------------------------------------
# make install [PREFIX=/usr/local] [DESTDIR=...]: libccore (libccore.so.0 and
# libccore.a), the public headers under include/ccore/ (ccore.pc's Cflags),
# ccore.pc, the tools and the CC-core firmware the kernel driver loads (the
# library embeds its own copy for the sim backend).  The kernel looks for
# firmware in /lib/firmware only: FIRMWAREDIR=/lib/firmware (or PREFIX=/usr
# on a merged /usr) for ccore.ko.  make uninstall removes the same files.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
FIRMWAREDIR ?= $(PREFIX)/lib/firmware
PUBLIC_HEADERS := $(wildcard runtime/include/*.h) uapi/drm/ccore_accel.h
# ccore.pc names its directories from ${prefix} where they are under it, so
# that pkg-config --define-prefix can move the whole install.
pc_dir = $(patsubst $(PREFIX)/%,$${prefix}/%,$(1))

.PHONY: install uninstall
install: $(LIBCCORE_PUBLIC) $(TOOLS) $(FW_BINS) runtime/ccore.pc.in
	@echo "  INSTALL $(DESTDIR)$(PREFIX)"
	$(Q)install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(INCLUDEDIR)/ccore \
		$(DESTDIR)$(BINDIR) $(DESTDIR)$(FIRMWAREDIR)/ccore
	$(Q)install -m 755 $(LIBCCORE_SO_REAL) $(DESTDIR)$(LIBDIR)/
	$(Q)ln -sfn $(notdir $(LIBCCORE_SO_REAL)) $(DESTDIR)$(LIBDIR)/$(LIBCCORE_SONAME)
	$(Q)ln -sfn $(LIBCCORE_SONAME) $(DESTDIR)$(LIBDIR)/libccore.so
	$(Q)install -m 644 $(LIBCCORE_A) $(DESTDIR)$(LIBDIR)/
	$(Q)install -m 644 $(PUBLIC_HEADERS) $(DESTDIR)$(INCLUDEDIR)/ccore/
	$(Q)sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(call pc_dir,$(LIBDIR))|' \
		-e 's|@INCLUDEDIR@|$(call pc_dir,$(INCLUDEDIR))|' \
		-e 's|@FIRMWAREDIR@|$(call pc_dir,$(FIRMWAREDIR))|' -e 's|@VERSION@|$(CCORE_VERSION)|' \
		runtime/ccore.pc.in >$(DESTDIR)$(PKGCONFIGDIR)/ccore.pc
	$(Q)install -m 755 $(TOOLS) $(DESTDIR)$(BINDIR)/
	$(Q)install -m 644 $(FW_BINS) $(DESTDIR)$(FIRMWAREDIR)/ccore/

uninstall:
	@echo "  UNINSTALL $(DESTDIR)$(PREFIX)"
	$(Q)rm -f $(DESTDIR)$(LIBDIR)/$(notdir $(LIBCCORE_SO_REAL)) $(DESTDIR)$(LIBDIR)/$(LIBCCORE_SONAME) \
		$(DESTDIR)$(LIBDIR)/libccore.so $(DESTDIR)$(LIBDIR)/libccore.a \
		$(DESTDIR)$(PKGCONFIGDIR)/ccore.pc \
		$(addprefix $(DESTDIR)$(INCLUDEDIR)/ccore/,$(notdir $(PUBLIC_HEADERS))) \
		$(addprefix $(DESTDIR)$(BINDIR)/,$(TOOL_NAMES)) \
		$(addprefix $(DESTDIR)$(FIRMWAREDIR)/ccore/,$(notdir $(FW_BINS)))
	$(Q)rmdir $(DESTDIR)$(INCLUDEDIR)/ccore $(DESTDIR)$(FIRMWAREDIR)/ccore 2>/dev/null || true

# --- running ---------------------------------------------------------------

demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)scripts/demo.sh $(BIN)

# The normal build and the sanitizer build run the same userspace tests;
# then the kernel module is built (W=1, sparse), checkpatch'ed and tested
# in QEMU (scripts/check.sh).
check: deps-check kernel-deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)$(MAKE) --no-print-directory BUILD=$(BUILD)/asan SAN=1 all
	$(Q)$(MAKE) --no-print-directory BUILD=$(BUILD)/tsan SAN=thread tsan-tests
	$(Q)$(MAKE) --no-print-directory FUZZ_TARGET=verify fuzz-build
	$(Q)scripts/check.sh $(BUILD) $(BUILD)/asan $(BUILD)/tsan

# The tests with several threads, under ThreadSanitizer (the model's shim
# on pthread primitives then: model/ccm_os_user.h), and the bootstrap's
# (its root is a thread) and the network transport's (its proxy thread and
# callers posting their own small requests).  make check runs them.
TSAN_TESTS := threads_test os_shim_test nic_test
.PHONY: tsan-tests
tsan-tests: $(addprefix $(BUILD)/tests/runtime/,$(TSAN_TESTS)) $(BUILD)/tests/bootstrap/boot_test \
	$(BUILD)/tests/net/put_test

# The kernel module, against Debian's 6.12 headers (scripts/kernel-deps.sh).
driver: kernel-deps
	$(Q)scripts/build-driver.sh

test: check

# The timed model at scale: 1024 ranks (16 nodes x 8 devices x 8 ranks),
# simulated; the bench prints the wall clock and peak RSS, under each row
# where the wall clock of planning and lowering went, and at the end the
# longest planning and lowering of a plan.  Ring at 1 GiB with the
# tuner's slices and with one; then the tuner's own choice at every
# eighth size from 8 bytes to 1 GiB (its hierarchical scratch buffer
# needs more than the default 16 GiB per device).
TIMED_SCALE := --timed --op allreduce --ranks 1024 --nodes 16 --ranks-per-device 8

bench: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)$(BIN)/ccore-bench --copy
	$(Q)$(BIN)/ccore-bench $(TIMED_SCALE) -b 1G -e 1G --algo ring
	$(Q)CCORE_SLICES=1 $(BIN)/ccore-bench $(TIMED_SCALE) -b 1G -e 1G --algo ring
	$(Q)$(BIN)/ccore-bench $(TIMED_SCALE) -b 8 -e 1G -f 8 --sim hbm=32G
	$(Q)$(BIN)/ccore-plan --regret
	$(Q)scripts/bench-exec.sh $(BUILD)

# AllReduce next to Open MPI (shared memory, same N and sizes).
bench-compare: deps
	$(Q)scripts/deps.sh openmpi-bin libopenmpi-dev
	$(Q)$(MAKE) --no-print-directory all
	$(Q)scripts/bench-compare.sh $(BUILD)

# Across hosts (network namespaces, needs root): ccore next to Open MPI's
# tcp with coll tuned and coll han, and the raw put bandwidth.
bench-hosts: deps
	$(Q)scripts/deps.sh openmpi-bin libopenmpi-dev iproute2 util-linux
	$(Q)$(MAKE) --no-print-directory all
	$(Q)scripts/bench-hosts.sh $(BUILD)

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD)/obj $(PIC) $(BUILD)/tests -name '*.d' 2>/dev/null)

# --- kernel test infrastructure (QEMU) --------------------------------------
# kernel-deps installs the 6.12 kernel, QEMU and busybox (only what is
# missing); qemu-check boots that kernel with build/driver/*.ko and runs
# build/tests/kernel/ in it (check does both, see scripts/check.sh). QEMU_ARGS passes
# options to selftests/qemu/run.sh, e.g. QEMU_ARGS="--test NAME -v".
QEMU_ARGS ?=

.PHONY: kernel-deps qemu-check

kernel-deps:
	$(Q)scripts/kernel-deps.sh >/dev/null

qemu-check: kernel-deps
	$(Q)selftests/qemu/run.sh $(QEMU_ARGS)

# --- module lifetime stress (QEMU) -------------------------------------------
# The shell tests' TAP helpers, next to them in the guest.
TAP_SH := $(BUILD)/tests/kernel/helpers/tap.sh
$(TAP_SH): selftests/lib/tap.sh
	$(install_data)
# Saving and restoring the fabrics around an unload of ccore.ko.
FABRICS_SH := $(BUILD)/tests/kernel/helpers/fabrics.sh
$(FABRICS_SH): selftests/lib/fabrics.sh
	$(install_data)

STRESS_TESTS := $(BUILD)/tests/kernel/stress_test.sh $(BUILD)/tests/kernel/helpers/stress_holder \
	$(TAP_SH) $(FABRICS_SH)
ifeq ($(SAN),)
all: $(STRESS_TESTS)
endif

$(BUILD)/tests/kernel/stress_test.sh: selftests/stress/stress_test.sh
	$(install_script)

$(BUILD)/tests/kernel/helpers/stress_holder: selftests/stress/stress_holder.c uapi/drm/ccore_accel.h
	@mkdir -p $(dir $@)
	@echo "  TEST    $@"
	$(Q)$(CC) $(CSTD) $(OPT) $(WARN) $(INCLUDES) $(MODEL_INCLUDES) -static $< -o $@

# --- ioctl fuzzer and the replays of issue 14's findings (QEMU) --------------
# kfuzz_test.sh runs every scenario of helpers/ccore_kfuzz and a short random
# run in the guest (a long one: make fuzz-kernel); static, as stress_holder.
# Its .timeout file gives the guest runner its own time limit.
KFUZZ_SRCS := $(sort $(wildcard selftests/kfuzz/*.c))
KFUZZ_TESTS := $(BUILD)/tests/kernel/kfuzz_test.sh $(BUILD)/tests/kernel/kfuzz_test.sh.timeout \
	$(BUILD)/tests/kernel/helpers/ccore_kfuzz $(TAP_SH) $(FABRICS_SH)
ifeq ($(SAN),)
all: $(KFUZZ_TESTS)
endif

$(BUILD)/tests/kernel/kfuzz_test.sh: selftests/kfuzz/kfuzz_test.sh
	$(install_script)

$(BUILD)/tests/kernel/kfuzz_test.sh.timeout: selftests/kfuzz/kfuzz_test.sh.timeout
	$(install_data)

$(BUILD)/tests/kernel/helpers/ccore_kfuzz: $(KFUZZ_SRCS) selftests/kfuzz/kfuzz.h uapi/drm/ccore_accel.h \
		selftests/driver/ccore_sim_place.h
	@mkdir -p $(dir $@)
	@echo "  TEST    $@"
	$(Q)$(CC) $(CSTD) $(OPT) $(WARN) -D_GNU_SOURCE $(INCLUDES) $(MODEL_INCLUDES) -Iselftests/driver \
		-static $(KFUZZ_SRCS) -o $@

# make fuzz-kernel FUZZ_SECONDS=1800 FUZZ_SEEDS="1 2 3": a long random run in
# its own QEMU boot (slub_debug, KFENCE), per-ioctl counts and a verdict.
# FUZZ_SECONDS is make fuzz's too: given on the command line it counts for
# both; unset, fuzz-kernel runs 600 s.
FUZZ_SEEDS ?= 1 2 3
FUZZ_PROCS ?= 4
KFUZZ_SECONDS = $(if $(filter command line environment,$(origin FUZZ_SECONDS)),$(FUZZ_SECONDS),600)
.PHONY: fuzz-kernel
fuzz-kernel: kernel-deps driver $(FW_BINS) $(KFUZZ_TESTS)
	$(Q)scripts/fuzz-kernel.sh --seconds $(KFUZZ_SECONDS) --seeds "$(FUZZ_SEEDS)" --procs $(FUZZ_PROCS)

# --- generic netlink family (QEMU) ------------------------------------------
# genl_test.sh drives ccore-info --netlink/--watch in the guest, sends raw
# dev-get requests with genl_request and makes jobs fail with genl_provoke;
# all three are linked statically, as the runner copies shared libraries
# for test binaries only (not for helpers/).  Not in the sanitizer build:
# ASan does not link statically.
GENL_TESTS := $(BUILD)/tests/kernel/genl_test.sh $(BUILD)/tests/kernel/helpers/ccore-info \
	$(BUILD)/tests/kernel/helpers/genl_provoke $(BUILD)/tests/kernel/helpers/genl_request \
	$(BUILD)/tests/kernel/sysfs_test.sh $(TAP_SH)
ifeq ($(SAN),)
all: $(GENL_TESTS)
endif

# The family's uAPI header compiles on its own, in C and in C++.  It is
# generated from Documentation/netlink/ccore.yaml: scripts/ynl-regen.sh.
GENL_HDR_CHECKS := $(BUILD)/tests/uapi/genl_header_c.stamp $(BUILD)/tests/uapi/genl_header_cxx.stamp
all: $(GENL_HDR_CHECKS)
$(BUILD)/tests/uapi/genl_header_c.stamp: uapi/linux/ccore_genl.h
	@mkdir -p $(dir $@)
	@echo "  HDRCHK  C   $<"
	$(Q)echo '#include <linux/ccore_genl.h>' | $(CC) -std=c99 -pedantic -Wall -Wextra -Werror -Iuapi -fsyntax-only -x c -
	$(Q)touch $@
$(BUILD)/tests/uapi/genl_header_cxx.stamp: uapi/linux/ccore_genl.h
	@mkdir -p $(dir $@)
	@echo "  HDRCHK  C++ $<"
	$(Q)echo '#include <linux/ccore_genl.h>' | $(CXX) -std=c++11 -pedantic -Wall -Wextra -Werror -Iuapi -fsyntax-only -x c++ -
	$(Q)touch $@

$(BUILD)/tests/kernel/genl_test.sh: selftests/driver/genl_test.sh
	$(install_script)

# sysfs and debugfs of the driver (a shell script, run as a guest test).
$(BUILD)/tests/kernel/sysfs_test.sh: selftests/driver/sysfs_test.sh
	$(install_script)

$(BUILD)/tests/kernel/helpers/ccore-info: $(call objs,$(wildcard tools/ccore-info/*.c)) $(TOOL_COMMON_OBJS) \
		$(LIBCCORE)
	@mkdir -p $(dir $@)
	@echo "  LD      $@ (static)"
	@# ld's warnings: libnl's unused name lookups want glibc's NSS modules
	$(Q)$(CC) -static -Wl,--no-warnings $(LDFLAGS_ALL) $^ -o $@ $(NL_LIBS) $(LIBCCORE_LIBS) $(LDLIBS_ALL)

$(BUILD)/tests/kernel/helpers/genl_provoke: selftests/driver/genl_provoke.c uapi/drm/ccore_accel.h
	@mkdir -p $(dir $@)
	@echo "  TEST    $@"
	$(Q)$(CC) $(CSTD) $(OPT) $(WARN) -D_GNU_SOURCE $(INCLUDES) $(MODEL_INCLUDES) -static $< -o $@

$(BUILD)/tests/kernel/helpers/genl_request: selftests/driver/genl_request.c uapi/linux/ccore_genl.h
	@mkdir -p $(dir $@)
	@echo "  TEST    $@"
	$(Q)$(CC) $(CSTD) $(OPT) $(WARN) -D_GNU_SOURCE -Iuapi $(NL_CFLAGS) -static -Wl,--no-warnings $< -o $@ $(NL_LIBS)

# --- fuzzing (libFuzzer) -----------------------------------------------------
# The library is rebuilt with clang under ASan/UBSan and libFuzzer's
# coverage (in $(BUILD)/fuzz).  FUZZ_TARGET exe_load (default) fuzzes the
# .cce loader from the checked-in corpus (selftests/fuzz/corpus, see
# make-corpus.sh there); exe_text the text description reader from the
# seed descriptions; verify the model's verifier (model/ccm_verify.c,
# ccm_compute_verify.c) and runs what it accepts, from
# selftests/fuzz/verify-corpus (make-verify-corpus.py); make check runs it
# for 20 s (scripts/check.sh).  What the fuzzer finds is kept in
# $(BUILD)/fuzz/corpus-TARGET, crashing inputs go to $(BUILD)/fuzz/artifacts/.
FUZZ_SECONDS ?= 60
FUZZ_TARGET ?= exe_load
FUZZ_DIR := $(BUILD)/fuzz
FUZZ_CC := clang
DEPS_FUZZ := clang libclang-rt-14-dev
FUZZ_SEEDS_exe_load := selftests/fuzz/corpus
FUZZ_SEEDS_exe_text := selftests/fuzz/seeds examples
FUZZ_DICT_exe_load := selftests/fuzz/exe.dict
FUZZ_DICT_exe_text := selftests/fuzz/exe_text.dict
FUZZ_SEEDS_verify := selftests/fuzz/verify-corpus
FUZZ_DICT_verify := selftests/fuzz/verify.dict
# an input runs a bounded number of model steps: one taking seconds is a bug
FUZZ_FLAGS_verify := -timeout=10

.PHONY: fuzz fuzz-build
fuzz: fuzz-build
	$(Q)mkdir -p $(FUZZ_DIR)/corpus-$(FUZZ_TARGET) $(FUZZ_DIR)/artifacts
	$(Q)UBSAN_OPTIONS=print_stacktrace=1 $(FUZZ_DIR)/fuzzers/$(FUZZ_TARGET) -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
		-dict=$(FUZZ_DICT_$(FUZZ_TARGET)) -artifact_prefix=$(FUZZ_DIR)/artifacts/ $(FUZZ_FLAGS_$(FUZZ_TARGET)) \
		$(FUZZ_DIR)/corpus-$(FUZZ_TARGET) $(FUZZ_SEEDS_$(FUZZ_TARGET))

fuzz-build:
	$(Q)case "$(FUZZ_TARGET)" in exe_load|exe_text|verify) ;; \
		*) echo "FUZZ_TARGET=$(FUZZ_TARGET): expected exe_load, exe_text or verify" >&2; exit 2 ;; esac
	$(Q)scripts/deps.sh $(DEPS_FUZZ)
	$(Q)$(MAKE) --no-print-directory BUILD=$(FUZZ_DIR) CC=$(FUZZ_CC) SAN=1 \
		EXTRA_CFLAGS=-fsanitize=fuzzer-no-link $(FUZZ_DIR)/fuzzers/$(FUZZ_TARGET)

$(BUILD)/fuzzers/%: selftests/fuzz/%_fuzz.c $(LIBCCORE)
	@mkdir -p $(dir $@)
	@echo "  FUZZ    $@"
	$(Q)$(CC) $(CFLAGS_ALL) -fsanitize=fuzzer $< $(LIBCCORE) -o $@ $(LDFLAGS_ALL) -fsanitize=fuzzer $(LIBCCORE_LIBS) $(LDLIBS_ALL)

# --- executables on the kernel devices (QEMU) --------------------------------
# exe_bench_test.sh runs ccore-bench --exec on examples/tp_fsdp.txt in the
# guest; the tools are linked statically (the runner copies shared
# libraries for test binaries only, not for helpers/), so not in the
# sanitizer build.
EXE_BENCH_TESTS := $(BUILD)/tests/kernel/exe_bench_test.sh $(BUILD)/tests/kernel/helpers/ccore-bench \
	$(BUILD)/tests/kernel/helpers/ccore-exe $(BUILD)/tests/kernel/helpers/tp_fsdp.txt $(TAP_SH)
ifeq ($(SAN),)
all: $(EXE_BENCH_TESTS)
endif

$(BUILD)/tests/kernel/exe_bench_test.sh: selftests/accel/exe_bench_test.sh
	$(install_script)

$(BUILD)/tests/kernel/helpers/tp_fsdp.txt: examples/tp_fsdp.txt
	$(install_data)

$(BUILD)/tests/kernel/helpers/ccore-bench $(BUILD)/tests/kernel/helpers/ccore-exe: \
$(BUILD)/tests/kernel/helpers/%: $$(call objs,$$(wildcard tools/%/*.c)) $(TOOL_COMMON_OBJS) $(LIBCCORE)
	@mkdir -p $(dir $@)
	@echo "  LD      $@ (static)"
	@# ld's warning: the bootstrap's getaddrinfo() (CCORE_COMM_ID=host:port)
	@# wants glibc's NSS modules at run time; the guest has this host's glibc
	@# and its tests give numeric addresses, which need none
	$(Q)$(CC) -static -Wl,--no-warnings $(LDFLAGS_ALL) $^ -o $@ $(LIBCCORE_LIBS) $(LDLIBS_ALL)

# --- the PyTorch backend (bindings/pytorch/) ---------------------------------
# torch.distributed's "ccore" backend: a C++14 shim over the public API and
# the Python package ccore (import ccore.torch), in $(BUILD)/python/
# (PYTHONPATH=$(BUILD)/python).  The extension links libccore.a, so it needs
# no library path.  Built when Debian's python3-torch, libtorch-dev and
# pybind11-dev are there (make deps-torch installs them; make check does),
# else make says so; never in the sanitizer builds (python3 does not load
# their runtime).  Documentation/pytorch.rst.
TORCH_PYTHON := /usr/bin/python3
TORCH_FOUND := $(and $(wildcard /usr/include/torch/csrc/distributed/c10d/ProcessGroup.hpp),$(wildcard \
	/usr/lib/python3/dist-packages/torch/__init__.py),$(wildcard /usr/include/pybind11/pybind11.h))
PYTORCH_SRCS := $(sort $(wildcard bindings/pytorch/*.cpp))
PYTORCH_OBJS := $(patsubst %.cpp,$(OBJ)/%.o,$(PYTORCH_SRCS))
PYTORCH_PKG := $(BUILD)/python/ccore
PYTORCH_EXT := $(PYTORCH_PKG)/_torch_backend.so
PYTORCH_PY := $(patsubst bindings/pytorch/ccore/%,$(PYTORCH_PKG)/%,$(sort $(wildcard bindings/pytorch/ccore/*.py)))
# the test, and the example it runs under torchrun (data: run.sh runs
# every executable of tests/)
PYTORCH_TESTS := $(BUILD)/tests/pytorch/torch_backend_test $(BUILD)/tests/pytorch/torch_ddp.py
# torch's headers (and Python's) as system headers: -Werror is for ours
PYTORCH_CXXFLAGS = -std=c++14 $(OPT) -fPIC -fvisibility=hidden -Wall -Wextra -Werror -pthread -MMD -MP \
	-Iruntime/include -isystem /usr/include/torch/csrc/api/include \
	$(patsubst -I%,-isystem %,$(shell /usr/bin/python3-config --includes))
# libtorch_python: torch's pybind11 types (ProcessGroup, Store); libpython
# comes from the interpreter that loads the extension
PYTORCH_LIBS := -ltorch_python -ltorch -ltorch_cpu -lc10

.PHONY: pytorch deps-torch bench-torch
deps-torch:
	$(Q)scripts/deps.sh $(DEPS_TORCH)

ifeq ($(SAN),)
ifneq ($(TORCH_FOUND),)
all: pytorch
pytorch: $(PYTORCH_EXT) $(PYTORCH_PY) $(PYTORCH_TESTS)
else
all: pytorch
pytorch:
	@echo "  SKIP    bindings/pytorch: torch is not installed ($(DEPS_TORCH); make deps-torch)"
endif
endif

$(OBJ)/bindings/pytorch/%.o: bindings/pytorch/%.cpp
	@mkdir -p $(dir $@)
	@echo "  CXX     $<"
	$(Q)$(CXX) $(PYTORCH_CXXFLAGS) -c $< -o $@

$(PYTORCH_EXT): $(PYTORCH_OBJS) $(LIBCCORE_A)
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	$(Q)$(CXX) -shared -pthread $(PYTORCH_OBJS) $(LIBCCORE_A) -o $@ $(PYTORCH_LIBS) $(LIBCCORE_LIBS) $(LDLIBS_ALL)

$(PYTORCH_PKG)/%.py: bindings/pytorch/ccore/%.py
	$(install_data)

$(BUILD)/tests/pytorch/%: selftests/pytorch/%.py
	$(install_script)

$(BUILD)/tests/pytorch/torch_ddp.py: examples/torch_ddp.py
	$(install_data)

# DDP step time and a 25 MiB AllReduce through torch.distributed, ccore
# against gloo, 4 processes (bindings/pytorch/bench.py --help)
bench-torch: deps-torch
	$(Q)$(MAKE) --no-print-directory all
	$(Q)$(TORCH_PYTHON) bindings/pytorch/bench.py --python-dir $(BUILD)/python

# make install: the package where Debian's python3 looks under PREFIX
# (/usr/local/lib/python3.11/dist-packages)
PYTHONDIR ?= $(PREFIX)/lib/$(shell $(TORCH_PYTHON) -c 'import sys; print("python%d.%d" % sys.version_info[:2])')/dist-packages
.PHONY: install-pytorch uninstall-pytorch
install-pytorch: pytorch
	$(Q)install -d $(DESTDIR)$(PYTHONDIR)/ccore
	$(Q)install -m 644 $(PYTORCH_PY) $(DESTDIR)$(PYTHONDIR)/ccore/
	$(Q)install -m 755 $(PYTORCH_EXT) $(DESTDIR)$(PYTHONDIR)/ccore/
uninstall-pytorch:
	$(Q)rm -rf $(DESTDIR)$(PYTHONDIR)/ccore
ifeq ($(SAN)$(if $(TORCH_FOUND),,none),)
install: install-pytorch
uninstall: uninstall-pytorch
endif
