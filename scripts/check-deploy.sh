#!/usr/bin/env bash
# Static checks of deploy/ (there is no Docker engine on the build machines):
# - the Dockerfile's stages, COPY sources and --from references are consistent;
# - every Debian shared library the built vroom-server links directly is installed in
#   the runtime stage (Swift's runtime is linked statically there);
# - the systemd unit passes `systemd-analyze verify` (bar the binary not
#   being installed on this machine);
# - the sample config loads (`vroom-server check-config`).
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-$(swift build --show-bin-path)/vroom-server}"
[ -x "$bin" ] || { echo "check-deploy: build vroom-server first ($bin)" >&2; exit 2; }

python3 - "$bin" <<'PY'
import re, subprocess, sys, os
binary = sys.argv[1]
text = open('deploy/Dockerfile').read().replace('\\\n', ' ')
stages, current, problems = [], None, []
for raw in text.splitlines():
    line = raw.strip()
    if not line or line.startswith('#'):
        continue
    op, _, rest = line.partition(' ')
    op = op.upper()
    if op == 'FROM':
        m = re.match(r'(\S+)(?:\s+AS\s+(\S+))?', rest, re.I)
        current = {'image': m.group(1), 'name': m.group(2), 'lines': []}
        stages.append(current)
    elif current is None:
        problems.append(f'{op} before FROM')
    else:
        current['lines'].append((op, rest))
        if op == 'COPY':
            args = rest.split()
            frm = [a for a in args if a.startswith('--from=')]
            srcs = [a for a in args if not a.startswith('--')][:-1]
            if frm:
                ref = frm[0].split('=', 1)[1]
                if ref not in [s['name'] for s in stages[:-1]]:
                    problems.append(f'COPY --from={ref}: no earlier stage of that name')
            else:
                for src in srcs:
                    if not os.path.exists(src):
                        problems.append(f'COPY {src}: not in the repository')
if len(stages) < 2:
    problems.append('expected a multi-stage build (build + runtime)')
runtime = stages[-1]
ops = dict((op, rest) for op, rest in runtime['lines'])
if 'vroom-server' not in ops.get('ENTRYPOINT', ''):
    problems.append('runtime stage: ENTRYPOINT is not vroom-server')
installed = set()
for op, rest in runtime['lines']:
    if op == 'RUN' and 'apt-get install' in rest:
        installed |= set(re.findall(r'\b(lib[a-z0-9.+-]+|ca-certificates|tzdata)\b', rest))
# Debian packages that own the libraries the binary links directly (apt
# brings in what those depend on, e.g. libsrtp2-1's NSS).
direct = set(re.findall(r'\(NEEDED\)\s+Shared library: \[([^\]]+)\]',
                        subprocess.run(['readelf', '-d', binary], capture_output=True, text=True).stdout))
needed = {}
for line in subprocess.run(['ldd', binary], capture_output=True, text=True).stdout.splitlines():
    m = re.search(r'=>\s+(\S+)', line)
    if line.split()[0] not in direct:
        continue
    if not m or not m.group(1).startswith(('/lib', '/usr/lib')):
        continue  # vdso, or Swift's runtime from the toolchain (static in the image)
    owner = subprocess.run(['dpkg', '-S', os.path.realpath(m.group(1))], capture_output=True, text=True).stdout
    pkg = owner.split(':')[0] if owner else None
    if pkg and pkg not in ('libc6', 'libgcc-s1', 'libstdc++6', 'zlib1g'):  # in debian:bookworm-slim already
        needed[pkg] = m.group(1)
for pkg, lib in sorted(needed.items()):
    if pkg not in installed:
        problems.append(f'runtime stage does not install {pkg} (for {lib})')
for p in problems:
    print('check-deploy: Dockerfile:', p)
print(f'check-deploy: Dockerfile: {len(stages)} stages; runtime installs {sorted(installed)}; binary needs {sorted(needed)}')
sys.exit(1 if problems else 0)
PY

if command -v systemd-analyze >/dev/null; then
  out=$(systemd-analyze verify deploy/vroom-server.service 2>&1 | grep -v 'vroom-server is not executable' || true)
  if [ -n "$out" ]; then echo "$out"; echo "check-deploy: systemd unit has problems"; exit 1; fi
  echo "check-deploy: systemd unit verifies"
else
  echo "check-deploy: systemd-analyze not installed; unit not verified"
fi

"$bin" check-config --config deploy/vroom.json --api-key check --api-secret check >/dev/null
echo "check-deploy: deploy/vroom.json loads"
