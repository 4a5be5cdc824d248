"""What the replay lab checkers share: the tally of checks, and the
outputs (NAME.rc, NAME.out, NAME.err) a scenario step leaves in OUT."""
import json
import os
import subprocess
import sys


class Checks:
    """check(ok, what) prints one line per check; finish() prints the
    closing 'NAME: N passed, N failed' line and exits 1 on a failure."""

    def __init__(self, name):
        self.name = name
        self.passed = self.failed = 0

    def __call__(self, ok, what):
        if ok:
            self.passed += 1
            print(f"ok   {what}")
        else:
            self.failed += 1
            print(f"FAIL {what}")

    def finish(self):
        print(f"{self.name}: {self.passed} passed, {self.failed} failed")
        sys.exit(1 if self.failed else 0)


def step(out, name):
    """(exit code or None, stdout, stderr) of step NAME; missing files
    read as empty."""
    def rd(ext):
        p = os.path.join(out, f"{name}.{ext}")
        return open(p).read() if os.path.exists(p) else ""
    rc = rd("rc").strip()
    return (int(rc) if rc.lstrip("-").isdigit() else None), rd("out"), rd("err")


def jstep(out, name):
    """step() with stdout parsed as JSON (None when it is not)."""
    rc, o, e = step(out, name)
    try:
        return rc, json.loads(o), e
    except ValueError:
        return rc, None, e


def records(dissect, pcap):
    """nfsrdma-dissect --json's per-XID records of pcap (lines that do not
    parse are left out)."""
    p = subprocess.run([dissect, "--json", pcap], capture_output=True, text=True)
    recs = []
    for line in p.stdout.splitlines():
        try:
            recs.append(json.loads(line))
        except ValueError:
            pass
    return recs
