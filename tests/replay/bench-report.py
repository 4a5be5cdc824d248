#!/usr/bin/env python3
"""tests/replay/bench-report.py OUTDIR: bench/replay.sh's report of one
replay-bench run (can be re-run on a kept OUTDIR).

Required lines: the NULL-call rate vs perftest ib_send_bw's message rate
(target >= 0.80) and the 4 KiB READ IOPS vs the kernel client (>= 1.0).
Then, labelled as extra: the same NULL ratio against a timed ib_send_bw,
depth-1 round trips (ib_send_lat vs NULL at QD 1), and where the time goes
per measurement: each guest's CPU (from /proc/stat, sampled inside the
steady state), the host's qemu threads, and RoCE frames on the wire per
operation (from the capture)."""
import json
import os
import re
import struct
import sys

out = sys.argv[1]


def rd(n):
    p = os.path.join(out, n)
    try:
        return open(p, errors="replace").read()
    except OSError:
        return ""


def gen(n):
    try:
        return json.loads(rd(n + ".out"))["results"][0]
    except (ValueError, KeyError, IndexError, TypeError):
        return None


def bw_rate(name):
    # ib_send_bw: #bytes #iterations BW peak BW average MsgRate[Mpps]
    rate = None
    for line in rd(name).splitlines():
        f = line.split()
        if len(f) >= 5 and f[0] == "64" and re.match(r"^[0-9.]+$", f[-1]):
            rate = float(f[-1]) * 1e6
    return rate


def lat_avg_us(name):
    # ib_send_lat: #bytes #iterations t_min t_max t_typical t_avg ...
    # (perftest reports half the round trip for SEND/WRITE latency)
    for line in rd(name).splitlines():
        f = line.split()
        if len(f) >= 6 and f[0] == "64" and all(re.match(r"^[0-9.]+$", x) for x in f[2:6]):
            return float(f[5])
    return None


def ratio_line(label, ops, ref, target, unit_a, unit_b):
    r = ops / ref
    return f"{label}: {ops:.0f} {unit_a} vs {ref:.0f} {unit_b}: ratio {r:.2f} (target >= {target:.2f}) " \
           f"{'MET' if r >= target else 'NOT MET'}"


bw = bw_rate("ib_send_bw.txt")
bwd = bw_rate("ib_send_bw-long.txt")
null, rd4, rd4t = gen("bench-null"), gen("bench-read"), gen("bench-read-tcp")
m = re.search(r"ops=(\d+) seconds=([0-9.]+)", rd("kernel-read.txt"))
kern = int(m.group(1)) / float(m.group(2)) if m and float(m.group(2)) > 0 else None
print(f"results in {out}")
if bw and null:
    print(ratio_line(f"NULL QD64 (p50 {null['latency']['p50_ns'] / 1e3:.0f} us) vs ib_send_bw -n 4000",
                     null["iops"], bw, 0.8, "calls/s", "msg/s"))
else:
    print(f"NULL ratio: missing data (ib_send_bw {bw}, null {null})")
if kern and rd4:
    print(ratio_line(f"4 KiB READ QD32 (p50 {rd4['latency']['p50_ns'] / 1e3:.0f} us, {rd4['cpu_us_per_op']:.0f} us CPU/op) "
                     "vs kernel NFS/RDMA client", rd4["iops"], kern, 1.0, "IOPS", "IOPS"))
else:
    print(f"READ ratio: missing data (kernel {kern}, replay {rd4})")
for name, label in (("bench-null-busy", "NULL"), ("bench-read-busy", "4 KiB READ QD32")):
    b = gen(name)
    if b:
        print(f"{label} with --busy-poll: {b['iops']:.0f} calls/s (p50 {b['latency']['p50_ns'] / 1e3:.0f} us, "
              f"{b['cpu_us_per_op']:.0f} us CPU/op)")
if rd4t and rd4:
    print(f"same READ over RPC/TCP: {rd4t['iops']:.0f} IOPS (RDMA/TCP {rd4['iops'] / max(rd4t['iops'], 1e-9):.2f})")

# ---- extra comparisons (not the ratio) ----
if bwd and null:
    print("extra: " + ratio_line("NULL QD64 vs a longer ib_send_bw (-n 40000)", null["iops"], bwd, 0.8,
                                 "calls/s", "msg/s"))
lat = lat_avg_us("ib_send_lat.txt")
q1 = gen("bench-null-qd1")
if lat and q1:
    rt = 1e6 / (2 * lat)
    print(f"extra: depth 1 round trips: NULL QD1 {q1['iops']:.0f} calls/s (p50 {q1['latency']['p50_ns'] / 1e3:.0f} us) vs "
          f"ib_send_lat 64 B ping-pong {rt:.0f} round trips/s (t_avg {lat:.0f} us one way): ratio {q1['iops'] / rt:.2f}")


# ---- where the time goes ----
def load_guest(name):
    snaps = {}
    for line in rd(name).splitlines():
        f = line.split()
        if len(f) >= 12:
            try:
                snaps[f[0]] = [float(f[1])] + [int(x) for x in f[2:12]]
            except ValueError:
                pass
    return snaps


def guest_window(snaps, label):
    a, b = snaps.get(label + ".start"), snaps.get(label + ".end")
    if not a or not b:
        return None
    d = [y - x for x, y in zip(a, b)]
    secs = d[0]
    ticks = sum(d[1:9])
    if secs <= 0 or ticks <= 0:
        return None
    user, nice, system, idle, iowait, irq, softirq, steal = d[1:9]
    return {"secs": secs, "busy": 1 - (idle + iowait) / ticks, "user": (user + nice) / ticks,
            "sys": system / ticks, "softirq": (irq + softirq) / ticks, "ctxt_s": d[9] / secs,
            "intr_s": d[10] / secs}


def load_host():
    recs, meta = {}, {}
    for line in rd("host-cpu.txt").splitlines():
        try:
            j = json.loads(line)
        except ValueError:
            continue
        if "label" in j:
            recs[j["label"]] = j
        else:
            meta = j
    return recs, meta


def host_window(recs, meta, label):
    a, b = recs.get(label + ".start"), recs.get(label + ".end")
    if not a or not b:
        return None
    hz = meta.get("clk_tck", 100)
    secs = b["mono"] - a["mono"]
    if secs <= 0:
        return None
    dh = [y - x for x, y in zip(a["host"], b["host"])]
    tot = sum(dh[:8]) or 1
    res = {"secs": secs, "wall": (a["wall"], b["wall"]),
           "others": max(a.get("other_qemus", 0), b.get("other_qemus", 0)),
           "host_busy": (1 - (dh[3] + dh[4]) / tot) * meta.get("ncpu", 2)}
    for role in ("server", "client"):
        ta, tb = a["qemu"].get(role, {}), b["qemu"].get(role, {})
        total = vcpu = 0.0
        for tid, (comm, ut, st) in tb.items():
            ut0, st0 = (ta[tid][1], ta[tid][2]) if tid in ta else (ut, st)
            c = (ut - ut0 + st - st0) / hz / secs
            total += c
            if "TCG" in comm or comm.startswith("CPU "):
                vcpu += c
        res[role] = (total, vcpu)
    return res


def frames(win):
    """RoCE frames on the wire in the host wall-clock window: total, and by
    BTH opcode (SEND vs ACK), from the capture (classic pcap, Ethernet)."""
    p = os.path.join(out, "capture.pcap")
    try:
        f = open(p, "rb")
    except OSError:
        return None
    hdr = f.read(24)
    if len(hdr) < 24:
        return None
    magic = struct.unpack("<I", hdr[:4])[0]
    end = "<" if magic in (0xa1b2c3d4, 0xa1b23c4d) else ">"
    nano = magic in (0xa1b23c4d, 0x4d3cb2a1)
    n = sends = acks = 0
    while True:
        rh = f.read(16)
        if len(rh) < 16:
            break
        ts, tf, incl, _ = struct.unpack(end + "IIII", rh)
        data = f.read(incl)
        t = ts + tf / (1e9 if nano else 1e6)
        if t < win[0]:
            continue
        if t > win[1]:
            break
        # Ethernet II, IPv4, UDP dport 4791, BTH opcode
        if len(data) < 14 + 20 + 8 + 1 or data[12:14] != b"\x08\x00":
            continue
        ihl = (data[14] & 15) * 4
        if data[23] != 17 or len(data) < 14 + ihl + 9:
            continue
        u = 14 + ihl
        if struct.unpack(">H", data[u + 2:u + 4])[0] != 4791:
            continue
        n += 1
        op = data[u + 8]
        if op == 0x11:
            acks += 1
        elif op in (0x04, 0x05, 0x00, 0x01, 0x02, 0x03):
            sends += 1
    return n, sends, acks


gs, gc = load_guest("server-cpu.txt"), load_guest("client-cpu.txt")
hrecs, hmeta = load_host()
rates = {"bw": bwd}
labels = []
for line in rd("client-cpu.txt").splitlines():
    lbl = line.split()[0] if line.split() else ""
    if lbl.endswith(".start") and lbl[:-6] not in labels:
        labels.append(lbl[:-6])
for lbl in labels:
    if lbl != "bw":
        g = gen("bench-" + lbl)
        rates[lbl] = g["iops"] if g else None
if labels:
    print("extra: CPU inside each measurement's steady state (guest: /proc/stat, one vCPU each; "
          "host: qemu threads, % of one host core; 'per op' = busy CPU / rate)")
    print(f"  {'run':<10} {'ops/s':>7} | {'server busy usr/sys/sirq':>26} {'us/op':>6} | "
          f"{'client busy usr/sys/sirq':>26} {'us/op':>6} | {'qemu srv(vcpu)':>14} {'qemu cli(vcpu)':>14} "
          f"{'host':>5} | {'frames/op (SEND,ACK)':>20}")
fps = {}   # RoCE frames per second on the link, per run
for l in labels:
    rate = rates.get(l)
    row = f"  {l:<10} {rate if rate else 0:>7.0f} |"
    for snaps in (gs, gc):
        w = guest_window(snaps, l)
        if w:
            per = f"{w['busy'] * 1e6 / rate:6.0f}" if rate else "     -"
            row += f" {w['busy'] * 100:5.1f}% {w['user'] * 100:5.1f}/{w['sys'] * 100:5.1f}/{w['softirq'] * 100:5.1f}%" \
                   f"{'':>5} {per} |"
        else:
            row += f" {'n/a':>26} {'':>6} |"
    h = host_window(hrecs, hmeta, l)
    if h:
        row += f" {h['server'][0] * 100:5.0f}%({h['server'][1] * 100:3.0f}%) {h['client'][0] * 100:5.0f}%" \
               f"({h['client'][1] * 100:3.0f}%) {h['host_busy'] * 100:4.0f}% |"
        fr = frames(h["wall"])
        if fr and rate and fr[0]:
            secs = h["wall"][1] - h["wall"][0]
            fps[l] = fr[0] / secs
            row += f" {fr[0] / secs / rate:5.2f} ({fr[1] / secs / rate:4.2f},{fr[2] / secs / rate:4.2f})"
        else:
            row += "   n/a"
    else:
        row += f" {'n/a':>14} {'':>14} {'':>5} |"
    if h and h.get("others"):
        row += f"  [{h['others']} other qemu running]"
    print(row)
if fps.get("null") and fps.get("bw"):
    # A NULL call is two messages (call, reply), each SENT and ACKed: ~4
    # frames, where an ib_send_bw message is ~2.  On a link whose cost is
    # per frame, the NULL rate cannot pass about half the message rate;
    # this says how hard each run drove the link itself.
    print(f"extra: link load: NULL QD64 {fps['null']:.0f} RoCE frames/s vs ib_send_bw (-n 40000) "
          f"{fps['bw']:.0f} frames/s: ratio {fps['null'] / fps['bw']:.2f}")
for role in ("server", "client"):
    t = rd(f"{role}-perf-null-prof.txt")
    if t:
        print(f"extra: {role} profile during a NULL QD64 run in {out}/{role}-perf-null-prof.txt")

# the endpoint's fast-path work per call (RDMA runs of the NULL load)
rows = []
for lbl in labels:
    g = gen("bench-" + lbl)
    x = g.get("xprt") if g else None
    if not x or not g["ops"] or g.get("transport") != "rdma":
        continue
    ops = g["ops"]
    rows.append(f"  {lbl:<10} {g['iops']:7.0f} calls/s  p50 {g['latency']['p50_ns'] / 1e6:6.1f} ms  "
                f"{g['cpu_us_per_op']:5.0f} us CPU/call  per call: doorbells {x['doorbells'] / ops:.3f} "
                f"signaled {x['signaled'] / ops:.3f} inline {x['inline_sends'] / ops:.2f} "
                f"recv posts {x['recv_posts'] / ops:.3f} sleeps {x['sleeps'] / ops:.3f} "
                f"CQ events {x['cq_events'] / ops:.3f} naps {x['naps'] / ops:.3f}")
if rows:
    print("extra: the client endpoint's work per call (from its counters)")
    print("\n".join(rows))
