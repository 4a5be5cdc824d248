#!/usr/bin/env python3
"""Writes a copy of an NFS-over-RDMA capture without its NFSv4 clients'
set-up (EXCHANGE_ID, CREATE_SESSION, RECLAIM_COMPLETE; SETCLIENTID and
SETCLIENTID_CONFIRM): every frame between such a call and its reply that
passes between the same two addresses is left out.  What remains is a
capture that begins, for those clients, after their set-up, as one taken
mid-session does: replayed, each needs a session (client ID) of the
replay's own.  Which RPCs they are comes from the dissector's records.

Usage: cut-setup.py DISSECT_BINARY IN.pcap OUT.pcap   (classic pcap, Ethernet)
Prints how many RPCs and frames it left out.
"""
import json
import struct
import subprocess
import sys

SETUP = {"EXCHANGE_ID", "CREATE_SESSION", "RECLAIM_COMPLETE", "SETCLIENTID", "SETCLIENTID_CONFIRM"}

dissect, src, dst = sys.argv[1:4]
cut = []   # (first frame, last frame, {addr, addr})
out = subprocess.run([dissect, "--json", src], capture_output=True, text=True, check=True).stdout
for line in out.splitlines():
    r = json.loads(line)
    if r.get("procedure") in SETUP and "frame_call" in r and "frame_reply" in r:
        cut.append((r["frame_call"], r["frame_reply"],
                    {r["caller"]["addr"], r["callee"]["addr"]}))
if not cut:
    sys.exit(f"cut-setup: {src}: no set-up RPC to leave out")


def addrs(frame):
    """The IPv4 source and destination of an Ethernet frame (VLAN tags
    skipped), or None."""
    at = 12
    while at + 2 <= len(frame) and frame[at:at + 2] in (b"\x81\x00", b"\x88\xa8"):
        at += 4
    if frame[at:at + 2] != b"\x08\x00" or len(frame) < at + 2 + 20:
        return None
    ip = frame[at + 2:]
    return {".".join(map(str, ip[12:16])), ".".join(map(str, ip[16:20]))}


with open(src, "rb") as f:
    data = f.read()
magic = data[:4]
if magic not in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
    sys.exit(f"cut-setup: {src}: not a classic pcap")
end = "<" if magic[0] in (0xd4, 0x4d) else ">"
kept, dropped, at, n = [data[:24]], 0, 24, 0
while at + 16 <= len(data):
    caplen = struct.unpack(end + "I", data[at + 8:at + 12])[0]
    rec = data[at:at + 16 + caplen]
    at += 16 + caplen
    n += 1
    a = addrs(rec[16:])
    if a and any(lo <= n <= hi and a == pair for lo, hi, pair in cut):
        dropped += 1
        continue
    kept.append(rec)
with open(dst, "wb") as f:
    f.write(b"".join(kept))
print(f"cut-setup: {len(cut)} set-up RPCs, {dropped} frames left out of {n}")
