"""What the Chromium (capture.py) and Firefox (firefox.py) captures share:
the blank page they run on, and the simulcast publish they offer."""

import http.server

# A simulcast publish: three RID encodings, lowest first (PROTOCOL.md section
# 7), on a 1280x720 fake camera. Leaves `pc` and `stream` in scope with the
# offer set as the local description; the browser's script goes on from there.
JS_SIMULCAST_PUBLISH = r"""
  const stream = await navigator.mediaDevices.getUserMedia(
    {video: {width: {ideal: 1280}, height: {ideal: 720}}});
  const pc = new RTCPeerConnection({bundlePolicy: 'max-bundle'});
  pc.addTransceiver(stream.getVideoTracks()[0], {
    direction: 'sendonly', streams: [stream],
    sendEncodings: [
      {rid: 'q', scaleResolutionDownBy: 4},
      {rid: 'h', scaleResolutionDownBy: 2},
      {rid: 'f'},
    ],
  });
  await pc.setLocalDescription(await pc.createOffer());
"""


class BlankPage(http.server.BaseHTTPRequestHandler):
    # getUserMedia needs a secure context: about:blank and data: URLs are not,
    # http://127.0.0.1 is.
    def do_GET(self):
        body = b"<!doctype html><title>sdp capture</title>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass
