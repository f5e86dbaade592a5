#!/usr/bin/env bash
# Captures the SDP fixtures the SDP tests round-trip: real offers and answers
# of headless Chromium (Debian's `chromium`) and aiortc 1.16 (PyPI), each
# answering the other's offer.
#
#   scripts/capture-sdp-fixtures.sh [outdir [file.sdp ...]]
#
# outdir defaults to Tests/SDPTests/Fixtures; naming files writes only those
# (e.g. `scripts/capture-sdp-fixtures.sh Tests/SDPTests/Fixtures
# chromium-simulcast-offer.sdp`), leaving the other captured fixtures as
# they are.
#
# Creates its own venv in .build-venv-sdp/ (ignored by .build-*/), then runs
# the capture inside a fresh network namespace holding only loopback
# (`unshare --net`, needs root), so neither browser nor aiortc can reach
# anything but 127.0.0.1. Without unshare it falls back to running directly;
# Chromium's background networking is disabled by flags either way.
# When firefox-esr is installed it also captures firefox-simulcast-offer.sdp
# (scripts/capture_sdp/firefox.py, over WebDriver BiDi).
# Hand-made fixtures (firefox-offer.sdp, webrtcbin-offer.sdp) are not touched.
set -euo pipefail
cd "$(dirname "$0")/.."

out="${1:-Tests/SDPTests/Fixtures}"
only=("${@:2}")
venv=.build-venv-sdp
chromium="${CHROMIUM:-chromium}"
firefox="${FIREFOX:-firefox-esr}"

command -v "$chromium" >/dev/null || { echo "capture: no $chromium (apt-get install chromium)" >&2; exit 2; }
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/pip" install -q 'aiortc==1.16.*' 'websockets>=12'

chromium_only=()
want_firefox=1
if [ ${#only[@]} -gt 0 ]; then
  want_firefox=0
  for name in "${only[@]}"; do
    if [ "$name" = firefox-simulcast-offer.sdp ]; then want_firefox=1; else chromium_only+=("$name"); fi
  done
fi
runs=()
if [ ${#only[@]} -eq 0 ] || [ ${#chromium_only[@]} -gt 0 ]; then
  runs+=("$venv/bin/python scripts/capture_sdp/capture.py \"\$0\" \"\$1\" ${chromium_only[*]:-}")
fi
if [ "$want_firefox" = 1 ]; then
  if command -v "$firefox" >/dev/null; then
    # A hung Firefox must not hang the capture (it takes about 10 s).
    runs+=("timeout 120 $venv/bin/python scripts/capture_sdp/firefox.py \"\$0\" \"\$2\"")
  else
    echo "capture: no $firefox; firefox-simulcast-offer.sdp not refreshed (apt-get install firefox-esr)" >&2
  fi
fi
script=$(printf '%s && ' "${runs[@]}")
script="${script% && }"
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null && unshare --net true 2>/dev/null; then
  echo "capture: running in a loopback-only network namespace"
  unshare --net bash -c "ip link set lo up && $script" "$out" "$chromium" "$firefox"
else
  echo "capture: unshare unavailable; running without a private network namespace" >&2
  bash -c "$script" "$out" "$chromium" "$firefox"
fi
