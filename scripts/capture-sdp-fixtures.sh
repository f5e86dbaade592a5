#!/usr/bin/env bash
# Captures the SDP fixtures the SDP tests round-trip: real offers and answers
# of headless Chromium (Debian's `chromium`) and aiortc 1.16 (PyPI), each
# answering the other's offer.
#
#   scripts/capture-sdp-fixtures.sh [outdir]      default Tests/SDPTests/Fixtures
#
# Creates its own venv in .build-venv-sdp/ (ignored by .build-*/), then runs
# the capture inside a fresh network namespace holding only loopback
# (`unshare --net`, needs root), so neither browser nor aiortc can reach
# anything but 127.0.0.1. Without unshare it falls back to running directly;
# Chromium's background networking is disabled by flags either way.
# Hand-made fixtures (firefox-offer.sdp, webrtcbin-offer.sdp) are not touched.
set -euo pipefail
cd "$(dirname "$0")/.."

out="${1:-Tests/SDPTests/Fixtures}"
venv=.build-venv-sdp
chromium="${CHROMIUM:-chromium}"

command -v "$chromium" >/dev/null || { echo "capture: no $chromium (apt-get install chromium)" >&2; exit 2; }
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/pip" install -q 'aiortc==1.16.*' 'websockets>=12'

run=("$venv/bin/python" scripts/capture_sdp/capture.py "$out" "$chromium")
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null && unshare --net true 2>/dev/null; then
  echo "capture: running in a loopback-only network namespace"
  unshare --net bash -c 'ip link set lo up && exec "$@"' capture "${run[@]}"
else
  echo "capture: unshare unavailable; running without a private network namespace" >&2
  "${run[@]}"
fi
