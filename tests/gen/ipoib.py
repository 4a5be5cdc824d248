"""ipoib-*: NFS over TCP re-framed as IP over InfiniBand (RFC 4391).

The source is tests/gen/src/nfs3-tcp-head.pcap: the first 79 frames of
the lab's nfs3-tcp capture as of commit 8a7ad83 (rpcbind GETPORT, MOUNT,
NFSv3 and NFSACL calls up to the first CREATE's reply, where no RPC
record is cut), frozen like nfs3-symlink.pcap.  Every IP
packet (IPv4 and ICMPv6 alike) keeps its bytes, Ethernet padding cut off
at the IP length; ARP is dropped (IPoIB ARP carries 20-byte hardware
addresses, nothing to copy).  Hosts: 10.9.0.1 and 10.9.0.2 become LIDs 1
and 2, QPNs 0x000550 + idx, GIDs as rdmawire.endpoint gives them.

  ipoib-dlt     pcap link type 242 (DLT_IPOIB): 20 zero bytes, the
                destination hardware address (flags+QPN, GID), EtherType,
                16 reserved bits, IP -- the 44-byte layout of tcpdump's
                own ipoib.pcap, which tshark reads
  ipoib-erf-ud  ERF (197) type 21 records of datagram mode: LRH (no GRH),
                BTH (UD SEND Only, P_Key 0xffff), DETH (Q_Key 0x0b1b, the
                sender's QPN), the 4-byte encapsulation header, IP, pad,
                ICRC, VCRC
"""
import os
import struct

import rdmawire as w

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "src", "nfs3-tcp-head.pcap")
QKEY = 0x0b1b   # the IPoIB broadcast group's usual Q_Key


def qpn(ep):
    return 0x000550 + ep.idx


def ip_packets():
    """[(ts, src idx, dst idx, ethertype, IP bytes)] of the source; the
    hosts of IPv6 packets by their MACs, learnt from the IPv4 ones."""
    _, frames = w.pcap_read(SRC)
    host = {}
    for _, fr in frames:
        if fr[12:14] == b"\x08\x00":
            host[fr[6:12]] = fr[14 + 15]
            host[fr[0:6]] = fr[14 + 19]
    out = []
    for ts, fr in frames:
        et = struct.unpack_from(">H", fr, 12)[0]
        ip = fr[14:]
        if et == 0x0800:
            ip = ip[:struct.unpack_from(">H", ip, 2)[0]]
        elif et == 0x86dd:
            ip = ip[:40 + struct.unpack_from(">H", ip, 4)[0]]
        else:
            continue
        src = host[fr[6:12]]
        out.append((ts, src, host.get(fr[0:6], 3 - src), et, ip))   # multicast: to the peer
    return out


def hwaddr(ep):
    return struct.pack(">I", qpn(ep)) + ep.gid


def dlt_frame(src, dst, et, ip):
    return b"\0" * 20 + hwaddr(dst) + struct.pack(">HH", et, 0) + ip


def ud_packet(src, dst, et, ip, psn):
    payload = struct.pack(">HH", et, 0) + ip
    pad = -len(payload) % 4
    ib = (w.bth(w.OP_UD_SEND_ONLY, qpn(dst), psn, pad=pad) +
          struct.pack(">II", QKEY, qpn(src)) + payload + b"\0" * pad)
    return w.ib_native(w.Packet(src, dst, ib, 0), False)


def write(outdir, save):
    eps = {i: w.endpoint(i) for i in (1, 2)}
    pkts = ip_packets()
    save(outdir, "ipoib-dlt", 242, [(ts, dlt_frame(eps[s], eps[d], et, ip)) for ts, s, d, et, ip in pkts])
    frames = [(ts, w.erf_record(ts, 21, ud_packet(eps[s], eps[d], et, ip, n)))
              for n, (ts, s, d, et, ip) in enumerate(pkts)]
    save(outdir, "ipoib-erf-ud", w.LINKTYPE_ERF, frames)
