#!/usr/bin/env bash
# Creates scripts/check-deploy.sh's Python venv in .build-venv-deploy/ (ignored
# by .gitignore's .build-*/) with the tools pinned in requirements.txt beside
# this file. Idempotent: when the venv already holds exactly those pins it
# returns at once without asking PyPI. No prompts (CI=true, no stdin, root all
# work). scripts/bootstrap.sh runs it; scripts/check-deploy.sh runs it too, so
# that check-deploy also works on a machine bootstrapped before it existed.
#
#   scripts/check_deploy/setup.sh        prints the venv's bin directory on stdout
set -euo pipefail
cd "$(dirname "$0")/../.."

venv=.build-venv-deploy
requirements=scripts/check_deploy/requirements.txt
stamp="$venv/.deploy-requirements"

if [ -x "$venv/bin/python" ] && cmp -s "$requirements" "$stamp" && [ -x "$venv/bin/hadolint" ] \
   && "$venv/bin/python" -c 'import jsonschema, yaml, kubernetes_validate, check_jsonschema' 2>/dev/null; then
  echo "$(pwd)/$venv/bin"
  exit 0
fi

if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv" >&2
fi
"$venv/bin/pip" install -q --disable-pip-version-check --no-input -r "$requirements" >&2
cp "$requirements" "$stamp"
echo "$(pwd)/$venv/bin"
