#!/usr/bin/env python3
"""Writes tracefs-like format files for the events the kernel probes use,
derived from a kernel's module BTF (the trace_event_raw_<class> structs that
the format files describe), for kernels whose tracefs we cannot read here.

    derive.py VMLINUX SUNRPC.ko RPCRDMA.ko KERNEL-NAME OUTDIR

VMLINUX is the ELF kernel (its .BTF is the base of the modules' split BTF);
the .ko files must be uncompressed.  Offsets, sizes and signedness come
from BTF; type names are BTF's, except __data_loc fields (BTF has a u32
__data_loc_NAME), written as '__data_loc char[]', or '__data_loc u8[]' for
the socket addresses 'server' and 'client' (__sockaddr).  Every file says
it is derived on its print fmt line: a real tracefs copy replaces it."""
import os
import struct
import subprocess
import sys

# event -> its event class (DEFINE_EVENT) in include/trace/events/{sunrpc,rpcrdma}.h
CLASSES = {
    'sunrpc': {
        'rpc_task_begin': 'rpc_task_running', 'rpc_clnt_new': 'rpc_clnt_new',
        'rpc_stats_latency': 'rpc_stats_latency', 'svc_process': 'svc_process',
        'svc_stats_latency': 'svc_stats_latency',
    },
    'rpcrdma': {
        'xprtrdma_chunk_read': 'xprtrdma_rdch_event', 'xprtrdma_chunk_write': 'xprtrdma_wrch_event',
        'xprtrdma_chunk_wp': 'xprtrdma_wrch_event', 'xprtrdma_chunk_reply': 'xprtrdma_wrch_event',
        'xprtrdma_marshal': 'xprtrdma_marshal', 'xprtrdma_post_send': 'xprtrdma_post_send',
        'xprtrdma_reply': 'xprtrdma_reply', 'svcrdma_decode_rqst': 'svcrdma_decode_rqst',
        'svcrdma_post_read_chunk': 'svcrdma_post_chunk_class',
        'svcrdma_post_write_chunk': 'svcrdma_post_chunk_class',
        'svcrdma_post_reply_chunk': 'svcrdma_post_chunk_class',
        'svcrdma_wc_read': 'svcrdma_wc_read', 'svcrdma_post_send': 'svcrdma_post_send',
        # 6.1: rpcrdma_send_completion_class; 6.12: rpcrdma_simple_cid_class
        'svcrdma_wc_write': ('rpcrdma_simple_cid_class', 'rpcrdma_send_completion_class'),
        'svcrdma_wc_send': ('rpcrdma_simple_cid_class', 'rpcrdma_send_completion_class'),
        'svcrdma_wc_reply': ('rpcrdma_simple_cid_class',),
        'svcrdma_read_finished': ('rpcrdma_simple_cid_class',),
        'svcrdma_wc_recv': ('rpcrdma_receive_success_class',),
    },
}
SOCKADDRS = ('server', 'client')


def section(path, name):
    out = subprocess.run(['readelf', '-SW', path], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        p = line.replace('[ ', '[').split()
        if len(p) > 5 and p[1] == name:
            with open(path, 'rb') as f:
                f.seek(int(p[4], 16))
                return f.read(int(p[5], 16))
    sys.exit('%s: no %s section' % (path, name))


class BTF:
    """Types and strings of one BTF blob; split BTF continues its base's ids and string offsets."""
    EXTRA = {1: 4, 3: 12, 4: None, 5: None, 6: 8, 13: 8, 14: 4, 15: 12, 17: 4, 19: 12}

    def __init__(self, data, base=None):
        _, _, _, hlen, toff, tlen, soff, slen = struct.unpack('<HBBIIIII', data[:24])
        self.types = list(base.types) if base else [None]
        self.nbase = len(self.types)
        self.strs = (base.strs if base else b'') + data[hlen + soff:hlen + soff + slen]
        t = data[hlen + toff:hlen + toff + tlen]
        i = 0
        while i < len(t):
            name_off, info, sz = struct.unpack_from('<III', t, i)
            i += 12
            kind, vlen = (info >> 24) & 0x1f, info & 0xffff
            ty = {'name': self.str(name_off), 'kind': kind, 'kflag': info >> 31, 'sz': sz}
            if kind == 1:
                ty['enc'] = struct.unpack_from('<I', t, i)[0]
            elif kind == 3:
                ty['arr'] = struct.unpack_from('<III', t, i)
            elif kind in (4, 5):
                ty['members'] = [struct.unpack_from('<III', t, i + 12 * k) for k in range(vlen)]
            step = self.EXTRA.get(kind, 0)
            i += 12 * vlen if step is None else (step * vlen if kind in (6, 13, 15, 19) else step)
            self.types.append(ty)

    def str(self, off):
        return self.strs[off:self.strs.index(b'\0', off)].decode()

    def resolve(self, tid):
        while tid and self.types[tid]['kind'] in (8, 9, 10, 11, 18):
            tid = self.types[tid]['sz']
        return tid

    def size(self, tid):
        t = self.types[self.resolve(tid)]
        if t['kind'] == 2:
            return 8
        if t['kind'] == 3:
            return t['arr'][2] * self.size(t['arr'][0])
        return t['sz']

    def signed(self, tid):
        t = self.types[self.resolve(tid)]
        return 1 if t['kind'] == 1 and (t['enc'] >> 24) & 1 else 0

    def tname(self, tid):
        if not tid:
            return 'void'
        t = self.types[tid]
        if t['kind'] == 2:
            return self.tname(t['sz']) + ' *'
        if t['kind'] in (9, 10, 11):
            return self.tname(t['sz'])
        # spelled as the kernel's TP_STRUCT__entry spells them
        return {'long unsigned int': 'unsigned long', 'long int': 'long'}.get(t['name'], t['name'])

    def struct(self, name):
        for t in self.types[self.nbase:]:
            if t and t['kind'] == 4 and t['name'] == name:
                return t
        return None


def format_text(btf, sys_name, event, st, kernel):
    lines = ['name: %s' % event, 'ID: 0', 'format:',
             '\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;',
             '\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;',
             '\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;',
             '\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;', '']
    for name_off, tid, off in st['members']:
        name = btf.str(name_off)
        if name in ('ent', '__data'):
            continue
        bit = off & 0xffffff if st['kflag'] else off
        if name.startswith('__data_loc_'):
            name = name[len('__data_loc_'):]
            decl = '__data_loc %s %s' % ('u8[]' if name in SOCKADDRS else 'char[]', name)
            sgn = 0 if name in SOCKADDRS else 1
        else:
            t = btf.types[tid]
            if t['kind'] == 3:
                decl = '%s %s[%d]' % (btf.tname(t['arr'][0]), name, t['arr'][2])
            else:
                decl = '%s %s' % (btf.tname(tid), name)
            sgn = btf.signed(tid)
        lines.append('\tfield:%s;\toffset:%d;\tsize:%d;\tsigned:%d;' % (decl, bit // 8, btf.size(tid), sgn))
    lines += ['', 'print fmt: "derived from the module BTF of %s (%s:%s), not a tracefs copy"' %
              (kernel, sys_name, event)]
    return '\n'.join(lines) + '\n'


def main():
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    vmlinux, sunrpc, rpcrdma, kernel, outdir = sys.argv[1:]
    base = BTF(section(vmlinux, '.BTF'))
    for sys_name, ko in (('sunrpc', sunrpc), ('rpcrdma', rpcrdma)):
        btf = BTF(section(ko, '.BTF'), base)
        for event, cls in CLASSES[sys_name].items():
            cls = cls if isinstance(cls, tuple) else (cls,)
            st = next((s for s in (btf.struct('trace_event_raw_' + c) for c in cls) if s), None)
            if not st:
                print('%s:%s: not in this kernel (no event class %s in %s)' % (sys_name, event, '/'.join(cls), ko))
                continue
            d = os.path.join(outdir, sys_name, event)
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, 'format'), 'w') as f:
                f.write(format_text(btf, sys_name, event, st, kernel))


main()
