#!/usr/bin/env bash
# Static checks of deploy/ (there is no Docker engine or Kubernetes cluster on
# the build machines):
# - the Dockerfile's stages, COPY sources and --from references are consistent;
# - the build stage copies every target path Package.swift declares (from
#   `swift package dump-package`) to where `swift build` looks for it
#   (scripts/check_deploy/dockerfile_targets.py);
# - hadolint finds nothing in the Dockerfile (rules ignored inline, with why);
# - every Debian shared library the built vroom-server links directly is installed in
#   the runtime stage (Swift's runtime is linked statically there);
# - the systemd unit passes `systemd-analyze verify` (bar the binary not
#   being installed on this machine);
# - the sample config loads (`vroom-server check-config`);
# - deploy/compose.yaml validates against the Compose Specification's JSON
#   schema and is a consistent cluster (scripts/check_deploy/compose.py);
# - every manifest in deploy/k8s/ validates against Kubernetes' schemas
#   (kubernetes-validate --strict), and they fit each other and the server's
#   config: grace period, probes, ports, secrets (scripts/check_deploy/k8s.py);
# - deploy/prometheus.yml and deploy/grafana/vroom-dashboard.json parse, and every
#   metric the dashboard queries is exported by a dev server's live /metrics.
# The tools (hadolint, kubernetes-validate, the Compose schema, jsonschema,
# PyYAML) are in .build-venv-deploy/, made by scripts/check_deploy/setup.sh
# (which scripts/bootstrap.sh runs; run here too, it returns at once when done).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
bin="${1:-$(swift build --show-bin-path)/vroom-server}"
[ -x "$bin" ] || { echo "check-deploy: build vroom-server first ($bin)" >&2; exit 2; }
tools=$(scripts/check_deploy/setup.sh) || { echo "check-deploy: could not install the tools (scripts/check_deploy/setup.sh)" >&2; exit 1; }

work=$(mktemp -d)
server_pid=""
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null
    for _ in $(seq 50); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

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
# brings in what those depend on).
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

swift package dump-package >"$work/package.json"
python3 scripts/check_deploy/dockerfile_targets.py "$work/package.json" deploy/Dockerfile

if ! "$tools/hadolint" deploy/Dockerfile; then
  echo "check-deploy: hadolint $("$tools/hadolint" --version | grep -oE '[0-9]+\.[0-9]+\.[0-9]+') reports the lines above in deploy/Dockerfile;"
  echo "  fix them, or ignore a rule on its line with '# hadolint ignore=DLxxxx' and a comment saying why"
  exit 1
fi
echo "check-deploy: deploy/Dockerfile: hadolint $("$tools/hadolint" --version | grep -oE '[0-9]+\.[0-9]+\.[0-9]+') finds nothing"

if command -v systemd-analyze >/dev/null; then
  out=$(systemd-analyze verify deploy/vroom-server.service 2>&1 | grep -v 'vroom-server is not executable' || true)
  if [ -n "$out" ]; then echo "$out"; echo "check-deploy: systemd unit has problems"; exit 1; fi
  echo "check-deploy: systemd unit verifies"
else
  echo "check-deploy: systemd-analyze not installed; unit not verified"
fi

"$bin" check-config --config deploy/vroom.json --api-key check --api-secret check >/dev/null
echo "check-deploy: deploy/vroom.json loads"

# The cluster: deploy/compose.yaml (Docker) and deploy/k8s/ (Kubernetes).
"$tools/python" scripts/check_deploy/compose.py deploy/compose.yaml
mapfile -t manifests < <(find deploy/k8s -name '*.yaml' | sort)
# The oldest Kubernetes the manifests aim at and the newest whose schemas the
# pinned kubernetes-validate bundles (it needs no cluster and no network).
for version in 1.30.0 1.37.0; do
  if ! "$tools/kubernetes-validate" --strict --quiet --kubernetes-version "$version" "${manifests[@]}"; then
    echo "check-deploy: deploy/k8s: a manifest does not validate against Kubernetes $version's schemas (above)"
    exit 1
  fi
done
echo "check-deploy: deploy/k8s: ${#manifests[@]} files validate against Kubernetes 1.30 and 1.37 schemas (strict: no unknown fields)"
"$tools/python" scripts/check_deploy/k8s.py "$bin" deploy/k8s

# Observability: deploy/prometheus.yml and deploy/grafana/vroom-dashboard.json
# parse, and every metric the dashboard queries is one a live dev server
# exports (its GET /metrics, started here on kernel-chosen loopback ports).
"$bin" --dev --http-port 0 --rtc-port 0 --rtc-workers 1 --db "$work/v.sqlite" >"$work/server.log" 2>&1 &
server_pid=$!
port=""
for _ in $(seq 300); do
  port=$(grep -oE 'http: listening on 127\.0\.0\.1:[0-9]+' "$work/server.log" | head -n 1 | grep -oE '[0-9]+$' || true)
  [ -n "$port" ] && break
  kill -0 "$server_pid" 2>/dev/null || break
  sleep 0.1
done
[ -n "$port" ] || { tail -n 20 "$work/server.log"; echo "check-deploy: the dev server did not start"; exit 1; }
"$tools/python" - "http://127.0.0.1:$port/metrics" <<'PY'
import json, re, sys, urllib.request
try:
    import yaml
except ImportError:  # PyYAML is not in every python3 (Debian: python3-yaml)
    yaml = None
problems = []
metrics = urllib.request.urlopen(sys.argv[1], timeout=10).read().decode()
families = {}
for line in metrics.splitlines():
    m = re.match(r'# TYPE (\S+) (\S+)$', line)
    if m:
        if m.group(1) in families:
            problems.append(f'/metrics: family {m.group(1)} declared twice')
        families[m.group(1)] = m.group(2)
exported = set()
for name, kind in families.items():
    exported.add(name)
    if kind == 'histogram':
        exported |= {name + '_bucket', name + '_sum', name + '_count'}
    elif kind == 'summary':
        exported |= {name + '_sum', name + '_count'}

text = open('deploy/prometheus.yml').read()
if yaml is not None:
    config = yaml.safe_load(text)
    jobs = config.get('scrape_configs') or []
    if not any(j.get('job_name') == 'vroom' and j.get('metrics_path', '/metrics') == '/metrics'
               and j.get('static_configs') for j in jobs):
        problems.append('prometheus.yml: no scrape config job "vroom" on /metrics with targets')
else:
    print('check-deploy: PyYAML missing; prometheus.yml checked by pattern only')
    for pattern in (r'(?m)^scrape_configs:', r'job_name: vroom\b', r'metrics_path: /metrics\b', r'static_configs:'):
        if not re.search(pattern, text):
            problems.append(f'prometheus.yml: nothing matches {pattern}')

dashboard = json.load(open('deploy/grafana/vroom-dashboard.json'))
panels = dashboard.get('panels') or []
if not panels:
    problems.append('dashboard: no panels')
used = set()
ids = set()
for panel in panels:
    if panel.get('id') in ids:
        problems.append(f'dashboard: panel id {panel.get("id")} twice')
    ids.add(panel.get('id'))
    targets = panel.get('targets') or []
    if not targets:
        problems.append(f'dashboard: panel "{panel.get("title")}" has no query')
    for target in targets:
        names = set(re.findall(r'\bvroom_[a-z0-9_]+', target.get('expr', '')))
        if not names:
            problems.append(f'dashboard: panel "{panel.get("title")}" queries no vroom_ metric')
        used |= names
for variable in dashboard.get('templating', {}).get('list', []):
    query = variable.get('query')
    text = query.get('query', '') if isinstance(query, dict) else str(query or '')
    used |= set(re.findall(r'\bvroom_[a-z0-9_]+', text))
for name in sorted(used - exported):
    problems.append(f'dashboard queries {name}, which /metrics does not export')
# The panels the README promises.
wanted = ['vroom_rooms', 'vroom_participants', 'vroom_packets_forwarded_total', 'vroom_packets_dropped_total',
          'vroom_retransmissions_total', 'vroom_pli_sent_total', 'vroom_join_seconds_bucket',
          'vroom_network_quality_participants', 'vroom_webhooks_pending', 'vroom_subscriber_estimate_bps_bucket',
          'vroom_tracks_switched_off', 'vroom_layer_switches_total', 'vroom_probe_packets_total']
for name in wanted:
    if name not in used:
        problems.append(f'dashboard: no panel uses {name}')
for p in problems:
    print('check-deploy:', p)
print(f'check-deploy: dashboard: {len(panels)} panels querying {len(used)} metric names; /metrics exports {len(families)} families; {len(problems)} problem(s)')
sys.exit(1 if problems else 0)
PY
echo "check-deploy: deploy/prometheus.yml and deploy/grafana/vroom-dashboard.json check"
