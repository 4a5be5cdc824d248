"""What a generated capture holds, per XID, written beside it as
NAME.truth.json (tests/gen/README, tests/unit/gen_truth.py).

The generator tags each packet it lays down (rdmawire.Packet.tag: which
RPC, call / reply / read / write, which message), so the truth comes from
the packets and their capture times alone: the boundaries and phases are
computed here from docs/record.md's definitions, never from dissect/, and
each finding is the one the generator injected, with the section
docs/checks.md gives it.  Stdlib only, deterministic output.
"""
import json
import os

# docs/checks.md's table (version 1 sections): name -> (id, section)
FINDINGS = {
    "not-ddp-eligible": (0, "RFC 8267 §4, §5, §6.1; RFC 8166 §3.4.2"),
    "write-list-mismatch": (1, "RFC 8267 §6.4.1; impl-exp §3.7, §5.1"),
    "write-roundup": (2, "RFC 8166 §3.4.6; impl-exp §3.6"),
    "p0-in-msg": (3, "RFC 8166 §3.5.3; impl-exp §3.4"),
    "inline-oversize": (4, "RFC 8166 §3.3.2; impl-exp §4.1, §4.2"),
    "credit-overrun": (5, "RFC 8166 §3.3.1; impl-exp §4.4"),
    "read-past-chunk": (6, "RFC 8166 §3.4.5"),
    "unmatched-reply": (7, "RFC 8166 §4.2.1; RFC 5531 §9"),
    "read-plus-write-chunk": (8, "RFC 8267 §6.1; nfs-ulb-v2 §5.1.1"),
    "rdma-error": (9, "RFC 8166 §4.5"),
    "write-past-chunk": (10, "RFC 8166 §3.4.6"),
    "write-list-overrun": (11, "RFC 8166 §4.3.2; impl-exp §3.7"),
    "rdma-unmatched": (12, "RFC 8166 §3.4.3"),
    "nomsg-without-reply-chunk": (13, "RFC 8166 §3.5.3, §4.3.3"),
    "write-pad-segment": (14, "RFC 8166 §3.4.6 (SHOULD NOT); impl-exp §3.6"),
}

# ... and where a version 2 finding cites the draft instead
FINDINGS_V2 = {"rdma-error": "draft-ietf-nfsv4-rpcrdma-version-two-07 §7"}

# docs/record.md's flags the truth knows: the first four follow from the
# packets, the others the generator says (flag())
FLAGS = {"call": 1 << 0, "reply": 1 << 1, "backchannel": 1 << 2, "timeout": 1 << 3,
         "no_call": 1 << 4, "retransmit": 1 << 10}

PHASES = ("call", "queue", "pull", "server", "queue+server", "push", "wait", "reply")
BOUNDS = ("call_first", "call_last", "read_first", "read_last",
          "write_first", "write_last", "reply_first", "reply_last")


def wire_ns(ts):
    """The time the capture holds: classic pcap keeps microseconds."""
    return ts // 1000 * 1000


def _span(pkts, role):
    """(first, last) of a role over its messages: a message runs from its
    first packet to its last in capture order; several RDMA operations
    from the earliest start to the latest end (docs/record.md).  (0, 0):
    not seen."""
    msgs = {}
    for _, p in pkts:
        if p.tag[1] == role:
            msgs.setdefault(p.tag[2], []).append(wire_ns(p.ts))
    if not msgs:
        return 0, 0
    return min(m[0] for m in msgs.values()), max(m[-1] for m in msgs.values())


def phases(t):
    """docs/record.md "Where the time went": the chain of boundaries from
    the call's first packet to the reply's last, each kept between the one
    before it and the end; None for a phase that did not happen."""
    ph = dict.fromkeys(PHASES)
    call = t["call_first"] and t["call_last"]
    pull = t["read_first"] and t["read_last"]
    push = t["write_first"] and t["write_last"]
    reply = t["reply_first"] and t["reply_last"]
    if not call:
        # a reply whose call the capture missed: only its own parts
        if push:
            ph["push"] = max(t["write_last"] - t["write_first"], 0)
        if push and reply:
            ph["wait"] = max(t["reply_first"] - t["write_last"], 0)
        if reply:
            ph["reply"] = max(t["reply_last"] - t["reply_first"], 0)
        return ph, None
    chain = [("call", t["call_last"])]
    if pull:
        chain += [("queue", t["read_first"]), ("pull", t["read_last"])]
    if push or reply:
        chain.append(("server" if pull else "queue+server", t["write_first"] if push else t["reply_first"]))
    if push:
        chain.append(("push", t["write_last"]))
        if reply:
            chain.append(("wait", t["reply_first"]))
    if reply:
        chain.append(("reply", t["reply_last"]))
    start = t["call_first"]
    end = max(chain[-1][1], start)
    prev = start
    for name, at in chain:
        at = min(max(at, prev), end)
        ph[name] = at - prev
        prev = at
    return ph, (prev - start if reply else None)


class Truth:
    """Findings the generator injected, by RPC key (xid, instance) or for
    the connection; the rest comes from the packets' tags."""

    def __init__(self):
        self.findings = {}
        self.conn_findings = []
        self.flags = {}
        self.retrans = {}

    def flag(self, key, name):
        self.flags.setdefault(key, []).append(name)

    def resent(self, key, n):
        """n packets of the RPC's messages the capture shows again, or
        late after a gap (the resend of one it missed): rdma_retrans."""
        self.retrans[key] = self.retrans.get(key, 0) + n

    def finding(self, key, name, v2=False):
        if isinstance(key, int):
            key = (key, 0)
        self.findings.setdefault(key, []).append(
            {"id": name, "num": FINDINGS[name][0], "section": FINDINGS_V2[name] if v2 else FINDINGS[name][1]})

    def conn_finding(self, name):
        self.conn_findings.append(name)

    def records(self, packets):
        """One entry per RPC the packets carry, in order of first sight."""
        by = {}
        for i, p in enumerate(packets):
            if p.tag is None or p.tag[0] is None or p.tag[1] == "dup":
                continue
            by.setdefault(p.tag[0], []).append((i + 1, p))
        out = []
        for key, pkts in by.items():
            t = {}
            for role in ("call", "read", "write", "reply"):
                t[role + "_first"], t[role + "_last"] = _span(pkts, role)
            ph, total = phases(t)
            frames = {r: next((f for f, p in pkts if p.tag[1] == r), None) for r in ("call", "reply")}
            flags = [r for r in ("call", "reply") if frames[r]] + self.flags.get(key, [])
            flags += ["timeout"] if not frames["reply"] else ["no_call"] if not frames["call"] else []
            out.append({
                "xid": key[0], "instance": key[1],
                "frame_call": frames["call"], "frame_reply": frames["reply"],
                "packets": [{"frame": f, "role": p.tag[1], "ts": wire_ns(p.ts)} for f, p in pkts],
                "ts": t, "ns": ph, "total": total, "flags": sorted(flags),
                "findings": self.findings.get(key, []),
                "rdma_retrans": self.retrans.get(key, 0),
            })
        return out

    def write(self, outdir, name, packets):
        doc = {"capture": name + ".pcap",
               "records": self.records(packets),
               "conn_findings": [{"id": n, "num": FINDINGS[n][0], "section": FINDINGS[n][1]}
                                 for n in self.conn_findings]}
        with open(os.path.join(outdir, name + ".truth.json"), "w") as f:
            json.dump(doc, f, indent=1, sort_keys=True, ensure_ascii=False)
            f.write("\n")
