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
import os
import shutil
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "interop"))
from firefox_bidi import PREFS, launch, write_profile  # noqa: E402 (after the path)
from processes import stop_process  # noqa: E402

from capture_page import JS_SIMULCAST_PUBLISH, BlankPage  # noqa: E402

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


async def capture(out_dir, binary):
    version = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout.strip()
    print(f"firefox: {version}")
    profile = tempfile.mkdtemp(prefix="sdp-capture-firefox-")
    # The page only creates an offer: no stored permission is needed.
    write_profile(profile, PREFS)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), BlankPage)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    process, bidi = await launch(binary, profile)
    try:
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
        await bidi.socket.close()
        stop_process(process)
        shutil.rmtree(profile, ignore_errors=True)
        server.shutdown()

    os.makedirs(out_dir, exist_ok=True)
    name = "firefox-simulcast-offer.sdp"
    with open(os.path.join(out_dir, name), "w", newline="") as f:
        f.write(sdp)
    print(f"wrote {name} ({len(sdp.splitlines())} lines)")


if __name__ == "__main__":
    asyncio.run(capture(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "firefox-esr"))
