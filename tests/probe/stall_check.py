#!/usr/bin/env python3
"""Checks a probe-stall run (tests/probe/scenarios/probe-stall): nfsrdmad's
in-flight gauges on the client against the injected fault, a server that
sent nothing for a known time while the client had READs outstanding.

    tests/probe/stall_check.py OUT STALL_AFTER_S

Truth: the times the scenario wrote on the client's CLOCK_MONOTONIC (the
probes' clock): "start" before nfsrdmad started, "on" when the client saw
the drop signalled (the drop began before), each scrape's clock before
and after it; and the server's drop_on / drop_off on its own clock (the
stop's length).  Closing line: "probe-stall: N passed, N failed"."""
import re
import sys

# The READ loop leaves no RPC in flight only between one READ's completion
# and the next one's start (dd's next read(2), or the next dd: well under
# 0.5 s under TCG); the oldest RPC in flight at a scrape during the drop
# therefore began at most this long after the drop did.
SLACK_S = 1.0

out, stall_after = sys.argv[1], float(sys.argv[2])
npass = nfail = 0


def check(ok, what):
    global npass, nfail
    if ok:
        npass += 1
    else:
        nfail += 1
        print("FAIL: %s" % what)


def times(path):
    t = {}
    try:
        with open(path) as f:
            for line in f:
                w = line.split()
                if len(w) >= 2:
                    t[w[0]] = [int(x) for x in w[1:]]
    except OSError as e:
        print("FAIL: %s: %s" % (path, e))
    return t


def gauges(name, role="client"):
    g = {}
    try:
        with open("%s/%s.scrape.%s" % (out, role, name)) as f:
            for line in f:
                m = re.match(r'(nfsrdma_rpcs?_[a-z_]+)\{side="(client|server)"\} (\S+)$', line.strip())
                if m:
                    g[(m.group(1), m.group(2))] = float(m.group(3))
    except OSError as e:
        check(False, "scrape %s: %s" % (name, e))
    return g


cl, sv = times(out + "/client.stall"), times(out + "/server.stall")
if not all(k in cl for k in ("start", "io_start", "on", "before", "during_a", "during_b", "after")) or \
        not all(k in sv for k in ("start", "drop_on", "drop_off", "during", "after")):
    print("FAIL: truth times missing (client %s, server %s)" % (sorted(cl), sorted(sv)))
    print("probe-stall: %d passed, %d failed" % (npass, nfail + 1))
    sys.exit(1)
stop_s = (sv["drop_off"][0] - sv["drop_on"][0]) / 1e9
if "io_stuck" in cl:
    # the client's reads never resumed: what the kernel said, then a fail
    try:
        stuck = open(out + "/client.stuck", errors="replace").read()
    except OSError:
        stuck = "(client.stuck missing)"
    print("stall: client.stuck (head):\n" + "\n".join(stuck.splitlines()[:60]))
check("io_stuck" not in cl, "the client's reads resumed within 60 s of the drop's end (%s)"
      % ("they did" if "io_stuck" not in cl else "stuck: stacks above, killed"))
print("stall: server dropped its egress for %.3f s (its clock); client saw it on at +0" % stop_s)
for name in ("before", "during_a", "during_b", "after"):
    g = gauges(name)
    a, b = cl[name]
    n = g.get(("nfsrdma_rpcs_in_flight", "client"))
    old = g.get(("nfsrdma_rpc_in_flight_oldest_seconds", "client"))
    st = g.get(("nfsrdma_rpcs_stalled", "client"))
    ab = g.get(("nfsrdma_rpcs_abandoned", "client"))
    check(None not in (n, old, st, ab), "%s: the four client gauges present (%s)" % (name, sorted(g)))
    if None in (n, old, st, ab):
        continue
    check(("nfsrdma_rpcs_in_flight", "server") not in g, "%s: no server side from a client-only source" % name)
    # nothing can be older than the probes: no slot exists before attach
    check(old <= (b - cl["start"][0]) / 1e9, "%s: oldest %.3f s <= %.3f s since before nfsrdmad started"
          % (name, old, (b - cl["start"][0]) / 1e9))
    if name.startswith("during") and "io_start" in cl:
        # nor older than the reads: the mount's RPCs all completed before
        check(old <= (b - cl["io_start"][0]) / 1e9, "%s: oldest %.3f s <= %.3f s since before the reads began"
              % (name, old, (b - cl["io_start"][0]) / 1e9))
    check(ab == 0, "%s: abandoned %g == 0 (--abandon-after 600 s, a run of minutes)" % (name, ab))
    if name in ("during_a", "during_b"):
        t = (a - cl["on"][0]) / 1e9   # at least this long since the drop began
        print("stall: %s at t >= %.3f s into the stop: in flight %g, oldest %.3f s, stalled %g"
              % (name, t, n, old, st))
        check(n >= 1, "%s: in flight %g >= 1 while the server sends nothing" % (name, n))
        check(old >= t - SLACK_S, "%s: oldest %.3f s >= t - slack = %.3f - %.1f s" % (name, old, t, SLACK_S))
        if t - SLACK_S > stall_after:
            check(st >= 1, "%s: stalled %g >= 1 at t %.3f s - slack > --stall-after %.1f s"
                  % (name, st, t, stall_after))
        elif t < stall_after and old < stall_after:
            check(st == 0, "%s: stalled %g == 0 with the oldest %.3f s under --stall-after"
                  % (name, st, old))
    elif name == "after":
        print("stall: after the reads ended (%.3f s after the drop was seen off): in flight %g, stalled %g"
              % ((cl.get("io_done", [a])[0] - cl.get("off_seen", [a])[0]) / 1e9, n, st))
        check(n == 0, "after: in flight %g == 0 once every READ completed" % n)
        check(st == 0, "after: stalled %g == 0" % st)
    else:
        check(n == 0, "before: in flight %g == 0 with no I/O running" % n)
# The server's probe: during the stop no count is certain (the replies'
# Sends end in a flush once the QP gives up retrying, at a time rxe
# chooses), so it is shown; after the client's reads all ended every
# request the server took was answered or given up (a reply whose
# connection died before it was posted: the thread's slot stays, and
# the thread, idle, makes it abandoned; a reply whose Send was flushed:
# its record goes out then): none in flight.  How many were given up
# depends on where the connection died: shown, not asserted.
for name in ("during", "after"):
    g = gauges(name, "server")
    n = g.get(("nfsrdma_rpcs_in_flight", "server"))
    old = g.get(("nfsrdma_rpc_in_flight_oldest_seconds", "server"))
    st = g.get(("nfsrdma_rpcs_stalled", "server"))
    ab = g.get(("nfsrdma_rpcs_abandoned", "server"))
    check(None not in (n, old, st, ab), "server %s: the four server gauges present (%s)" % (name, sorted(g)))
    if None in (n, old, st, ab):
        continue
    print("stall: server %s: in flight %g, oldest %.3f s, stalled %g, abandoned %g" % (name, n, old, st, ab))
    check(("nfsrdma_rpcs_in_flight", "client") not in g, "server %s: no client side from a server-only source" % name)
    check(old <= (sv[name][0] - sv["start"][0]) / 1e9, "server %s: oldest %.3f s <= %.3f s since before nfsrdmad "
          "started" % (name, old, (sv[name][0] - sv["start"][0]) / 1e9))
    if name == "after":
        # A reply whose Send the stop flushed ends in svcrdma_wc_send_flush
        # (or _err) from 6.1 on, not svcrdma_wc_send: the probe frees its
        # slot there too (docs/probes.md, "RPCs in flight"); the server's
        # trace says how many the stop flushed.
        flushed = 0
        try:
            with open(out + "/server.trace") as f:
                for line in f:
                    if not line.startswith("#") and re.search(r" svcrdma_wc_send_(flush|err): ", line):
                        flushed += 1
        except OSError as e:
            print("FAIL: server.trace: %s" % e)
        print("stall: server after: %d Sends flushed by the stop (its trace)" % flushed)
        check(n == 0, "server after: in flight %g == 0 once the client's reads all ended (%d Sends flushed)"
              % (n, flushed))
        check(st == 0, "server after: stalled %g == 0" % st)
# the daemons stopped cleanly
for side in ("client", "server"):
    try:
        rc = open("%s/nfsrdmad-%s.rc" % (out, side)).read().strip()
    except OSError:
        rc = "?"
    check(rc == "0", "nfsrdmad (%s) exit status %s == 0" % (side, rc))
print("probe-stall: %d passed, %d failed" % (npass, nfail))
