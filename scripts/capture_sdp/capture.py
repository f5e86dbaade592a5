"""Captures real WebRTC offers and answers from headless Chromium and aiortc.

Run by scripts/capture-sdp-fixtures.sh inside a network namespace that has only
loopback, so nothing leaves the machine. Chromium is driven over the DevTools
protocol (no chromedriver); aiortc runs in this process. Writes four files to
the output folder: chromium-offer.sdp, chromium-answer.sdp, aiortc-offer.sdp,
aiortc-answer.sdp, chromium-simulcast-offer.sdp, and prints the versions it
used. Names given after the browser binary limit what is written (e.g.
`capture.py out chromium chromium-simulcast-offer.sdp` refreshes only that one).
"""

import asyncio
import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

import aioice.ice
import aiortc
import websockets

from capture_page import JS_SIMULCAST_PUBLISH, BlankPage
from aiortc import RTCConfiguration, RTCPeerConnection, RTCSessionDescription
from aiortc.rtcconfiguration import RTCBundlePolicy
from aiortc.mediastreams import AudioStreamTrack, VideoStreamTrack

# The DevTools protocol client is the interop tests' (one copy of it).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "interop"))
from chromium import DevTools  # noqa: E402


def loopback_only(*args, **kwargs):
    # aioice skips loopback interfaces; INTEROP.md: keep tests on 127.0.0.1.
    return ["127.0.0.1"]


aioice.ice.get_host_addresses = loopback_only

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

JS_HELPERS = r"""
window.gathered = (pc) => new Promise((resolve) => {
  if (pc.iceGatheringState === 'complete') return resolve();
  pc.addEventListener('icegatheringstatechange', () => {
    if (pc.iceGatheringState === 'complete') resolve();
  });
});
window.media = () => navigator.mediaDevices.getUserMedia({audio: true, video: true});
true
"""

JS_CHROMIUM_OFFER = r"""
(async () => {
  const stream = await media();
  const pc = new RTCPeerConnection({bundlePolicy: 'max-bundle'});
  for (const track of stream.getTracks()) pc.addTrack(track, stream);
  await pc.setLocalDescription(await pc.createOffer());
  await gathered(pc);
  window.offerer = pc;
  return pc.localDescription.sdp;
})()
"""

# A simulcast publish: three RID encodings, lowest first (PROTOCOL.md section 7),
# on a 1280x720 fake camera; Chromium sends every layer only when the capture
# is large enough for it (INTEROP.md).
JS_CHROMIUM_SIMULCAST_OFFER = r"""
(async () => {
""" + JS_SIMULCAST_PUBLISH + r"""  await gathered(pc);
  window.simulcastOfferer = pc;
  return pc.localDescription.sdp;
})()
"""

JS_ACCEPT_ANSWER = r"""
(async () => {
  await offerer.setRemoteDescription({type: 'answer', sdp: %s});
  return offerer.signalingState;
})()
"""

JS_CHROMIUM_ANSWER = r"""
(async () => {
  const stream = await media();
  const pc = new RTCPeerConnection({bundlePolicy: 'max-bundle'});
  await pc.setRemoteDescription({type: 'offer', sdp: %s});
  for (const track of stream.getTracks()) pc.addTrack(track, stream);
  await pc.setLocalDescription(await pc.createAnswer());
  await gathered(pc);
  window.answerer = pc;
  return pc.localDescription.sdp;
})()
"""


def serve_blank_page():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), BlankPage)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def start_chromium(binary, profile, url):
    process = subprocess.Popen(
        [binary, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", url],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    port_file = os.path.join(profile, "DevToolsActivePort")
    deadline = time.monotonic() + 30
    while not os.path.exists(port_file) or os.path.getsize(port_file) == 0:
        if time.monotonic() > deadline or process.poll() is not None:
            process.kill()
            raise RuntimeError("Chromium did not open its DevTools port")
        time.sleep(0.1)
    with open(port_file) as f:
        port = int(f.readline().strip())
    return process, port


def page_socket_url(port):
    deadline = time.monotonic() + 10
    while True:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list") as response:
            targets = json.load(response)
        pages = [t for t in targets if t.get("type") == "page" and t.get("url", "").startswith("http")]
        if pages:
            return pages[0]["webSocketDebuggerUrl"]
        if time.monotonic() > deadline:
            raise RuntimeError("no page target in Chromium")
        time.sleep(0.1)


def aiortc_peer():
    return RTCPeerConnection(RTCConfiguration(bundlePolicy=RTCBundlePolicy.MAX_BUNDLE))


async def capture(out_dir, binary, only):
    version = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout.strip()
    print(f"chromium: {version.splitlines()[-1] if version else 'unknown'}")
    print(f"aiortc: {aiortc.__version__}")
    print(f"python: {sys.version.split()[0]}")

    profile = tempfile.mkdtemp(prefix="sdp-capture-chromium-")
    server, url = serve_blank_page()
    process, port = start_chromium(binary, profile, url)
    peers = []
    try:
        async with websockets.connect(page_socket_url(port), max_size=None) as socket:
            page = DevTools(socket)
            deadline = time.monotonic() + 20
            while not await page.evaluate("isSecureContext && document.readyState === 'complete'"):
                if time.monotonic() > deadline:
                    raise RuntimeError("the capture page did not load")
                await asyncio.sleep(0.1)
            await page.evaluate(JS_HELPERS)
            results = {}

            # Chromium offers; aiortc answers; Chromium accepts the answer.
            chromium_offer = await page.evaluate(JS_CHROMIUM_OFFER)
            results["chromium-offer.sdp"] = chromium_offer
            answerer = aiortc_peer()
            peers.append(answerer)
            await answerer.setRemoteDescription(RTCSessionDescription(chromium_offer, "offer"))
            answerer.addTrack(AudioStreamTrack())
            answerer.addTrack(VideoStreamTrack())
            await answerer.setLocalDescription(await answerer.createAnswer())
            results["aiortc-answer.sdp"] = answerer.localDescription.sdp
            state = await page.evaluate(JS_ACCEPT_ANSWER % json.dumps(results["aiortc-answer.sdp"]))
            print(f"chromium accepted aiortc's answer: signalingState={state}")

            # aiortc offers; Chromium answers; aiortc accepts the answer.
            offerer = aiortc_peer()
            peers.append(offerer)
            offerer.addTrack(AudioStreamTrack())
            offerer.addTrack(VideoStreamTrack())
            await offerer.setLocalDescription(await offerer.createOffer())
            results["aiortc-offer.sdp"] = offerer.localDescription.sdp
            chromium_answer = await page.evaluate(
                JS_CHROMIUM_ANSWER % json.dumps(results["aiortc-offer.sdp"])
            )
            results["chromium-answer.sdp"] = chromium_answer
            await offerer.setRemoteDescription(RTCSessionDescription(chromium_answer, "answer"))
            print(f"aiortc accepted chromium's answer: signalingState={offerer.signalingState}")

            # Chromium publishes one video track as three RID simulcast layers.
            results["chromium-simulcast-offer.sdp"] = await page.evaluate(JS_CHROMIUM_SIMULCAST_OFFER)
    finally:
        for peer in peers:
            await peer.close()
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
        shutil.rmtree(profile, ignore_errors=True)
        server.shutdown()

    os.makedirs(out_dir, exist_ok=True)
    for name, sdp in results.items():
        if only and name not in only:
            continue
        # Both peers emit CRLF; keep their bytes exactly.
        with open(os.path.join(out_dir, name), "w", newline="") as f:
            f.write(sdp)
        print(f"wrote {name} ({len(sdp.splitlines())} lines)")


if __name__ == "__main__":
    asyncio.run(capture(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "chromium", set(sys.argv[3:])))
