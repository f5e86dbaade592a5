#!/usr/bin/env python3
"""Folds `perf script` call stacks of an SFU process into where its CPU goes.

    perf script -i perf.data | scripts/profile_breakdown.py [--us US]

Each sample goes to the first category its stack matches, in the order of
CATEGORIES (kernel work is classified by its whole stack, user-space work by
the library of the innermost frame). With --us, the SFU's CPU per forwarded
packet from the side-by-side bench, each share is also given in us per
forwarded packet. Used by scripts/profile-forwarding.sh.
"""
import argparse
import collections
import re
import sys

# (name, kernel symbols of which any in the stack selects it)
KERNEL_CATEGORIES = [
    ("kernel: loopback delivery to the receivers (softirq run by the sender)",
     ("process_backlog", "__netif_receive_skb", "net_rx_action")),
    ("kernel: UDP send (sendmmsg/sendmsg)", ("__sys_sendmmsg", "__sys_sendmsg", "udp_sendmsg")),
    ("kernel: UDP receive (recvmmsg/recvmsg)", ("__sys_recvmmsg", "__sys_recvmsg", "udp_recvmsg")),
    ("kernel: TCP (WebSocket, HTTP)", ("tcp_sendmsg", "tcp_recvmsg", "tcp_v4_rcv", "tcp_v6_rcv")),
    ("kernel: waiting and waking (epoll, futex, scheduler)",
     ("do_epoll_wait", "__x64_sys_epoll_wait", "__x64_sys_epoll_pwait", "futex", "schedule",
      "__x64_sys_nanosleep", "__x64_sys_clock_nanosleep", "eventfd")),
]
USER_CATEGORIES = [
    ("crypto libraries (SRTP, DTLS)", re.compile(r"libcrypto|libssl|libsrtp|libnss|libsoftokn|libfreebl")),
    ("Swift runtime (retain/release, exclusivity, allocation)", re.compile(r"libswiftCore|libswift_Concurrency")),
    ("libc (memcpy, malloc, locks, the vDSO's clock)", re.compile(r"libc\.so|libc-|ld-linux|libm\.so|\[vdso\]")),
    ("other libraries (Foundation, GLib, ...)", re.compile(r"\.so")),
]
OWN = "the SFU's own code"
OTHER_KERNEL = "kernel: other (timers, page faults, other syscalls)"
UNKNOWN = "unknown frames"


def samples(lines):
    """Yields (tid, frames) per sample; frames innermost first, each (symbol, dso)."""
    header, frames = None, []
    frame = re.compile(r"^\s+[0-9a-f]+\s+(.*?)\s+\((.*)\)\s*$")
    for line in lines:
        if not line.strip():
            if header is not None:
                yield header, frames
            header, frames = None, []
        elif not line[0].isspace():
            # "comm tid time: period event:": comm may hold spaces and
            # digits, so the tid is the field before the time.
            m = re.search(r"(\d+)\s+\d+\.\d+:", line)
            header = m.group(1) if m else "?"
        else:
            m = frame.match(line)
            if m:
                symbol = re.sub(r"\+0x[0-9a-f]+$", "", m.group(1))
                frames.append((symbol, m.group(2)))
    if header is not None:
        yield header, frames


def classify(frames, own):
    if not frames:
        return UNKNOWN
    kernel = [s for s, dso in frames if "kernel" in dso]
    if kernel:
        for name, markers in KERNEL_CATEGORIES:
            if any(any(m in s for m in markers) for s in kernel):
                return name
        return OTHER_KERNEL
    leaf_dso = frames[0][1]
    if own.search(leaf_dso):
        return OWN
    for name, pattern in USER_CATEGORIES:
        if pattern.search(leaf_dso):
            return name
    return UNKNOWN


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--us", type=float, help="the SFU's CPU per forwarded packet (us)")
    parser.add_argument("--own", default=r"vroom-server",
                        help="a regex of the SFU's own executable and plugins (their frames are its own code)")
    parser.add_argument("--worker-marker", default="MediaIO0A6Worker",
                        help="a symbol fragment that marks the packet thread's stacks")
    args = parser.parse_args()
    own = re.compile(args.own)
    counts = collections.Counter()
    per_thread = collections.Counter()
    packet_threads = set()
    total = 0
    for tid, frames in samples(sys.stdin):
        total += 1
        counts[classify(frames, own)] += 1
        per_thread[tid] += 1
        if any(args.worker_marker in s for s, _ in frames):
            packet_threads.add(tid)
    if total == 0:
        sys.exit("no samples")
    worker = sum(per_thread[t] for t in packet_threads)
    print(f"{total} samples; the packet thread(s) {', '.join(sorted(packet_threads)) or 'none found'}: "
          f"{100 * worker / total:.1f}%")
    unit = " us/fwd pkt" if args.us else ""
    for name, n in counts.most_common():
        share = n / total
        figure = f"{share * args.us:6.2f}{unit}  " if args.us else ""
        print(f"{100 * share:5.1f}%  {figure}{name}")
    if args.us:
        print(f"100.0%  {args.us:6.2f}{unit}  total (the bench's figure)")


if __name__ == "__main__":
    main()
