"""The processes an interop test starts: `vroom-server` on free ports,
`vroom-impair` in front of it, and a private PostgreSQL for a cluster of
servers. Each is stopped by its own `stop()` (SIGTERM, then SIGKILL after
10 s); the test stops everything it started."""

import glob
import json
import os
import re
import shutil
import socket
import ssl
import subprocess
import tempfile
import threading
import time
import urllib.parse
import urllib.request


def find_binary(name, given=None):
    """`given`, else .build/debug/<name> (or release) of the repository."""
    if given:
        return os.path.abspath(given)
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    for configuration in ("debug", "release"):
        path = os.path.join(root, ".build", configuration, name)
        if os.access(path, os.X_OK):
            return path
    raise SystemExit(f"no built {name}: run `swift build --product {name}` or pass its path")


def free_port():
    """A TCP port on 127.0.0.1 that was free a moment ago (for a process
    that must be told its port before it starts)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop_process(process):
    """Terminates `process` (a Popen, or None) if it still runs: SIGTERM,
    another after 1 s (it ends a vroom-server's wait for participants still
    connected), then SIGKILL after 10 s."""
    if process is None or process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=1)
        return
    except subprocess.TimeoutExpired:
        process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


class VroomServer:
    """`vroom-server --dev --http-port 0 --rtc-port 0` (127.0.0.1 only), its
    HTTP port read from its log ("http: listening on 127.0.0.1:N") and its
    media ports from /healthz. A cluster node is given its HTTP port
    (`http_port`): its `--node-url` must name it before it starts."""

    def __init__(self, binary, extra_args=(), log_path=None, http_port=0, tls=None):
        """`tls`: (certificate, key) PEM paths: HTTPS and WSS, the test
        trusting that certificate."""
        self.binary = binary
        self.args = [binary, "--dev", "--http-port", str(http_port), "--rtc-port", "0", "--rtc-workers", "1", *os.environ.get("VROOM_SERVER_EXTRA", "").split(), *extra_args]
        self.ssl_context = None
        if tls:
            self.args += ["--tls-cert", tls[0], "--tls-key", tls[1]]
            self.ssl_context = ssl.create_default_context(cafile=tls[0])
        self.log_path = log_path
        self.process = None
        self.http_port = None
        self.http_host = "127.0.0.1"  # as the log says it listens ([::1] for IPv6)
        self.rtc_ports = []
        self.log_lines = []

    def start(self, timeout=60):
        self.process = subprocess.Popen(self.args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        found = threading.Event()
        log_file = open(self.log_path, "w") if self.log_path else None

        def pump():
            for line in self.process.stderr:
                self.log_lines.append(line.rstrip())
                if log_file:
                    log_file.write(line)
                    log_file.flush()
                match = re.search(r"http: listening on ([0-9.]+|\[[0-9a-fA-F:]+\]):(\d+)", line)
                if match:
                    host = match.group(1)
                    self.http_host = "127.0.0.1" if host == "0.0.0.0" else "[::1]" if host == "[::]" else host
                    self.http_port = int(match.group(2))
                    found.set()
            if log_file:
                log_file.close()

        threading.Thread(target=pump, daemon=True).start()
        deadline = time.monotonic() + timeout
        while not found.wait(0.1):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                tail = "\n".join(self.log_lines[-20:])
                raise RuntimeError(f"vroom-server did not start:\n{tail}")
        health = self.get_json("/healthz")
        self.rtc_ports = health.get("rtcPorts", [])
        return self

    @property
    def url(self):
        return f"{'https' if self.ssl_context else 'http'}://{self.http_host}:{self.http_port}"

    def get(self, path, auth=True):
        request = urllib.request.Request(self.url + path)
        if auth:
            request.add_header("Authorization", "Basic ZGV2a2V5OmRldnNlY3JldA==")  # devkey:devsecret
        with urllib.request.urlopen(request, timeout=5, context=self.ssl_context) as response:
            return response.status, response.read().decode()

    def get_json(self, path):
        return json.loads(self.get(path)[1])

    def post_form(self, path, fields):
        """POST `fields` form-encoded with Basic auth (the REST API's shape); the reply's JSON."""
        request = urllib.request.Request(self.url + path, data=urllib.parse.urlencode(fields).encode(), method="POST")
        request.add_header("Authorization", "Basic ZGV2a2V5OmRldnNlY3JldA==")  # devkey:devsecret
        with urllib.request.urlopen(request, timeout=5, context=self.ssl_context) as response:
            return json.loads(response.read().decode())

    def stop(self):
        stop_process(self.process)

    def kill(self):
        """SIGKILL: the node dies as in a crash, nothing said to anyone."""
        self.process.kill()
        self.process.wait()

    def retransmission_count(self):
        """The server's count of retransmitted (NACK-repaired) packets, or None
        when the server does not expose one yet.

        TODO(media plane): the lead exposes the counter; point this at it. For
        now it looks for any Prometheus metric whose name mentions
        retransmissions or NACK repairs on /metrics, summing its samples."""
        try:
            _, text = self.get("/metrics")
        except Exception:
            return None
        total, seen = 0.0, False
        for line in text.splitlines():
            if line.startswith("#") or not line.strip():
                continue
            name = line.split("{")[0].split(" ")[0]
            if re.search(r"retransmi|rtx_sent|nack_repair", name):
                try:
                    total += float(line.rsplit(" ", 1)[1])
                    seen = True
                except ValueError:
                    pass
        return total if seen else None


class ImpairmentRelay:
    """`vroom-impair` in front of `target_port`: prints its listen port as a
    JSON line at start and its counters at SIGTERM."""

    def __init__(self, binary, target_port, seed=1, drop=0.0, delay_ms=0.0, jitter_ms=0.0, extra_args=()):
        self.args = [binary, "--target", f"127.0.0.1:{target_port}", "--seed", str(seed), "--drop", str(drop),
                     "--delay-ms", str(delay_ms), "--jitter-ms", str(jitter_ms), *extra_args]
        self.process = None
        self.port = None
        self.final_counters = None

    def start(self):
        self.process = subprocess.Popen(self.args, stdout=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError("vroom-impair did not start")
        self.port = json.loads(line)["port"]
        return self

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                out, _ = self.process.communicate(timeout=10)
                for line in out.splitlines():
                    event = json.loads(line)
                    if event.get("event") == "stopped":
                        self.final_counters = event["counters"]
            except subprocess.TimeoutExpired:
                self.process.kill()
        return self.final_counters


class Coturn:
    """coturn's `turnserver` on 127.0.0.1 (Debian's `coturn`, which
    scripts/bootstrap.sh installs) with the TURN REST API's shared secret
    (`use-auth-secret`), UDP only, relaying between loopback addresses (a
    test's clients and server all sit on 127.0.0.1). `url` is a `turn.urls`
    entry for it."""

    def __init__(self, secret, log_path=None):
        self.secret = secret
        self.log_path = log_path
        self.process = None
        self.port = None
        self.dir = None

    def start(self, timeout=10):
        binary = shutil.which("turnserver") or "/usr/bin/turnserver"
        if not os.path.exists(binary):
            raise RuntimeError("coturn is not installed (no turnserver): run scripts/bootstrap.sh")
        self.dir = tempfile.mkdtemp(prefix="vroom-coturn-")
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        relay_base = 50000 + (os.getpid() * 100) % 9800  # a band of 100 relay ports
        log = open(self.log_path or os.devnull, "w")
        self.process = subprocess.Popen([
            binary, "--use-auth-secret", f"--static-auth-secret={self.secret}", "--realm=vroom",
            "--listening-ip=127.0.0.1", "--relay-ip=127.0.0.1", f"--listening-port={self.port}",
            f"--min-port={relay_base}", f"--max-port={relay_base + 99}", "--allow-loopback-peers",
            "--no-tls", "--no-dtls", "--no-tcp", "--no-cli", "--log-file=stdout", "--simple-log",
            f"--pidfile={self.dir}/turnserver.pid", f"--db={self.dir}/turndb",
        ], stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"turnserver exited with status {self.process.returncode} (log {self.log_path})")
            if self._listening():
                return self
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"turnserver did not listen on 127.0.0.1:{self.port} within {timeout} s")

    def _listening(self):
        """A STUN Binding request on its port gets an answer."""
        request = bytes.fromhex("000100002112a442") + os.urandom(12)
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.settimeout(0.2)
            s.sendto(request, ("127.0.0.1", self.port))
            try:
                return s.recv(1500)[8:20] == request[8:20]
            except OSError:
                return False

    @property
    def url(self):
        return f"turn:127.0.0.1:{self.port}?transport=udp"

    def stop(self):
        stop_process(self.process)
        if self.dir:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None


class PostgreSQL:
    """A private PostgreSQL for a cluster of servers (PROTOCOL.md 8), as
    scripts/rest-conformance.sh starts one: initdb in a temp folder (as the
    `postgres` user when root: PostgreSQL refuses to run as root), a free
    port on 127.0.0.1 only, its socket in that folder, fsync off, and one
    fresh database. `url` is what `vroom-server --db` takes. Its log is
    copied to `log_path` at `stop()` (the `postgres` user may not write
    the test's log folder)."""

    def __init__(self, log_path=None):
        self.log_path = log_path
        self.bin = None
        self.dir = None
        self.port = None

    def _run(self, *args, as_owner=True):
        name = os.path.basename(args[0])
        if as_owner and os.geteuid() == 0:
            args = ("runuser", "-u", "postgres", "--") + args
        result = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"{name} failed:\n{result.stdout[-2000:]}")

    def start(self):
        versions = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: [int(x) for x in re.findall(r"\d+", p)])
        if not versions:
            raise RuntimeError("PostgreSQL is not installed (no /usr/lib/postgresql/*/bin): run scripts/bootstrap.sh")
        self.bin = versions[-1]
        self.dir = tempfile.mkdtemp(prefix="vroom-pg-")
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres", "postgres")
        self.port = free_port()
        data = os.path.join(self.dir, "data")
        self._run(f"{self.bin}/initdb", "-D", data, "-U", "vroom", "--auth=trust", "--no-sync", "-E", "UTF8",
                  "--locale=C")
        self._run(f"{self.bin}/pg_ctl", "-D", data, "-l", os.path.join(self.dir, "postgres.log"), "-w", "-t", "60", "-o",
                  f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off", "start")
        self._run(f"{self.bin}/createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "vroom", "vroom",
                  as_owner=False)
        return self

    @property
    def url(self):
        return f"postgres://vroom@127.0.0.1:{self.port}/vroom?sslmode=disable"

    def stop(self):
        if self.dir is None:
            return
        try:
            self._run(f"{self.bin}/pg_ctl", "-D", os.path.join(self.dir, "data"), "-m", "fast", "-w", "stop")
        except RuntimeError:
            pass
        if self.log_path and os.path.exists(os.path.join(self.dir, "postgres.log")):
            shutil.copy(os.path.join(self.dir, "postgres.log"), self.log_path)
        shutil.rmtree(self.dir, ignore_errors=True)
        self.dir = None
