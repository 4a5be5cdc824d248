#!/usr/bin/env bash
# Every length bound of dissect/ has its edge case in tests/unit/test_bounds.c
# (issue 32, item 2).  A bound site is
#   - a call with a maximum: cur_xdr_opaque, xdr_skip_opaque, xdr_string, xdr_name,
#     xdr_fh, xdr_ddp_opaque, xdr_skip_array, nfs4_array_count;
#   - an `if` comparing against a named limit (*MAX*, *LIMIT*) or a number
#     of two digits or more whose next lines refuse the input (CUR_INVALID,
#     xdr_bad_u32, bad_word);
#   - an IP/UDP/TCP/GRH header length refused by ip_l4.c or roce.c (their
#     invalid() calls whose diagnostic speaks of a length: "length",
#     "PayLen", "shorter", "outside"); an LRH PktLen or ERF rlen refused
#     by ib.c or erf.c (their CUR_INVALID diagnostics naming it);
#   - a cap of the RPC-over-RDMA headers (RPCRDMA_MAX_*, RPCRDMA2_MAX_* in
#     rpcrdma.c, rpcrdma2.c: entries past it not stored, but counted);
#   - a comparison with a cap on what one message, stream or datagram may
#     hold (CAPS below: bytes of a message kept, searched, held out of
#     order, of a datagram; chunks and COMPOUND ops kept), a walk over a
#     whole fixed array excepted, and those a smaller cap shadows
#     (SHADOWED below);
# named "file:diagnostic" (the call's last argument, or the refusal's first
# string, or else the limit's name) or, for a cap, "file:MACRO".  The rows
# are the table entries { "file:diagnostic", ... } of test_bounds.c,
# test_bounds_net.c (the transport's) and test_bounds_caps.c (a record's).
# Each site must have as many rows as the source has sites of that name, so a bound added without its case
# fails here, naming it.  The primitives (extract.h, xdr.c, xdr.h) have
# fixed rows.
# Closing line: "bounds-list: N passed, N failed".
set -uo pipefail
cd "${NFSRDMA_SRCDIR:-$(dirname "$0")/../..}" || exit 1
python3 - <<'PY'
import glob, os, re, sys
from collections import Counter

calls = re.compile(r'\b(cur_xdr_opaque|xdr_skip_opaque|xdr_string|xdr_name|xdr_fh|xdr_ddp_opaque|xdr_skip_array|nfs4_array_count)\(')
limit = re.compile(r'\bif \(.*?(?:>=?|<=)\s*\(?\s*([0-9]{2,}|[A-Z][A-Z0-9_]*(?:MAX|LIMIT)[A-Z0-9_]*)\b')
refuse = re.compile(r'CUR_INVALID|xdr_bad_u32\(|bad_word\(|bad_mark\(')
lit = re.compile(r'"((?:[^"\\]|\\.)*)"')

def last_arg(text):
    """The call's last argument: its string, or the identifier."""
    depth, args, cur = 0, [], ''
    for ch in text:
        if ch == '(':
            depth += 1
            if depth == 1:
                continue
        elif ch == ')':
            depth -= 1
            if depth == 0:
                args.append(cur)
                break
        elif ch == ',' and depth == 1:
            args.append(cur)
            cur = ''
            continue
        if depth >= 1:
            cur += ch
    a = args[-1].strip() if args else '?'
    return a[1:-1] if a.startswith('"') else a

CAPS = r'RN_COPY_MAX|RN_SCAN_MAX|RN_OOO_SEGS|RN_OOO_BYTES|FRAG_BYTES|FRAG_MAX|XDR_DDP_MAX|REC_MAX_OPS'
# Cap checks a smaller cap before them makes unreachable: the Write list
# is cut at RPCRDMA_MAX_WCHUNKS (8) when decoded, under XDR_DDP_MAX (16);
# test_bounds_caps.c asserts that order at compile time.
SHADOWED = (('chunks.c', 'x->nwchunks < XDR_DDP_MAX'),
            ('dissect_record.c', 'i < h->nwchunks && i < XDR_DDP_MAX'))
sites = Counter()
where = {}
for path in sorted(glob.glob('dissect/*.[ch]')):
    f = os.path.basename(path)
    if f in ('extract.h', 'xdr.c', 'xdr.h'):
        continue
    lines = open(path).read().split('\n')
    for i, line in enumerate(lines):
        code = line.split('//')[0]
        for m in calls.finditer(code):
            # a definition or declaration is not a site
            if re.match(r'\s*(static\s+)?(inline\s+)?[a-z_0-9 ]+\s\**' + m.group(1) + r'\(', code) and \
               not re.match(r'\s*(return|if|else)\b', code) and '=' not in code.split(m.group(1))[0]:
                continue
            text = ' '.join(lines[i:i + 4])[m.start():]
            key = f + ':' + last_arg(text[len(m.group(1)):])
            sites[key] += 1
            where.setdefault(key, '%s:%d' % (path, i + 1))
        if f in ('rpcrdma.c', 'rpcrdma2.c') and not re.match(r'\s*(/?\*|#)', line):
            for c in re.findall(r'\bRPCRDMA2?_MAX_[A-Z0-9_]+', code):
                key = f + ':' + c
                sites[key] += 1
                where.setdefault(key, '%s:%d' % (path, i + 1))
        if f in ('ib.c', 'erf.c'):
            for m in re.finditer(r'\bcur_fail\(c, CUR_INVALID, "([^"]*(?:PktLen|rlen)[^"]*)"', code):
                key = f + ':' + m.group(1)
                sites[key] += 1
                where.setdefault(key, '%s:%d' % (path, i + 1))
        if f in ('ip_l4.c', 'roce.c'):
            for m in re.finditer(r'\binvalid\(c, [^"]*"([^"]*(?:length|PayLen|shorter|outside)[^"]*)"', code):
                key = f + ':' + m.group(1)
                sites[key] += 1
                where.setdefault(key, '%s:%d' % (path, i + 1))
        # the caps on what one message, stream or datagram may hold: each
        # comparison with one (not a walk over a whole fixed array, nor a
        # diagnostic's text) is a site of its own
        if not re.match(r'\s*(/?\*|#)', line) and '"' not in code:
            cmp = code.replace('->', '.')
            for c in sorted(set(re.findall(r'\b(' + CAPS + r')\b', cmp))):
                if not re.search(r'[<>]=?\s*\(?\s*' + c + r'\b|\b' + c + r'\s*[<>]', cmp):
                    continue
                walk = re.search(r'\bfor \([^;]*;([^;]*);', cmp)
                if walk and len(re.findall(r'[<>]', walk.group(1))) == 1 and c in walk.group(1):
                    continue
                if any(f == sf and frag in code for sf, frag in SHADOWED):
                    continue
                key = f + ':' + c
                sites[key] += 1
                where.setdefault(key, '%s:%d' % (path, i + 1))
        lm = limit.search(code)
        if lm:
            block = '\n'.join(lines[i:i + 4])
            if not refuse.search(block):
                continue
            s = lit.search(block)
            if s:
                key = f + ':' + s.group(1)
            else:
                r = re.search(r'(?:xdr_bad_u32|bad_word|cur_fail)\((.*)', block)
                key = f + ':' + (last_arg('(' + r.group(1)) if r else lm.group(1))
            sites[key] += 1
            where.setdefault(key, '%s:%d' % (path, i + 1))
for prim in ('extract.h:cur_xdr_opaque', 'xdr.h:xdr_skip_opaque', 'xdr.c:xdr_string', 'xdr.c:xdr_fh',
             'xdr.c:xdr_ddp_opaque', 'xdr.h:xdr_skip_array'):
    sites[prim] += 1
    where[prim] = 'the primitive'

rows = Counter()
for t in ('tests/unit/test_bounds.c', 'tests/unit/test_bounds_net.c', 'tests/unit/test_bounds_caps.c'):
    rows += Counter(re.findall(r'^\s*\{ "([^"]+)"', open(t).read(), re.M))
passed = failed = 0
for key in sorted(sites):
    if rows[key] >= sites[key]:
        passed += 1
    else:
        failed += 1
        print('FAIL bounds-list: %s (%s): %d site(s), %d row(s) in tests/unit/test_bounds*.c'
              % (key, where[key], sites[key], rows[key]))
for key in sorted(set(rows) - set(sites)):
    failed += 1
    print('FAIL bounds-list: row "%s" names no bound site in dissect/ (renamed or gone?)' % key)
if len(sites) < 100:
    failed += 1
    print('FAIL bounds-list: only %d bound sites found: the search is broken' % len(sites))
print('bounds-list: %d passed, %d failed' % (passed, failed))
sys.exit(1 if failed else 0)
PY
