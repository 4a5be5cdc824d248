#!/usr/bin/env python3
"""The man pages' OPTIONS tag lines, generated from the tools' option tables.

  docs/man/options.py [--check] BINDIR

Every tool's --help is made by src/base/opt.c from its option table; this
reads it (short letter, long name, argument placeholder) and rewrites the
tag line of every .TP in the OPTIONS section of docs/man/TOOL.[18] from
it: the options a tag names, in the order it names them, each as
\\fB-x\\fR, \\fB--long\\fR ARG (a placeholder such as FILE in italics, a
choice such as rdma|tcp as it is).  The prose under a tag is the page's.
With --check nothing is written: each tag line that differs from the
table's is printed and the exit status is 1 (tests/unit/manpages.sh runs
this; `make man-options` writes).  A tag naming an option the tool does
not have is an error either way."""
import os
import re
import subprocess
import sys

HELP_RE = re.compile(r"^  (?:-(\S), | {5})--([a-z0-9][a-z0-9-]*)(?: (\S+))?(?:\s{2,}|$)")
LONG_RE = re.compile(r"--([a-z0-9][a-z0-9-]*)")


def table(binary):
    """long name -> (short letter or None, placeholder or None), from --help."""
    out = subprocess.run([binary, "--help"], capture_output=True, text=True, check=True).stdout
    opts = {}
    for line in out.splitlines():
        m = HELP_RE.match(line)
        if m:
            opts[m.group(2)] = (m.group(1), m.group(3))
    return opts


def esc(text):
    return text.replace("\\", "\\e").replace("-", "\\-")


def tag(names, opts):
    parts = []
    for name in names:
        short, arg = opts[name]
        p = ("\\fB\\-%s\\fR, " % short if short else "") + "\\fB%s\\fR" % esc("--" + name)
        if arg:
            # a placeholder (FILE, HOST:PORT, S1,S2,..) in italics; a choice (rdma|tcp, bash) as it is
            p += " " + ("\\fI%s\\fR" % esc(arg) if not re.search(r"[a-z|]", arg) else esc(arg))
        parts.append(p)
    return ", ".join(parts)


def plain(line):
    return re.sub(r"\\f[BIRP]|\\\(..|\\&", "", line.replace("\\-", "-"))


def sync(page, opts, write):
    lines = open(page).read().split("\n")
    out, diffs, errors = list(lines), [], []
    section = None
    for i, line in enumerate(lines):
        if line.startswith(".SH"):
            section = line[4:].strip().strip('"')
            continue
        if section != "OPTIONS" or i == 0 or lines[i - 1] != ".TP":
            continue
        names = []
        for n in LONG_RE.findall(plain(line)):
            if n not in names:
                names.append(n)
        if not names:
            continue
        unknown = [n for n in names if n not in opts]
        if unknown:
            errors.append("%s:%d: tag names options the tool does not have: %s"
                          % (page, i + 1, " ".join("--" + n for n in unknown)))
            continue
        want = tag(names, opts)
        if line != want:
            diffs.append("%s:%d:\n  is   %s\n  want %s" % (page, i + 1, line, want))
            out[i] = want
    if write and diffs and not errors:
        with open(page + ".tmp", "w") as f:
            f.write("\n".join(out))
        os.replace(page + ".tmp", page)
    return diffs, errors


def main():
    args = sys.argv[1:]
    check = "--check" in args
    args = [a for a in args if a != "--check"]
    if len(args) != 1:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    bindir = args[0]
    here = os.path.dirname(os.path.abspath(__file__))
    pages = 0
    bad = False
    for name in sorted(os.listdir(here)):
        tool, _, sec = name.rpartition(".")
        if sec not in ("1", "8") or not os.access(os.path.join(bindir, tool), os.X_OK):
            continue
        pages += 1
        diffs, errors = sync(os.path.join(here, name), table(os.path.join(bindir, tool)), not check)
        for e in errors:
            print(e)
        for d in diffs if check else []:
            print(d)
        bad = bad or errors or (check and diffs)
        if not check and diffs and not errors:
            print("%s: %d tag lines rewritten from %s --help" % (name, len(diffs), tool))
    if not pages:
        print("man-options: no tool of docs/man in %s" % bindir)
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
