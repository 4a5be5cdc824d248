# nfsrdma top-level Makefile.  `make` builds everything into $(O)/ (build/).
# Sources are found by directory, so adding a file needs no edit here:
#   dissect/ *.c             -> $(O)/libnfsrdma-dissect.a (libc alone; its
#                               includes checked by tests/unit/layering.sh first)
#   dissect/ pcap/ src/ *.c  -> $(O)/libnfsrdma.a
#   cli/<tool>.c             -> $(O)/bin/<tool>
#   bpf/<name>.bpf.c         -> $(O)/bpf/<name>.bpf.o + $(O)/<name>.skel.h
#   tests/unit/test_*.c      -> $(O)/tests/test_*
#   tests/fuzz/fuzz_*.c      -> $(O)/fuzz/fuzz_*   (make fuzz, clang libFuzzer)
#   bench/sleep-floor.c      -> $(O)/bench/sleep-floor (BENCH_BINS: listed, not found)
include common.mk

.DEFAULT_GOAL := all

LIB_SRCS  := $(sort $(wildcard dissect/*.c pcap/*.c src/*/*.c))
# protoc-c's C for Prometheus's protobuf exposition (src/daemon/metrics_pb.c)
PROTO_GEN := $(O)/gen/prom_metrics.pb-c
LIB_OBJS  := $(LIB_SRCS:%.c=$(O)/obj/%.o) $(O)/obj/gen/prom_metrics.pb-c.o
LIB       := $(O)/libnfsrdma.a
DISSECT_SRCS := $(sort $(wildcard dissect/*.c))
DISSECT_OBJS := $(DISSECT_SRCS:%.c=$(O)/obj/%.o)
DISSECT_LIB  := $(O)/libnfsrdma-dissect.a

CLI_SRCS  := $(sort $(wildcard cli/*.c))
CLI_BINS  := $(CLI_SRCS:cli/%.c=$(O)/bin/%)

BPF_SRCS  := $(sort $(wildcard bpf/*.bpf.c))
BPF_OBJS  := $(BPF_SRCS:bpf/%.bpf.c=$(O)/bpf/%.bpf.o)
BPF_SKELS := $(BPF_SRCS:bpf/%.bpf.c=$(O)/%.skel.h)

# linked against the dissect archive and libc alone (rule below)
ALONE_TESTS := test_dissect_alone
TEST_SRCS := $(sort $(wildcard tests/unit/test_*.c))
TEST_BINS := $(TEST_SRCS:tests/unit/%.c=$(O)/tests/%)
TEST_HELPERS := $(filter-out $(TEST_SRCS),$(wildcard tests/unit/*.c))

BPFTEST_SRCS := $(sort $(wildcard tests/bpf/test_*.c))
BPFTEST_BINS := $(BPFTEST_SRCS:tests/bpf/%.c=$(O)/tests/bpf/%)

# bench/ programs on the library (the other bench/*.c are built by their scripts)
BENCH_BINS := $(O)/bench/sleep-floor

FUZZ_SRCS := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BINS := $(FUZZ_SRCS:tests/fuzz/%.c=$(O)/fuzz/%)
# the same harnesses with a plain driver (tests/fuzz/corpus_main.c), built by
# the ordinary compiler: the unit tier replays every committed corpus
CORPUS_BINS := $(FUZZ_SRCS:tests/fuzz/%.c=$(O)/tests/corpus/%)

LDLIBS    := $(LIBBPF_LIBS) $(LIBPCAP_LIBS) $(COMPRESS_LIBS) $(RDMA_LIBS) $(NCURSES_LIBS) $(ZMQ_LIBS) $(PROTOBUF_C_LIBS) -lm -lpthread
LINK_LIBS := -Wl,--as-needed $(LIB) $(LDLIBS)

.PHONY: print-ldlibs all lib bins bench-bins bpf tests fuzz deps check check-unit check-golden check-lab \
        demo bench lab-captures man-options install uninstall clean distclean help

all: lib bpf bins bench-bins tests

lib: $(DISSECT_LIB) $(LIB)
bins: $(CLI_BINS)
bench-bins: $(BENCH_BINS)
bpf: $(BPF_OBJS) $(BPF_SKELS)
tests: $(TEST_BINS) $(BPFTEST_BINS) $(CORPUS_BINS)
fuzz: $(FUZZ_BINS)

# The libraries a program linked against $(LIB) needs, for the scripts
# that build their own drivers (tests/probe/lab.sh, tests/daemon/unit.sh, bench/).
print-ldlibs:
	@echo '$(LDLIBS)'

help:
	@echo 'make [V=1] [SANITIZE=1] [WERROR=1] [O=dir]   build into $(O)/'
	@echo 'make demo          install deps, build, dissect a bundled lab capture'
	@echo 'make check         install deps, build, run every test tier'
	@echo 'make bench         side-by-side benchmarks (bench/)'
	@echo 'make fuzz          build libFuzzer harnesses (clang)'
	@echo 'make lab-captures  regenerate tests/captures/ in the qemu lab'
	@echo 'make man-options   rewrite the OPTIONS tag lines of docs/man from the option tables'
	@echo 'make install PREFIX=/usr/local DESTDIR='

# --- objects -------------------------------------------------------------
# Skeletons are included through -isystem (their warnings are not ours),
# so -MMD leaves them out of the .d files: depend on them here instead.
$(O)/obj/%.o: %.c $(BPF_SKELS)
	$(call msg,CC,$<)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -c $< -o $@

# The join fuses every record of every vantage (bench/join.sh: >= 5 M
# records/s on one core is its target); -O3's unrolling of its small
# fixed-size loops (phases, vantages, places) was 6-7 % of it.  Only
# when the optimisation level is ours (OPT), not a CFLAGS given.
$(O)/obj/src/join/%.o: OPT = -O3

# Generated, so not held to our warnings; whatever includes its header
# waits for it.
$(PROTO_GEN).c $(PROTO_GEN).h: src/daemon/prom_metrics.proto
	$(call msg,PROTOC,$<)
	$(Q)mkdir -p $(@D)
	$(Q)protoc-c --proto_path=src/daemon --c_out=$(@D) $<
$(O)/obj/gen/prom_metrics.pb-c.o: $(PROTO_GEN).c $(PROTO_GEN).h
	$(call msg,CC,$<)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) -std=gnu11 $(CFLAGS) -w -c $< -o $@
$(O)/fuzzobj/gen/prom_metrics.pb-c.o: $(PROTO_GEN).c $(PROTO_GEN).h
	$(call msg,FUZZCC,$<)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(CPPFLAGS) $(FUZZ_CFLAGS) -w -fsanitize=fuzzer-no-link -c $< -o $@
$(O)/obj/src/daemon/metrics_pb.o $(O)/fuzzobj/src/daemon/metrics_pb.o: $(PROTO_GEN).h

# dissect/ is the decode library: it may include only its own headers
# and libc's (docs/design.md, "Layers"); the archive is not made if not.
$(DISSECT_LIB): $(DISSECT_OBJS) tests/unit/layering.sh docs/design.md
	$(call msg,LAYERS,dissect/)
	$(Q)out=$$(tests/unit/layering.sh --only dissect) || { echo "$$out" >&2; exit 1; }
	$(call msg,AR,$@)
	$(Q)mkdir -p $(@D)
	$(Q)rm -f $@ && $(AR) rcs $@ $(DISSECT_OBJS)

$(LIB): $(LIB_OBJS) $(DISSECT_LIB)
	$(call msg,AR,$@)
	$(Q)mkdir -p $(@D)
	$(Q)rm -f $@ && $(AR) rcs $@ $(LIB_OBJS)

$(O)/bin/%: cli/%.c $(LIB)
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(@D) $(O)/obj/cli
	$(Q)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -MF $(O)/obj/cli/$*.d $< -o $@ $(LDFLAGS) $(LINK_LIBS)

$(O)/bench/%: bench/%.c $(LIB)
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(@D) $(O)/obj/bench
	$(Q)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -MF $(O)/obj/bench/$*.d $< -o $@ $(LDFLAGS) $(LINK_LIBS)

$(O)/tests/%: tests/unit/%.c $(TEST_HELPERS) $(LIB)
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(@D) $(O)/obj/tests
	$(Q)$(CC) $(CPPFLAGS) -Itests/unit $(ALL_CFLAGS) -MF $(O)/obj/tests/$*.d $< $(TEST_HELPERS) -o $@ $(LDFLAGS) $(LINK_LIBS)

$(O)/tests/corpus/%: tests/fuzz/%.c tests/fuzz/corpus_main.c $(LIB)
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(@D) $(O)/obj/tests/corpus
	$(Q)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -MF $(O)/obj/tests/corpus/$*.d $< tests/fuzz/corpus_main.c -o $@ $(LDFLAGS) $(LINK_LIBS)

# No library but libc: every object of the archive, so each one's needs count.
$(ALONE_TESTS:%=$(O)/tests/%): $(O)/tests/%: tests/unit/%.c $(DISSECT_LIB)
	$(call msg,LINK,$@ (libc alone))
	$(Q)mkdir -p $(@D) $(O)/obj/tests
	$(Q)$(CC) $(CPPFLAGS) -Itests/unit $(ALL_CFLAGS) -MF $(O)/obj/tests/$*.d $< -o $@ $(LDFLAGS) \
		-Wl,--whole-archive $(DISSECT_LIB) -Wl,--no-whole-archive

$(O)/tests/bpf/%: tests/bpf/%.c $(LIB) $(BPF_SKELS)
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(@D) $(O)/obj/tests/bpf
	$(Q)$(CC) $(CPPFLAGS) -Itests/unit $(ALL_CFLAGS) -MF $(O)/obj/tests/bpf/$*.d $< -o $@ $(LDFLAGS) $(LINK_LIBS)

# libFuzzer harnesses always build with clang and ASan/UBSan.  The library
# is compiled once more, coverage-instrumented, into its own archive.
FUZZ_SAN   := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS := -g -O1 -std=gnu11 -Wall -Wextra -Wno-unused-parameter $(FUZZ_SAN)
FUZZ_OBJS  := $(LIB_SRCS:%.c=$(O)/fuzzobj/%.o) $(O)/fuzzobj/gen/prom_metrics.pb-c.o
FUZZ_LIB   := $(O)/fuzz/libnfsrdma-fuzz.a

$(O)/fuzzobj/%.o: %.c $(BPF_SKELS)
	$(call msg,FUZZCC,$<)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(CPPFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@

$(FUZZ_LIB): $(FUZZ_OBJS)
	$(call msg,AR,$@)
	$(Q)mkdir -p $(@D)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(O)/fuzz/%: tests/fuzz/%.c $(FUZZ_LIB)
	$(call msg,FUZZ,$@)
	$(Q)$(CLANG) $(CPPFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer -MMD -MP -MF $(O)/fuzzobj/$*.d $< -o $@ $(FUZZ_LIB) $(LDLIBS)

# --- BPF -----------------------------------------------------------------
$(O)/bpf/%.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.h)
	$(call msg,BPF,$<)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@.tmp
	$(Q)$(BPFTOOL) gen object $@ $@.tmp && rm -f $@.tmp

$(O)/%.skel.h: $(O)/bpf/%.bpf.o
	$(call msg,GENSKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@.tmp && mv $@.tmp $@

# --- set-up, tests, demo -------------------------------------------------
deps:
	$(Q)scripts/deps.sh build test

check:
	$(Q)scripts/deps.sh build test lab deb
	$(Q)$(MAKE) --no-print-directory all
	$(Q)O=$(O) FUZZ_SECONDS=$(FUZZ_SECONDS) tests/run-tiers.sh $(TIERS)

# The tiers alone install what they use too: without tshark, Prometheus or
# tmux their comparisons could not run.
check-unit check-golden check-lab: all
	$(Q)scripts/deps.sh build test $(if $(filter check-lab,$@),lab) $(if $(filter check-golden,$@),deb)
	$(Q)O=$(O) tests/run-tiers.sh $(@:check-%=%)

DEMO_CAPTURE ?= tests/captures/nfs3-read-write.pcap
# the man pages' OPTIONS tag lines rewritten from the tools' option tables
man-options: bins
	$(Q)python3 docs/man/options.py $(O)/bin

demo:
	$(Q)scripts/deps.sh build
	$(Q)$(MAKE) --no-print-directory all
	@echo '== nfsrdma-dissect $(DEMO_CAPTURE): one line per RPC =='
	$(Q)TZ=UTC $(O)/bin/nfsrdma-dissect $(DEMO_CAPTURE)
	@echo
	$(Q)TZ=UTC $(O)/bin/nfsrdma-dissect -q -z proc $(DEMO_CAPTURE)

bench:
	$(Q)scripts/deps.sh build test
	$(Q)$(MAKE) --no-print-directory all
	$(Q)O=$(O) bench/run.sh

lab-captures:
	$(Q)scripts/deps.sh build lab
	$(Q)$(MAKE) --no-print-directory all
	$(Q)tests/lab/make-captures.sh

# --- install -------------------------------------------------------------
# What dist/ holds for other programs (the monitoring mixin, the Wireshark
# plugin), installed by directory under DATADIR when the tree has them;
# not their dot files (.gitignore and the like are no one's data) nor
# their tests/ (the project's own checks and fixtures: its CI runs them).
DIST_SHARE ?= $(wildcard dist/mixin dist/wireshark)

# Only what is installed is built (a package build need not compile the tests).
install: bins bpf
	$(call msg,INSTALL,$(DESTDIR)$(PREFIX))
	$(Q)install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(DATADIR)/bpf
	$(Q)$(if $(CLI_BINS),install -m 0755 $(CLI_BINS) $(DESTDIR)$(BINDIR)/)
	$(Q)$(if $(BPF_OBJS),install -m 0644 $(BPF_OBJS) $(DESTDIR)$(DATADIR)/bpf/)
	$(Q)$(if $(wildcard docs/man/*.1),install -m 0644 $(wildcard docs/man/*.1) $(DESTDIR)$(MANDIR)/man1/)
	$(Q)$(if $(wildcard docs/man/*.5),install -m 0644 $(wildcard docs/man/*.5) $(DESTDIR)$(MANDIR)/man5/)
	$(Q)$(if $(wildcard docs/man/*.8),install -m 0644 $(wildcard docs/man/*.8) $(DESTDIR)$(MANDIR)/man8/)
	$(Q)install -d $(DESTDIR)$(COMPDIR)
	$(Q)$(foreach b,$(CLI_BINS),$(b) --completion bash >$(DESTDIR)$(COMPDIR)/$(notdir $(b)) &&) true
	$(Q)install -d $(DESTDIR)$(UNITDIR)
	$(Q)sed 's|/usr/local/bin/|$(BINDIR)/|' dist/nfsrdmad.service >$(DESTDIR)$(UNITDIR)/nfsrdmad.service
	$(Q)test -e $(DESTDIR)$(SYSCONFDIR)/nfsrdma/nfsrdmad.conf || \
		install -D -m 0644 dist/nfsrdmad.conf $(DESTDIR)$(SYSCONFDIR)/nfsrdma/nfsrdmad.conf
	$(Q)$(foreach d,$(patsubst %/,%,$(DIST_SHARE)),rm -rf $(DESTDIR)$(DATADIR)/$(notdir $(d)) && \
		cp -R $(d) $(DESTDIR)$(DATADIR)/ && chmod -R u+rwX,go+rX,go-w $(DESTDIR)$(DATADIR)/$(notdir $(d)) && \
		find $(DESTDIR)$(DATADIR)/$(notdir $(d)) -mindepth 1 \( -name '.*' -o -path '*/$(notdir $(d))/tests' \) \
			-prune -exec rm -rf {} + &&) true

uninstall:
	$(Q)rm -f $(CLI_BINS:$(O)/bin/%=$(DESTDIR)$(BINDIR)/%) \
	          $(patsubst docs/man/%,$(DESTDIR)$(MANDIR)/man1/%,$(wildcard docs/man/*.1)) \
	          $(patsubst docs/man/%,$(DESTDIR)$(MANDIR)/man5/%,$(wildcard docs/man/*.5)) \
	          $(patsubst docs/man/%,$(DESTDIR)$(MANDIR)/man8/%,$(wildcard docs/man/*.8))
	$(Q)rm -rf $(DESTDIR)$(DATADIR)
	$(Q)rm -f $(CLI_BINS:$(O)/bin/%=$(DESTDIR)$(COMPDIR)/%)
	$(Q)rm -f $(DESTDIR)$(UNITDIR)/nfsrdmad.service
	$(Q)# a configuration the admin changed stays
	$(Q)! cmp -s dist/nfsrdmad.conf $(DESTDIR)$(SYSCONFDIR)/nfsrdma/nfsrdmad.conf || \
		rm -f $(DESTDIR)$(SYSCONFDIR)/nfsrdma/nfsrdmad.conf

clean:
	$(Q)rm -rf $(O)

distclean:
	$(Q)rm -rf build build-san

-include $(shell find $(O) -name '*.d' 2>/dev/null)
