# common.mk: toolchain, flags and quiet-build helpers shared by every Makefile.
# Output goes to $(O) (default build/, build-san/ with SANITIZE=1).

V        ?= 0
SANITIZE ?= 0
WERROR   ?= $(if $(filter true 1,$(CI)),1,0)

ifeq ($(SANITIZE),1)
O ?= build-san
else
O ?= build
endif

ifeq ($(V),1)
Q    :=
msg   =
else
Q    := @
msg   = @printf '  %-8s %s\n' '$(1)' '$(2)';
endif

CC       ?= cc
CLANG    ?= clang
BPFTOOL  ?= $(shell command -v bpftool 2>/dev/null || echo /usr/sbin/bpftool)
AR       ?= ar
PKG_CONFIG ?= pkg-config

WARNINGS := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
            -Wpointer-arith -Wformat=2 -Wundef -Wcast-qual -Wwrite-strings \
            -Wno-unused-parameter
ifeq ($(WERROR),1)
WARNINGS += -Werror
endif

OPT      ?= -O2
CFLAGS   ?= $(OPT) -g
CPPFLAGS += -D_GNU_SOURCE -I. -isystem $(O)  # generated skeletons: not our warnings
ALL_CFLAGS = -std=gnu11 $(WARNINGS) $(CFLAGS) -fno-strict-aliasing -MMD -MP

ifeq ($(SANITIZE),1)
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
ALL_CFLAGS += $(SAN_FLAGS)
LDFLAGS    += $(SAN_FLAGS)
endif

LIBPCAP_LIBS := $(shell $(PKG_CONFIG) --libs libpcap 2>/dev/null || echo -lpcap)
LIBBPF_LIBS  := $(shell $(PKG_CONFIG) --libs libbpf 2>/dev/null || echo -lbpf -lelf -lz)
RDMA_LIBS    := -lrdmacm -libverbs
NCURSES_LIBS := $(shell $(PKG_CONFIG) --libs ncursesw 2>/dev/null || echo -lncursesw)
# nfsrdmad --forward / --collect (src/daemon/fwd_*.c)
ZMQ_LIBS := $(shell $(PKG_CONFIG) --libs libzmq 2>/dev/null || echo -lzmq)
# nfsrdmad's protobuf exposition, native histograms (src/daemon/metrics_pb.c)
PROTOBUF_C_LIBS := $(shell $(PKG_CONFIG) --libs libprotobuf-c 2>/dev/null || echo -lprotobuf-c)
# compressed captures (pcap/capstream.c): gzip, zstd, xz
COMPRESS_LIBS := $(shell $(PKG_CONFIG) --libs zlib libzstd liblzma 2>/dev/null || echo -lz -lzstd -llzma)

BPF_CFLAGS := -g -O2 -target bpf -Wall -Werror -I$(O) -I. \
              -D__TARGET_ARCH_x86 -I/usr/include/$(shell uname -m)-linux-gnu

PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
LIBDIR  ?= $(PREFIX)/lib
MANDIR  ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share/nfsrdma
# each tool's bash completion, as `TOOL --completion bash` prints it
COMPDIR ?= $(PREFIX)/share/bash-completion/completions
UNITDIR ?= $(PREFIX)/lib/systemd/system
SYSCONFDIR ?= /etc
DESTDIR ?=
