"""A real bottleneck for tests: shapes UDP traffic to one port on loopback
with the kernel's htb through scripts/shape.sh (this kernel has no netem;
INTEROP.md, "Shaping a link"), and the check that the shaping does what it
says: 2 Mbit/s sent to a port shaped to 500 kbit/s arrives at 500 kbit/s
(+/- 20%), then at 1000 kbit/s after `change`, while an unshaped port next
to it keeps its full rate.

Only inside a network namespace of the test's own (scripts/interop/run.sh
runs everything under `unshare --net`); shape.sh refuses elsewhere.

    python3 scripts/interop/shaping.py     # the check alone (run it under unshare --net as root)
"""
import os
import socket
import subprocess
import sys
import threading
import time

SHAPE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "shape.sh")


class LinkShaper:
    """scripts/shape.sh as an object: `add`, `change`, then `clear` (also on
    exit from a `with` block)."""

    def __init__(self, script=SHAPE):
        self.script = script

    def _run(self, *args):
        result = subprocess.run([self.script, *map(str, args)], capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"shape.sh {' '.join(map(str, args))}: {result.stderr.strip()}")

    def add(self, port, kbit, queue_packets=30):
        self._run("add", port, kbit, queue_packets)

    def change(self, port, kbit):
        self._run("change", port, kbit)

    def clear(self):
        self._run("clear")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.clear()


def can_shape():
    """None when this process may shape loopback here, else why not."""
    if os.geteuid() != 0:
        return "not root"
    links = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True).stdout.splitlines()
    others = [line.split(": ")[1] for line in links if ": " in line and line.split(": ")[1] != "lo"]
    if others:
        return f"not in a loopback-only network namespace (also {', '.join(others)}); run under unshare --net"
    return None


class Flow:
    """Datagrams of `size` bytes sent to 127.0.0.1:`port` at `kbit`/s from a
    thread, and a receiver on that port that timestamps what arrives."""

    def __init__(self, kbit, size=1000):
        self.receiver = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.receiver.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        self.receiver.bind(("127.0.0.1", 0))
        self.receiver.settimeout(0.2)
        self.port = self.receiver.getsockname()[1]
        self.interval = size * 8 / (kbit * 1000)
        self.size = size
        self.arrivals = []
        self.sent = 0
        self.running = True
        self.threads = [threading.Thread(target=self._send, daemon=True),
                        threading.Thread(target=self._receive, daemon=True)]

    def start(self):
        for thread in self.threads:
            thread.start()
        return self

    def stop(self):
        self.running = False
        for thread in self.threads:
            thread.join()
        self.receiver.close()

    def _send(self):
        sender = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        payload = bytes(self.size)
        next_time = time.monotonic()
        while self.running:
            sender.sendto(payload, ("127.0.0.1", self.port))
            self.sent += 1
            next_time += self.interval
            delay = next_time - time.monotonic()
            if delay > 0:
                time.sleep(delay)
        sender.close()

    def _receive(self):
        while self.running:
            try:
                data = self.receiver.recv(65536)
            except socket.timeout:
                continue
            self.arrivals.append((time.monotonic(), len(data)))

    def kbit_per_second(self, start, end):
        """The payload rate that arrived between two monotonic times."""
        received = sum(size for at, size in self.arrivals if start <= at < end)
        return received * 8 / (end - start) / 1000


def check_shaping(report=None, settle=1.0, window=2.5):
    """The check; `report(label, ok, detail)` records each result (default:
    print). Returns True when every check passed."""
    results = []

    def record(label, ok, detail):
        results.append(ok)
        if report:
            report(label, ok, detail)
        else:
            print(f"    {'PASS' if ok else 'FAIL'} {label}: {detail}", flush=True)

    shaped, free = Flow(2000), Flow(1000)
    with LinkShaper() as shaper:
        shaper.add(shaped.port, 500)
        shaped.start()
        free.start()
        try:
            begin = time.monotonic()
            time.sleep(settle + window)  # the burst (15 kB) and the queue fill during `settle`
            first = shaped.kbit_per_second(begin + settle, begin + settle + window)
            free_rate = free.kbit_per_second(begin + settle, begin + settle + window)
            shaper.change(shaped.port, 1000)
            changed = time.monotonic()
            time.sleep(settle + window)
            second = shaped.kbit_per_second(changed + settle, changed + settle + window)
        finally:
            shaped.stop()
            free.stop()
    # htb counts each datagram's headers (42 bytes on lo) too: 1000-byte
    # payloads arrive at 96% of the class rate, well inside the 20%.
    record("2 Mbit/s into a port shaped to 500 kbit/s arrives at 500 kbit/s +/- 20%",
           400 <= first <= 600, f"{first:.0f} kbit/s")
    record("after `change` to 1000 kbit/s it arrives at 1000 kbit/s +/- 20%",
           800 <= second <= 1200, f"{second:.0f} kbit/s")
    record("an unshaped port beside it keeps its 1000 kbit/s (+/- 20%)",
           800 <= free_rate <= 1200, f"{free_rate:.0f} kbit/s")
    return all(results)


if __name__ == "__main__":
    reason = can_shape()
    if reason:
        print(f"shaping: cannot run here: {reason}", file=sys.stderr)
        sys.exit(2)
    sys.exit(0 if check_shaping() else 1)
