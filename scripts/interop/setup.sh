#!/usr/bin/env bash
# Creates the interop tests' Python venv in .build-venv-interop/ (ignored by
# .gitignore's .build-*/): aiortc 1.16 (as scripts/capture-sdp-fixtures.sh
# pins it), websockets and numpy. Idempotent: when the venv already has the
# packages it returns at once without asking PyPI. No prompts (CI=true, no
# stdin, root all work).
#
#   scripts/interop/setup.sh        prints the venv's python path on stdout
set -euo pipefail
cd "$(dirname "$0")/../.."

venv=.build-venv-interop
stamp="$venv/.interop-requirements"
requirements="aiortc==1.16.* websockets>=12 numpy"

if [ -x "$venv/bin/python" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$requirements" ] \
   && "$venv/bin/python" -c 'import aiortc, websockets, numpy, av' 2>/dev/null; then
  echo "$venv/bin/python"
  exit 0
fi

if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv" >&2
fi
# shellcheck disable=SC2086 # the requirements are words on purpose
"$venv/bin/pip" install -q --disable-pip-version-check --no-input $requirements >&2
echo "$requirements" > "$stamp"
echo "$venv/bin/python"
