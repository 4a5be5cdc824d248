#!/usr/bin/env python3
"""The kernel's clock state, shown or made to lie (the fuse-chrony lab).

  clocklie.py show                        adjtimex's state, one line
  clocklie.py lie STEP_NS MAXERR_US STOP  step CLOCK_REALTIME by STEP_NS (0: no
                                          step), then tell the kernel every 50 ms
                                          that it is
                                          synchronised within MAXERR_US, until
                                          the file STOP exists

The lie is the fault the join must find: the host's clock lines claim
MAXERR_US while its real-time clock is STEP_NS away from where it was
synchronised."""
import ctypes
import os
import sys
import time

ADJ_MAXERROR, ADJ_ESTERROR, ADJ_STATUS, ADJ_SETOFFSET, ADJ_NANO = 0x0004, 0x0008, 0x0010, 0x0100, 0x2000
STA_UNSYNC = 0x0040


class Timeval(ctypes.Structure):
    _fields_ = [("sec", ctypes.c_long), ("usec", ctypes.c_long)]


class Timex(ctypes.Structure):   # struct timex, linux/timex.h (64-bit)
    _fields_ = [("modes", ctypes.c_uint), ("offset", ctypes.c_long), ("freq", ctypes.c_long),
                ("maxerror", ctypes.c_long), ("esterror", ctypes.c_long), ("status", ctypes.c_int),
                ("constant", ctypes.c_long), ("precision", ctypes.c_long), ("tolerance", ctypes.c_long),
                ("time", Timeval), ("tick", ctypes.c_long), ("ppsfreq", ctypes.c_long),
                ("jitter", ctypes.c_long), ("shift", ctypes.c_int), ("stabil", ctypes.c_long),
                ("jitcnt", ctypes.c_long), ("calcnt", ctypes.c_long), ("errcnt", ctypes.c_long),
                ("stbcnt", ctypes.c_long), ("tai", ctypes.c_int), ("pad", ctypes.c_int * 11)]


libc = ctypes.CDLL(None, use_errno=True)


def adjtimex(tx):
    rc = libc.adjtimex(ctypes.byref(tx))
    if rc < 0:
        raise OSError(ctypes.get_errno(), "adjtimex")
    return rc


def show():
    tx = Timex()
    st = adjtimex(tx)
    print("adjtimex: state %d status 0x%x unsync %d maxerror %d us esterror %d us freq %.3f ppm"
          % (st, tx.status, bool(tx.status & STA_UNSYNC), tx.maxerror, tx.esterror, tx.freq / 65536.0))


def lie(step_ns, maxerr_us, stop):
    if step_ns:
        # the kernel adds the offset itself (reading the clock, then setting
        # it, lost 9 ms of the step under a loaded TCG guest)
        tx = Timex()
        tx.modes = ADJ_SETOFFSET | ADJ_NANO
        tx.time.sec, tx.time.usec = divmod(step_ns, 1_000_000_000)
        adjtimex(tx)
    while not os.path.exists(stop):
        tx = Timex()
        adjtimex(tx)
        tx.modes = ADJ_STATUS | ADJ_MAXERROR | ADJ_ESTERROR
        tx.status &= ~STA_UNSYNC
        tx.maxerror = maxerr_us
        tx.esterror = maxerr_us // 2
        adjtimex(tx)
        time.sleep(0.05)


if __name__ == "__main__":
    if sys.argv[1:2] == ["show"]:
        show()
    elif sys.argv[1:2] == ["lie"] and len(sys.argv) == 5:
        lie(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
    else:
        sys.exit(__doc__)
