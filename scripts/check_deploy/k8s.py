"""Checks deploy/k8s/ against itself and the server's config, without a cluster.

(kubernetes-validate, run by check-deploy.sh before this, checks each
manifest against Kubernetes' own schemas.) This checks what those schemas
cannot: that the pieces fit together and fit the server.

- the ConfigMap's vroom.json loads (`vroom-server check-config`) and holds no
  secret;
- terminationGracePeriodSeconds covers the ConfigMap's drain timeout plus a
  margin for moving the rooms (shorter, and the kubelet kills the node mid-move);
- readiness asks /readyz and liveness /healthz, on the config's HTTP port
  (liveness on /readyz would restart every draining node);
- host networking with ClusterFirstWithHostNet DNS, and container ports that
  are the config's HTTP port and media port range;
- the node URL comes from the pod's host IP (downward API), the API key, secret
  and PostgreSQL URL from the Secret (keys the example Secret has), the config
  from the ConfigMap, mounted where --config reads it;
- a preStop hook that posts /v1/Node/Drain;
- Services, the PodDisruptionBudget and the StatefulSet's serviceName select
  the nodes' pods; the PostgreSQL URL's host is the ExternalName Service.

    python3 k8s.py VROOM_SERVER_BINARY [deploy/k8s]     (from the repository root)
"""

import glob
import json
import posixpath
import re
import subprocess
import sys
import tempfile
from urllib.parse import urlsplit

import yaml

# After the drain timeout the node still moves its rooms (rows in PostgreSQL,
# a resume notice to each participant) and stops its workers: a few seconds;
# 10 s leaves room for a slow database.
MOVE_MARGIN_SECONDS = 10

binary = sys.argv[1]
folder = sys.argv[2] if len(sys.argv) > 2 else 'deploy/k8s'
problems = []


def problem(where, text):
    problems.append(f'{where}: {text}')


def main():
    documents = []
    for path in sorted(glob.glob(f'{folder}/**/*.yaml', recursive=True)):
        for document in yaml.safe_load_all(open(path)):
            if document:
                documents.append((path, document))

    def of_kind(*kinds):
        return [(p, d) for p, d in documents if d.get('kind') in kinds]

    workloads = of_kind('StatefulSet', 'Deployment', 'DaemonSet')
    if len(workloads) != 1:
        problem(folder, f'expected one workload for the nodes, found {len(workloads)}')
        return
    path, workload = workloads[0]
    where = f'{path} ({workload["kind"]} {workload["metadata"]["name"]})'
    pod = workload['spec']['template']['spec']
    labels = workload['spec']['template']['metadata'].get('labels', {})
    containers = [c for c in pod['containers'] if 'vroom-server' in c.get('image', '') or c['name'] == 'vroom-server']
    if len(containers) != 1:
        problem(where, 'no vroom-server container')
        return
    container = containers[0]
    args = container.get('args', []) + container.get('command', [])
    env = {e['name']: e for e in container.get('env', [])}

    def flag(name):
        return next((args[i + 1] for i, a in enumerate(args[:-1]) if a == name), None)

    # The config: a ConfigMap mounted where --config reads it.
    config_path = flag('--config')
    mounts = {m['mountPath']: m['name'] for m in container.get('volumeMounts', [])}
    volumes = {v['name']: v for v in pod.get('volumes', [])}
    config = None
    if not config_path:
        problem(where, 'no --config')
    else:
        folder_mount = posixpath.dirname(config_path)
        volume = volumes.get(mounts.get(folder_mount) or mounts.get(config_path), {})
        name = (volume.get('configMap') or {}).get('name')
        maps = {d['metadata']['name']: (p, d) for p, d in of_kind('ConfigMap')}
        if name not in maps:
            problem(where, f'--config {config_path} is not in a mounted ConfigMap of {folder}')
        else:
            map_path, config_map = maps[name]
            key = posixpath.basename(config_path)
            text = (config_map.get('data') or {}).get(key)
            if text is None:
                problem(map_path, f'no key {key} (the file --config reads)')
            else:
                config = json.loads(text)
                with tempfile.NamedTemporaryFile('w', suffix='.json') as f:
                    f.write(text)
                    f.flush()
                    run = subprocess.run([binary, 'check-config', '--config', f.name,
                                          '--api-key', 'check', '--api-secret', 'check'],
                                         capture_output=True, text=True)
                if run.returncode != 0:
                    problem(map_path, f'vroom-server check-config refuses {key}: {(run.stderr or run.stdout).strip()[-300:]}')
                for secret_key in ('apiKey', 'apiSecret'):
                    if secret_key in config:
                        problem(map_path, f'{secret_key} belongs in the Secret, not the ConfigMap')
                if '@' in str(config.get('db', '')):
                    problem(map_path, 'db holds credentials; it belongs in the Secret (VROOM_DB)')
    if config is None:
        return

    http_port = config.get('http', {}).get('port', 7880)
    rtc = config.get('rtc', {})
    media = set(range(rtc.get('port', 7882), rtc.get('port', 7882) + rtc.get('workers', 0)))
    if not rtc.get('workers'):
        problem(where, 'the ConfigMap sets no rtc.workers, so the media ports are unknown here')
    drain = config.get('shutdown', {}).get('drainTimeoutSeconds', 1800)

    # Stopping: grace period and preStop.
    grace = pod.get('terminationGracePeriodSeconds', 30)
    if grace < drain + MOVE_MARGIN_SECONDS:
        problem(where, f'terminationGracePeriodSeconds {grace} < drain timeout {drain} + {MOVE_MARGIN_SECONDS} s '
                       'to move the rooms: the kubelet would kill the node before its rooms move')
    hook = json.dumps(container.get('lifecycle', {}).get('preStop', {}))
    if '/v1/Node/Drain' not in hook or 'POST' not in hook:
        problem(where, 'no preStop hook that POSTs /v1/Node/Drain')
    elif str(http_port) not in hook:
        problem(where, f'the preStop hook does not call the HTTP port {http_port}')

    # Ports and probes.
    ports = container.get('ports', [])
    named = {p.get('name'): p['containerPort'] for p in ports}
    tcp = {p['containerPort'] for p in ports if p.get('protocol', 'TCP') == 'TCP'}
    udp = {p['containerPort'] for p in ports if p.get('protocol') == 'UDP'}
    if http_port not in tcp:
        problem(where, f'no TCP container port {http_port} (the config\'s http.port)')
    if udp != media:
        problem(where, f'UDP container ports {sorted(udp)} are not the config\'s media ports {sorted(media)}')
    for probe, wanted in (('readinessProbe', '/readyz'), ('livenessProbe', '/healthz')):
        get = container.get(probe, {}).get('httpGet')
        if not get:
            problem(where, f'no {probe} with httpGet')
            continue
        port = named.get(get.get('port'), get.get('port'))
        if get.get('path') != wanted:
            problem(where, f'{probe} asks {get.get("path")}, not {wanted}')
        if port != http_port:
            problem(where, f'{probe} asks port {get.get("port")}, not the HTTP port {http_port}')
    if pod.get('hostNetwork') is not True:
        problem(where, 'hostNetwork is not true (see the comment at the top for the one-port-per-pod alternative)')
    elif pod.get('dnsPolicy') != 'ClusterFirstWithHostNet':
        problem(where, 'hostNetwork without dnsPolicy ClusterFirstWithHostNet cannot resolve the cluster\'s Services')

    # Identity and secrets.
    node_url = flag('--node-url') or (env.get('VROOM_NODE_URL') or {}).get('value')
    variables = re.findall(r'\$\((\w+)\)', node_url or '')
    if not node_url:
        problem(where, 'no --node-url')
    elif not any((env.get(v, {}).get('valueFrom', {}).get('fieldRef') or {}).get('fieldPath') == 'status.hostIP'
                 for v in variables):
        problem(where, f'--node-url {node_url} is not built from the pod\'s host IP (downward API status.hostIP)')
    elif urlsplit(node_url.replace('$(', '').replace(')', '')).port != http_port:
        problem(where, f'--node-url {node_url} is not on the HTTP port {http_port}')
    secrets = {d['metadata']['name']: d for _, d in of_kind('Secret')}
    for variable in ('VROOM_API_KEY', 'VROOM_API_SECRET', 'VROOM_DB'):
        entry = env.get(variable)
        ref = (entry or {}).get('valueFrom', {}).get('secretKeyRef')
        if not ref:
            problem(where, f'{variable} does not come from a Secret')
            continue
        secret = secrets.get(ref['name'])
        data = {**(secret or {}).get('stringData', {}), **(secret or {}).get('data', {})}
        if secret is None or ref['key'] not in data:
            problem(where, f'{variable}: the example Secret {ref["name"]} has no key {ref["key"]}')
        elif variable == 'VROOM_DB':
            url = urlsplit(str(data[ref['key']]))
            services = {d['metadata']['name']: d for _, d in of_kind('Service')}
            if url.scheme != 'postgres':
                problem(where, f'VROOM_DB ({ref["key"]}) is not a postgres:// URL')
            elif url.hostname not in services or services[url.hostname]['spec'].get('type') not in ('ExternalName', None):
                problem(where, f'VROOM_DB\'s host {url.hostname} is not a Service in {folder}')

    # Selectors.
    def selects(selector):
        return selector and all(labels.get(k) == v for k, v in selector.items())
    for p, service in of_kind('Service'):
        if service['spec'].get('selector') and not selects(service['spec']['selector']):
            problem(p, f'Service {service["metadata"]["name"]} selects no node pod')
    for p, budget in of_kind('PodDisruptionBudget'):
        if not selects(budget['spec'].get('selector', {}).get('matchLabels')):
            problem(p, f'PodDisruptionBudget {budget["metadata"]["name"]} selects no node pod')
    if workload['kind'] == 'StatefulSet':
        headless = [d for _, d in of_kind('Service') if d['metadata']['name'] == workload['spec'].get('serviceName')]
        if not headless or headless[0]['spec'].get('clusterIP') != 'None':
            problem(where, f'serviceName {workload["spec"].get("serviceName")} is not a headless Service in {folder}')

    print(f'check-deploy: {folder}: {workload["kind"]} of {workload["spec"].get("replicas", 1)} on the host network; '
          f'HTTP {http_port}, media {min(media, default=0)}-{max(media, default=0)}/udp; '
          f'drain {drain} s within a {grace} s grace period; {len(documents)} manifests')


if __name__ == '__main__':
    try:
        main()
    except (OSError, ValueError, KeyError, TypeError, yaml.YAMLError) as error:
        problems.append(f'{folder}: cannot read: {error!r}')
    for p in problems:
        print('check-deploy:', p)
    print(f'check-deploy: {folder}: {len(problems)} problem(s)')
    sys.exit(1 if problems else 0)
