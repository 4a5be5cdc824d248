#!/usr/bin/env bash
# Circles of files: within one folder, the files that call each other in a
# circle (a strongly connected component of "A's object uses a symbol B's
# object defines", from nm) must be exactly the circles docs/design.md
# lists under "Circles of files" (one "- `a.c` `b.c` ...: why" line each):
# a circle not listed fails, and so does a listed line whose circle is gone
# or differs.  Before the tree, the checker runs on made-up objects with a
# circle of two files and must report it unlisted.
# Closing line: "file-circles: N passed, N failed".
set -uo pipefail
cd "${NFSRDMA_SRCDIR:-$(dirname "$0")/../..}" || exit 1
O=${O:-build}
[ -d "$O/obj" ] || { echo "file-circles: $O/obj missing (make first)"; echo "file-circles: 0 passed, 1 failed"; exit 1; }
command -v nm >/dev/null || { echo "file-circles: nm missing"; echo "file-circles: 0 passed, 1 failed"; exit 1; }
exec python3 - "$O" <<'PY'
import collections, os, re, subprocess, sys, tempfile
O = sys.argv[1]
name = "file-circles"
passed = failed = 0

def check(ok, what):
    global passed, failed
    passed, failed = passed + bool(ok), failed + (not ok)
    print("%s %s: %s" % ("ok  " if ok else "FAIL", name, what))

def circles(objroot, skip=("tests/", "bench/", "gen/")):
    """Source path -> its object, then the components of more than one file."""
    objs = {}
    for d, _, fs in os.walk(objroot):
        for f in fs:
            rel = os.path.relpath(os.path.join(d, f), objroot)
            # an object whose source is gone (a stale build) is not the tree's
            if f.endswith(".o") and not rel.startswith(skip) and (objroot != os.path.join(O, "obj")
                                                                 or os.path.exists(rel[:-2] + ".c")):
                objs[rel[:-2] + ".c"] = os.path.join(d, f)
    defs, undef = {}, collections.defaultdict(set)
    for src, o in objs.items():
        for line in subprocess.run(["nm", "-P", o], capture_output=True, text=True).stdout.splitlines():
            p = line.split()
            if len(p) >= 2:
                if p[1] == "U":
                    undef[src].add(p[0])
                elif p[1] in "TDBRVWC":
                    defs[p[0]] = src
    edges = {s: {defs[u] for u in undef[s] if u in defs and defs[u] != s
                 and os.path.dirname(defs[u]) == os.path.dirname(s)} for s in objs}
    index, low, on, stack, out = {}, {}, set(), [], []
    def visit(v):   # Tarjan's, iterative enough for these sizes
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            c = set()
            while True:
                w = stack.pop()
                on.discard(w)
                c.add(w)
                if w == v:
                    break
            if len(c) > 1:
                out.append(frozenset(c))
    sys.setrecursionlimit(10000)
    for v in sorted(objs):
        if v not in index:
            visit(v)
    return set(out), len(objs)

def listed(design):
    text = open(design).read()
    m = re.search(r"^### Circles of files\n(.*?)(?=^## )", text, re.S | re.M)
    if not m:
        return None
    return [frozenset(re.findall(r"`([^`]+\.c)`", l.split(":")[0])) for l in m.group(1).splitlines()
            if l.startswith("- `")]

# the checker itself: two made-up objects that call each other
tmp = tempfile.mkdtemp()
os.makedirs(os.path.join(tmp, "obj", "x"))
for a, b in (("a", "b"), ("b", "a")):
    src = os.path.join(tmp, a + ".c")
    open(src, "w").write("void %s_fn(void);\nvoid %s_fn(void) { %s_fn(); }\n" % (b, a, b))
    subprocess.run(["cc", "-c", src, "-o", os.path.join(tmp, "obj", "x", a + ".o")], check=True)
made, _ = circles(os.path.join(tmp, "obj"))
check(made == {frozenset({"x/a.c", "x/b.c"})}, "the checker finds the made-up circle x/a.c <-> x/b.c: %s"
      % sorted(sorted(c) for c in made))

found, nobj = circles(os.path.join(O, "obj"))
want = listed("docs/design.md")
check(want is not None and nobj > 50, "docs/design.md has its \"Circles of files\" list (%s lines); %d objects"
      % (len(want) if want is not None else "no", nobj))
want = set(want or [])
for c in sorted(found, key=sorted):
    check(c in want, "circle listed in docs/design.md: %s" % " ".join(sorted(c)))
for c in sorted(want - found, key=sorted):
    check(False, "listed circle not in the tree (gone or changed): %s" % " ".join(sorted(c)))
print("%s: %d passed, %d failed" % (name, passed, failed))
sys.exit(1 if failed else 0)
PY
