"""Captures a simulcast publish offer from headless Firefox ESR.

Run by scripts/capture-sdp-fixtures.sh (inside its loopback-only network
namespace) when `firefox-esr` is installed. Debian has no geckodriver, so
Firefox is driven over WebDriver BiDi (`--remote-debugging-port`, INTEROP.md)
with `websockets`. Writes firefox-simulcast-offer.sdp to the output folder
and prints the Firefox version.

    python firefox.py <outdir> [firefox binary]
"""

import asyncio
import http.server
import itertools
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

import websockets

from capture_page import JS_SIMULCAST_PUBLISH, BlankPage

# Fake camera, no permission prompt (the page only creates an offer, so the
# stored-permission trick INTEROP.md needs for loopback ICE is not needed),
# and nothing reaching out on its own.
PREFS = {
    "media.navigator.streams.fake": True,
    "media.navigator.permission.disabled": True,
    "media.peerconnection.ice.loopback": True,
    "app.update.enabled": False,
    "browser.shell.checkDefaultBrowser": False,
    "datareporting.policy.dataSubmissionEnabled": False,
    "toolkit.telemetry.enabled": False,
    "network.captive-portal-service.enabled": False,
    "browser.safebrowsing.update.enabled": False,
}

# The same publish as Chromium's capture (capture.py): three RID encodings,
# lowest first, on a 1280x720 fake camera.
JS_SIMULCAST_OFFER = r"""
(async () => {
""" + JS_SIMULCAST_PUBLISH + r"""  // Firefox in a namespace with only loopback and no stored permission
  // may never finish gathering (INTEROP.md): wait at most 5 s.
  await Promise.race([
    new Promise((resolve) => {
      if (pc.iceGatheringState === 'complete') return resolve();
      pc.addEventListener('icegatheringstatechange', () => {
        if (pc.iceGatheringState === 'complete') resolve();
      });
    }),
    new Promise((resolve) => setTimeout(resolve, 5000)),
  ]);
  return pc.localDescription.sdp;
})()
"""


class BiDi:
    """A minimal WebDriver BiDi client: commands by id, events ignored."""

    def __init__(self, socket):
        self.socket = socket
        self.ids = itertools.count(1)

    async def call(self, method, **params):
        message_id = next(self.ids)
        await self.socket.send(json.dumps({"id": message_id, "method": method, "params": params}))
        while True:
            reply = json.loads(await self.socket.recv())
            if reply.get("id") == message_id:
                if reply.get("type") == "error":
                    raise RuntimeError(f"{method}: {reply.get('error')}: {reply.get('message')}")
                return reply["result"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def capture(out_dir, binary):
    version = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout.strip()
    print(f"firefox: {version}")
    profile = tempfile.mkdtemp(prefix="sdp-capture-firefox-")
    with open(os.path.join(profile, "user.js"), "w") as f:
        for name, value in PREFS.items():
            f.write(f"user_pref({json.dumps(name)}, {json.dumps(value)});\n")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), BlankPage)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    port = free_port()
    process = subprocess.Popen(
        [binary, "--headless", "--no-remote", "--profile", profile, f"--remote-debugging-port={port}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                connection = await websockets.connect(f"ws://127.0.0.1:{port}/session", max_size=None)
                break
            except (OSError, websockets.exceptions.InvalidHandshake):
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError("Firefox did not open its WebDriver BiDi port")
                await asyncio.sleep(0.2)
        async with connection:
            bidi = BiDi(connection)
            await bidi.call("session.new", capabilities={})
            tree = await bidi.call("browsingContext.getTree")
            context = tree["contexts"][0]["context"]
            await bidi.call("browsingContext.navigate", context=context, url=url, wait="complete")
            result = await bidi.call(
                "script.evaluate", expression=JS_SIMULCAST_OFFER, target={"context": context},
                awaitPromise=True)
            if result.get("type") != "success":
                raise RuntimeError(f"page script failed: {result.get('exceptionDetails')}")
            sdp = result["result"]["value"]
            try:
                await bidi.call("session.end")
            except Exception:
                pass
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
        shutil.rmtree(profile, ignore_errors=True)
        server.shutdown()

    os.makedirs(out_dir, exist_ok=True)
    name = "firefox-simulcast-offer.sdp"
    with open(os.path.join(out_dir, name), "w", newline="") as f:
        f.write(sdp)
    print(f"wrote {name} ({len(sdp.splitlines())} lines)")


if __name__ == "__main__":
    asyncio.run(capture(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "firefox-esr"))
