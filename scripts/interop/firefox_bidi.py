"""Headless Firefox ESR for the interop scenarios and the SDP capture, driven
over WebDriver BiDi (`--remote-debugging-port`; Debian has no geckodriver).

For media on loopback Firefox needs, besides a fake camera and microphone
and `media.peerconnection.ice.loopback`, a stored camera and microphone
permission for the page's origin (INTEROP.md, "Firefox ESR 153 as a
client"): without it it gathers only the default route's address, which a
loopback-only namespace does not have. `FirefoxPage` writes that permission
into the profile (`permissions.manager.defaultsUrl`).
"""
import asyncio
import base64
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time

import websockets

from processes import stop_process
from socket_rpc import SocketRPC

# Fake camera and microphone, no permission prompt, nothing reaching out on
# its own.
PREFS = {
    "media.navigator.streams.fake": True,
    "media.navigator.permission.disabled": True,
    "media.peerconnection.ice.loopback": True,
    "media.autoplay.default": 0,
    "media.autoplay.blocking_policy": 0,
    "app.update.enabled": False,
    "browser.shell.checkDefaultBrowser": False,
    "datareporting.policy.dataSubmissionEnabled": False,
    "toolkit.telemetry.enabled": False,
    "network.captive-portal-service.enabled": False,
    "browser.safebrowsing.update.enabled": False,
}


class BiDi(SocketRPC):
    """A minimal WebDriver BiDi client: commands by id, events skipped."""

    def failure(self, reply):
        return f"{reply.get('error')}: {reply.get('message')}" if reply.get("type") == "error" else None


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write_profile(profile, prefs, allowed_origin=None):
    """user.js with `prefs`, and camera and microphone allowed for `allowed_origin`."""
    prefs = dict(prefs)
    if allowed_origin:
        defaults = os.path.join(profile, "permission-defaults")
        with open(defaults, "w") as f:
            for permission in ("camera", "microphone", "autoplay-media"):
                f.write(f"origin\t{permission}\t1\t{allowed_origin}\n")
        prefs["permissions.manager.defaultsUrl"] = "file://" + defaults
    with open(os.path.join(profile, "user.js"), "w") as f:
        for name, value in prefs.items():
            f.write(f"user_pref({json.dumps(name)}, {json.dumps(value)});\n")


async def launch(binary, profile, log_path=None, timeout=60):
    """Starts Firefox on `profile`; (process, BiDi over its session socket)."""
    port = free_port()
    log = open(log_path, "w") if log_path else subprocess.DEVNULL
    process = subprocess.Popen(
        [binary, "--headless", "--no-remote", "--profile", profile, f"--remote-debugging-port={port}"],
        stdout=log, stderr=log)
    deadline = time.monotonic() + timeout
    while True:
        try:
            connection = await websockets.connect(f"ws://127.0.0.1:{port}/session", max_size=None)
            break
        except (OSError, websockets.exceptions.InvalidHandshake):
            if time.monotonic() > deadline or process.poll() is not None:
                stop_process(process)
                raise RuntimeError("Firefox did not open its WebDriver BiDi port")
            await asyncio.sleep(0.2)
    bidi = BiDi(connection)
    await bidi.call("session.new", capabilities={})
    return process, bidi


class FirefoxPage:
    """One headless Firefox with one page at `url`, allowed camera and
    microphone. `evaluate` runs an expression (awaited) and returns its value
    through JSON, like `chromium.DevTools.evaluate`."""

    def __init__(self, binary, url, origin, log_path=None):
        self.binary = binary
        self.url = url
        self.origin = origin
        self.log_path = log_path
        self.process = None
        self.bidi = None
        self.context = None
        self.profile = None

    async def start(self):
        self.profile = tempfile.mkdtemp(prefix="vroom-interop-firefox-")
        write_profile(self.profile, PREFS, self.origin)
        self.process, self.bidi = await launch(self.binary, self.profile, self.log_path)
        tree = await self.bidi.call("browsingContext.getTree")
        self.context = tree["contexts"][0]["context"]
        await self.bidi.call("browsingContext.navigate", context=self.context, url=self.url, wait="complete")
        return self

    async def evaluate(self, expression):
        wrapped = f"(async () => JSON.stringify(await ({expression})))()"
        result = await self.bidi.call("script.evaluate", expression=wrapped, target={"context": self.context},
                                      awaitPromise=True)
        if result.get("type") != "success":
            details = result.get("exceptionDetails", {})
            raise RuntimeError(f"page script failed: {details.get('text')}")
        value = result["result"].get("value")
        return None if value is None else json.loads(value)

    async def screenshot(self):
        result = await self.bidi.call("browsingContext.captureScreenshot", context=self.context)
        return base64.b64decode(result["data"])

    async def close(self):
        if self.bidi is not None:
            try:
                await self.bidi.call("session.end")
            except Exception:
                pass
            try:
                await self.bidi.socket.close()
            except Exception:
                pass
            self.bidi = None
        if self.process is not None:
            stop_process(self.process)
            self.process = None
        if self.profile:
            shutil.rmtree(self.profile, ignore_errors=True)
            self.profile = None
