#!/usr/bin/env python3
"""Kernel traces of a lab run (tests/captures/NAME.truth/{client,server}.trace)
as the records today's nfsrdmad --json writes for its client and server
probes (record version 3, one JSON object a line), so a capture and its
traces can be joined as three vantages.  Times stay on each guest's own
ftrace clock (seconds since boot): the unaligned input the join is for.

  trace2records.py client|server TRACE > OUT.jsonl

Mapping (as src/probe/probe_record.c does for the live probes):
client: t_marshal = xprtrdma_marshal, t_call_last = xprtrdma_post_send,
  t_reply_first = xprtrdma_reply, t_reply_last = rpc_stats_latency,
  kernel backlog/rtt/exec from rpc_stats_latency;
server: t_call_first = t_call_last = svcrdma_decode_rqst (svc_process
  without it) and bytes.call_hdr = its hdrlen (0 without it: the join
  then knows t_call_first is no arrival time), the RDMA READs (svcrdma_wc_read between the request's
  decode and its svc_process, when it is the only one waiting),
  t_reply_first = t_reply_last = svc_stats_latency, exec_us its execute."""
import json
import re
import sys

LINE = re.compile(r'^\s*\S.*?\s+(\d+\.\d+): (\w+): (.*)$')
PROGS = {"nfsv3": (100003, 3), "nfsv4": (100003, 4), "nfsaclv3": (100227, 3), "mountv3": (100005, 3),
         "rpcbindv2": (100000, 2), "rpcbindv3": (100000, 3), "rpcbindv4": (100000, 4)}
NFS3 = ["NULL", "GETATTR", "SETATTR", "LOOKUP", "ACCESS", "READLINK", "READ", "WRITE", "CREATE", "MKDIR",
        "SYMLINK", "MKNOD", "REMOVE", "RMDIR", "RENAME", "LINK", "READDIR", "READDIRPLUS", "FSSTAT",
        "FSINFO", "PATHCONF", "COMMIT"]
SERVICE = {"nfsd": 100003, "nfsacl": 100227, "lockd": 100021}


def ns(ts):
    sec, frac = ts.split(".")
    return int(sec) * 1_000_000_000 + int(frac.ljust(9, "0")[:9])


def kv(rest):
    return dict(m.groups() for m in re.finditer(r'([\w.-]+)=(\S+)', rest))


PROCS = {100227: ["NULL", "GETACL", "SETACL"],
         100005: ["NULL", "MNT", "DUMP", "UMNT", "UMNTALL", "EXPORT"],
         100000: ["NULL", "SET", "UNSET", "GETPORT", "DUMP", "CALLIT"]}


def proc_number(prog, vers, name):
    """The procedure's number, None when this table does not know it (the
    record then names no program: the join matches it by the XID alone, as
    it would a probe's record that knows no program)."""
    if name == "NULL":
        return 0
    if prog == 100003 and vers == 3 and name in NFS3:
        return NFS3.index(name)
    if prog == 100003 and vers == 4:
        return 1
    if name in PROCS.get(prog, []):
        return PROCS[prog].index(name)
    return None


def record(source, xid, **k):
    ts = {"call_first": k.get("call_first", 0), "call_last": k.get("call_last", 0),
          "read_first": k.get("read_first", 0), "read_last": k.get("read_last", 0),
          "write_first": 0, "write_last": 0,
          "reply_first": k.get("reply_first", 0), "reply_last": k.get("reply_last", 0)}
    r = {"v": 3, "source": source, "conn": k.get("conn", 0), "xid": "0x%08x" % xid,
         "caller": {"addr": k.get("caller", "?"), "qpn": 0, "lid": 0, "port": 0},
         "callee": {"addr": "?", "qpn": 0, "lid": 0, "port": 0},
         "transport": "rdma", "rdma_vers": 1, "flags": 3,
         # a procedure the table does not know: no program named either
         "prog": k.get("prog", 0) if k.get("proc") is not None else 0,
         "vers": k.get("vers", 0), "proc": k.get("proc") or 0, "rpc_status": 0, "auth": 1,
         "name": k.get("name", ""), "ts": ts,
         "bytes": {"call_hdr": k.get("call_hdr", 0)},
         "kernel": {"marshal": k.get("marshal", 0), "backlog_us": k.get("backlog", 0),
                    "rtt_us": k.get("rtt", 0), "exec_us": k.get("exec", 0)}}
    return json.dumps(r, separators=(",", ":"))


def client(lines):
    task_xid, rpc = {}, {}
    for line in lines:
        m = LINE.match(line)
        if not m:
            continue
        t, ev, rest = ns(m.group(1)), m.group(2), m.group(3)
        task = rest.split()[0] if rest.startswith("task:") else None
        a = kv(rest)
        xid = int(a["xid"], 16) if "xid" in a else task_xid.get(task)
        if xid is None:
            continue
        e = rpc.setdefault(xid, {})
        if ev == "xprtrdma_marshal":
            task_xid[task] = xid
            e.setdefault("marshal", t)
        elif ev == "xprtrdma_post_send":
            e.setdefault("send", t)
        elif ev == "xprtrdma_reply":
            e["reply"] = t
        elif ev == "rpc_stats_latency":
            words = rest.split()
            prog, vers = PROGS.get(words[2], (0, 0))
            name = words[3]
            e["done"] = t
            yield record("client-probe", xid, conn=int(task.split("@")[1], 16) if task else 0,
                         prog=prog, vers=vers, proc=proc_number(prog, vers, name), name=name,
                         call_first=e.get("marshal", 0), call_last=e.get("send", e.get("marshal", 0)),
                         marshal=e.get("marshal", 0), reply_first=e.get("reply", 0), reply_last=t,
                         backlog=int(a.get("backlog", 0)), rtt=int(a.get("rtt", 0)),
                         exec=int(a.get("execute", 0)))
            del rpc[xid]


def server(lines):
    rpc, waiting = {}, []
    for line in lines:
        m = LINE.match(line)
        if not m:
            continue
        t, ev, rest = ns(m.group(1)), m.group(2), m.group(3)
        a = kv(rest)
        if ev == "svcrdma_wc_read":
            if len(waiting) == 1:
                e = rpc[waiting[0]]
                e.setdefault("read_first", t - int(a.get("latency-us", 0)) * 1000)
                e["read_last"] = t
            continue
        if "xid" not in a:
            continue
        xid = int(a["xid"], 16)
        e = rpc.setdefault(xid, {})
        if ev == "svcrdma_decode_rqst":
            e["recv"] = t
            e["hdrlen"] = int(a.get("hdrlen", 0))
            waiting.append(xid)
        elif ev == "svc_process":
            e.setdefault("recv", t)
            e["addr"], e["service"], e["vers"], e["proc"] = a.get("addr"), a.get("service"), a.get("vers"), a.get("proc")
            if xid in waiting:
                waiting.remove(xid)
        elif ev == "svc_stats_latency":
            prog, vers = SERVICE.get(e.get("service"), 0), int(e.get("vers") or 0)
            name = e.get("proc") or a.get("proc", "")
            yield record("server-probe", xid, caller=a.get("client", "?").rsplit(":", 1)[0],
                         prog=prog, vers=vers, proc=proc_number(prog, vers, name), name=name,
                         call_first=e.get("recv", t), call_last=e.get("recv", t),
                         read_first=e.get("read_first", 0), read_last=e.get("read_last", 0),
                         reply_first=t, reply_last=t, exec=int(a.get("execute-us", 0)),
                         call_hdr=e.get("hdrlen", 0))
            del rpc[xid]
            if xid in waiting:
                waiting.remove(xid)


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("client", "server"):
        sys.exit("usage: trace2records.py client|server TRACE")
    with open(sys.argv[2], encoding="utf-8", errors="replace") as f:
        for out in (client if sys.argv[1] == "client" else server)(f):
            print(out)


if __name__ == "__main__":
    main()
