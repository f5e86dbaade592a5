"""Headless Chromium (Debian's `chromium`) driven over the DevTools protocol
with `websockets` (no chromedriver), as scripts/capture_sdp/capture.py does.

`DemoPageBrowser` opens Vroom's demo page with a token and reads the page's
`window.vroom` (its PeerConnections' getStats() summary, its errors). When
the server does not serve the page at `GET /dev/demo` (only `--dev` does), the page's files are taken
from Sources/AdminAPI/WebPages/dev/ and served from 127.0.0.1 here, with
`?server=` pointing its signaling socket at the server.
"""

import asyncio
import http.server
import json
import os
import shutil
import subprocess
import tempfile
import threading
import time
import urllib.parse
import urllib.request

import websockets

from processes import stop_process
from socket_rpc import SocketRPC

CHROMIUM_FLAGS = [
    "--headless=new",
    "--no-sandbox",
    "--use-fake-device-for-media-stream",
    "--use-fake-ui-for-media-stream",
    "--allow-loopback-in-peer-connection",
    "--autoplay-policy=no-user-gesture-required",
    # Keep Chromium from reaching any service on its own.
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-domain-reliability",
    "--disable-sync",
    "--no-first-run",
    "--no-default-browser-check",
    "--remote-debugging-port=0",
]

REPOSITORY = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


# The pages' files (the package resources in Sources/AdminAPI/WebPages), by
# the path a --dev vroom-server serves them at, with their content types:
# the bare protocol client at /dev/demo (window.vroom, which most scenarios
# drive), the meeting page at / and the SDK.
DEMO_PAGE = "/dev/demo"
DEMO_PAGE_FILES = {
    "/dev/demo": ("dev/index.html", "text/html; charset=utf-8"),
    "/dev/demo.js": ("dev/demo.js", "text/javascript; charset=utf-8"),
    "/dev/demo.css": ("dev/demo.css", "text/css; charset=utf-8"),
    "/sdk/vroom.js": ("sdk/vroom.js", "text/javascript; charset=utf-8"),
    "/": ("meet.html", "text/html; charset=utf-8"),
    "/meet.js": ("meet.js", "text/javascript; charset=utf-8"),
    "/meet.css": ("meet.css", "text/css; charset=utf-8"),
}


def demo_page_from_source():
    """The demo page's files as the repository holds them: path -> (bytes, content type)."""
    directory = os.path.join(REPOSITORY, "Sources", "AdminAPI", "WebPages")
    files = {}
    for path, (name, content_type) in DEMO_PAGE_FILES.items():
        with open(os.path.join(directory, name), "rb") as f:
            files[path] = (f.read(), content_type)
    return files


class _PageHandler(http.server.BaseHTTPRequestHandler):
    files = {}

    def do_GET(self):
        found = self.files.get(urllib.parse.urlsplit(self.path).path)
        if found is None:
            self.send_error(404)
            return
        body, content_type = found
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def serve_page(files):
    """Serves the page's `files` at http://127.0.0.1:<free port>/ (a secure
    context for getUserMedia, as http://127.0.0.1 is)."""
    handler = type("Handler", (_PageHandler,), {"files": files})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def server_serves_current_page(server_url):
    """Whether vroom-server serves the page exactly as the repository holds
    it now (a server built before a change of the page serves the old one)."""
    try:
        for path, (body, _) in demo_page_from_source().items():
            with urllib.request.urlopen(server_url + path, timeout=5) as response:
                if response.status != 200 or response.read() != body:
                    return False
        return True
    except Exception:
        return False


def server_serves_demo_page(server_url):
    """Whether vroom-server serves the page and its script."""
    try:
        with urllib.request.urlopen(server_url + DEMO_PAGE, timeout=5) as response:
            if response.status != 200 or 'src="demo.js"' not in response.read().decode():
                return False
        with urllib.request.urlopen(server_url + DEMO_PAGE + ".js", timeout=5) as response:
            return response.status == 200 and "window.vroom" in response.read().decode()
    except Exception:
        return False


class DevTools(SocketRPC):
    """Chromium's DevTools protocol on one target's socket."""

    def failure(self, reply):
        return reply["error"] if "error" in reply else None

    async def evaluate(self, expression):
        result = await self.call("Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"page script failed: {result['exceptionDetails'].get('text')} "
                               f"{result['exceptionDetails'].get('exception', {}).get('description', '')}")
        return result["result"].get("value")


# A shared Chromium holds pages that must not be throttled as background tabs
# (each page is a participant, sampling getStats on a timer).
SHARED_FLAGS = [
    "--disable-background-timer-throttling",
    "--disable-renderer-backgrounding",
    "--disable-backgrounding-occluded-windows",
]


class SharedChromium:
    """One headless Chromium process for several demo pages (one renderer
    each, one browser and one GPU/network process for all): pass it as
    `DemoPageBrowser(..., chromium=shared)`. Lighter on 2 cores than one
    Chromium per participant (the `bwe` scenarios measured it). `start()`,
    then `close()` after the pages."""

    def __init__(self, binary="chromium", log_path=None, extra_flags=()):
        self.binary = binary
        self.log_path = log_path
        self.extra_flags = list(extra_flags)
        self.process = None
        self.profile = None
        self.port = None
        self.socket = None
        self.devtools = None

    async def start(self):
        self.profile = tempfile.mkdtemp(prefix="vroom-interop-chromium-")
        log = open(self.log_path, "w") if self.log_path else subprocess.DEVNULL
        self.process = subprocess.Popen([self.binary, *CHROMIUM_FLAGS, *SHARED_FLAGS, *self.extra_flags,
                                         f"--user-data-dir={self.profile}", "about:blank"],
                                        stdout=log, stderr=log)
        port_file = os.path.join(self.profile, "DevToolsActivePort")
        deadline = time.monotonic() + 30
        while not os.path.exists(port_file) or len(open(port_file).read().splitlines()) < 2:
            if time.monotonic() > deadline or self.process.poll() is not None:
                await self.close()
                raise RuntimeError("Chromium did not open its DevTools port")
            await asyncio.sleep(0.1)
        with open(port_file) as f:
            self.port, path = int(f.readline().strip()), f.readline().strip()
        self.socket = await websockets.connect(f"ws://127.0.0.1:{self.port}{path}", max_size=None)
        self.devtools = DevTools(self.socket)
        return self

    async def open(self, url):
        """A new page at `url`: (its DevTools socket URL, its target id)."""
        target = (await self.devtools.call("Target.createTarget", url=url))["targetId"]
        return f"ws://127.0.0.1:{self.port}/devtools/page/{target}", target

    async def close_page(self, target):
        if self.devtools is not None:
            try:
                await self.devtools.call("Target.closeTarget", targetId=target)
            except Exception:
                pass

    def pids(self):
        """The browser's process and its children (for CPU and memory figures)."""
        if self.process is None:
            return []
        return [self.process.pid] + descendants(self.process.pid)

    async def close(self):
        await close_browser(self)
        if self.profile:
            shutil.rmtree(self.profile, ignore_errors=True)
            self.profile = None


async def close_browser(browser):
    """Closes what `browser` (a SharedChromium or a DemoPageBrowser) holds:
    its DevTools socket, its page in a shared Chromium, its own process."""
    if browser.socket is not None:
        await browser.socket.close()
        browser.socket = None
    if browser.target is not None:
        await browser.shared.close_page(browser.target)
        browser.target = None
    stop_process(browser.process)


def descendants(pid):
    """Every process below `pid` (from /proc)."""
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    parent = int(f.read().rsplit(")", 1)[1].split()[1])
                children.setdefault(parent, []).append(int(entry))
            except (OSError, IndexError, ValueError):
                pass
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def cpu_seconds(pids):
    """User + system CPU seconds used so far by `pids` (those still alive)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            pass
    return total / ticks


class DemoPageBrowser:
    """One headless Chromium with the demo page open (or, with `chromium`, a
    SharedChromium, one page of it). Use as
    `async with DemoPageBrowser(server_url, token, room) as page:`.
    `query` adds page parameters (e.g. {"simulcast": "0"}); with
    `current_page` the page is the repository's: the server's copy when it
    is the same, else served here (so a server built before a change of the
    page does not hide it)."""

    def __init__(self, server_url, token, room=None, binary="chromium", log_path=None, query=None,
                 current_page=False, chromium=None, served=False):
        """`served`: the server's own page, unchecked (an https server whose
        certificate only the browser was told to trust)."""
        self.served = served
        self.server_url = server_url.rstrip("/")
        self.shared = chromium
        self.target = None
        self.token = token
        self.room = room
        self.query = dict(query or {})
        self.current_page = current_page
        self.binary = binary
        self.log_path = log_path
        self.process = None
        self.profile = None
        self.page_server = None
        self.socket = None
        self.devtools = None
        self.served_by = None

    def page_url(self):
        query = {"token": self.token, "autojoin": "1", **self.query}
        if self.room:
            query["room"] = self.room
        if self.served:
            self.served_by = f"vroom-server GET {DEMO_PAGE}"
            base = self.server_url + DEMO_PAGE
        elif self.current_page and server_serves_demo_page(self.server_url) \
                and not server_serves_current_page(self.server_url):
            self.served_by = ("the test (vroom-server serves an older copy of the page: rebuild it; "
                              "page from Sources/AdminAPI/WebPages)")
            self.page_server, origin = serve_page(demo_page_from_source())
            base = origin.rstrip("/") + DEMO_PAGE
            query["server"] = self.server_url.replace("http://", "ws://")
        elif server_serves_demo_page(self.server_url):
            self.served_by = f"vroom-server GET {DEMO_PAGE}"
            base = self.server_url + DEMO_PAGE
        else:
            self.served_by = (f"the test (vroom-server does not serve GET {DEMO_PAGE}; "
                              "page from Sources/AdminAPI/WebPages)")
            self.page_server, origin = serve_page(demo_page_from_source())
            base = origin.rstrip("/") + DEMO_PAGE
            query["server"] = self.server_url.replace("http://", "ws://")
        return base + "?" + urllib.parse.urlencode(query)

    async def __aenter__(self):
        if self.shared is not None:
            socket_url, self.target = await self.shared.open(self.page_url())
            return await self._attach(socket_url)
        self.profile = tempfile.mkdtemp(prefix="vroom-interop-chromium-")
        log = open(self.log_path, "w") if self.log_path else subprocess.DEVNULL
        url = self.page_url()
        self.process = subprocess.Popen([self.binary, *CHROMIUM_FLAGS, f"--user-data-dir={self.profile}", url],
                                        stdout=log, stderr=log)
        port_file = os.path.join(self.profile, "DevToolsActivePort")
        deadline = time.monotonic() + 30
        while not os.path.exists(port_file) or os.path.getsize(port_file) == 0:
            if time.monotonic() > deadline or self.process.poll() is not None:
                await self.close()
                raise RuntimeError("Chromium did not open its DevTools port")
            await asyncio.sleep(0.1)
        with open(port_file) as f:
            port = int(f.readline().strip())
        return await self._attach(await self._page_socket_url(port))

    async def _attach(self, socket_url):
        self.socket = await websockets.connect(socket_url, max_size=None)
        self.devtools = DevTools(self.socket)
        deadline = time.monotonic() + 20
        while not await self.evaluate("document.readyState === 'complete' && !!window.vroom"):
            if time.monotonic() > deadline:
                raise RuntimeError("the demo page did not load")
            await asyncio.sleep(0.1)
        return self

    async def __aexit__(self, *exc):
        await self.close()

    async def _page_socket_url(self, port):
        deadline = time.monotonic() + 10
        while True:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list") as response:
                targets = json.load(response)
            pages = [t for t in targets if t.get("type") == "page" and t.get("url", "").startswith("http")]
            if pages:
                return pages[0]["webSocketDebuggerUrl"]
            if time.monotonic() > deadline:
                raise RuntimeError("no page target in Chromium")
            await asyncio.sleep(0.1)

    async def evaluate(self, expression):
        return await self.devtools.evaluate(expression)

    async def state(self):
        """What the page knows: joined, published tracks, remote tracks by
        mid, answered offers, errors, connection events."""
        return await self.evaluate("""({
            joined: vroom.joined, participantSid: vroom.participantSid, published: vroom.published,
            remote: vroom.remote, answeredOffers: vroom.answeredOffers, errors: vroom.errors,
            pub: vroom.pcPub && vroom.pcPub.connectionState, sub: vroom.pcSub && vroom.pcSub.connectionState })""")

    async def messages(self, kind, start=0):
        """[(index, message)] of the signaling messages of type `kind` the page
        received, from index `start` of `vroom.events` on."""
        return await self.evaluate(f"""vroom.events.map((m, i) => [i, m]).slice({int(start)})
            .filter(([i, m]) => m.type === {json.dumps(kind)})""")

    async def event_count(self):
        return await self.evaluate("vroom.events.length")

    async def stats(self):
        """`vroom.summary()`: inbound video/audio and outbound numbers of getStats()."""
        return await self.evaluate("vroom.summary()")

    async def close(self):
        await close_browser(self)
        if self.page_server is not None:
            self.page_server.shutdown()
            self.page_server = None
        if self.profile:
            shutil.rmtree(self.profile, ignore_errors=True)
            self.profile = None
