"""Checks deploy/compose.yaml without a Docker engine.

1. The file validates against the Compose Specification's JSON schema, the
   copy that check-jsonschema ships (check_jsonschema/builtin_schemas/vendor/
   compose-spec.json, taken by its maintainers from the compose-spec/compose-spec
   repository; the version is the pinned check-jsonschema's, see
   scripts/check_deploy/requirements.txt).
2. What a cluster needs and the schema cannot say: a PostgreSQL service with a
   named volume and a pg_isready healthcheck; at least two vroom-server nodes,
   each on the PostgreSQL store, waiting for PostgreSQL to be healthy, with its
   own node URL, HTTP port and media port range (the same numbers inside and
   outside the container: the node announces what it binds), a /healthz
   healthcheck on its own port and a stop_grace_period no shorter than its
   drain timeout; secrets only from the environment, each one the sample
   deploy/.env.example names, and deploy/.env ignored by git. A coturn
   service, when there is one, checks credentials with the nodes' TURN
   secret (use-auth-secret) and publishes the port of every node's TURN URL
   and its relay range 1:1.

    python3 compose.py [deploy/compose.yaml]     (from the repository root)
"""

import importlib.metadata
import importlib.resources
import json
import re
import subprocess
import sys
from urllib.parse import urlsplit

import jsonschema
import yaml

COMPOSE = sys.argv[1] if len(sys.argv) > 1 else 'deploy/compose.yaml'
ENV_EXAMPLE = 'deploy/.env.example'
SECRET_VARIABLES = ('VROOM_API_KEY', 'VROOM_API_SECRET', 'POSTGRES_PASSWORD', 'VROOM_TURN_SECRET')
INTERPOLATION = re.compile(r'\$\{([A-Za-z_][A-Za-z0-9_]*)[^}]*\}')

problems = []
summary = []  # what was checked, for the last line


def problem(text):
    problems.append(text)


def seconds(duration):
    """A Compose duration ("45s", "1m30s", "500ms") in seconds."""
    if isinstance(duration, (int, float)):
        return float(duration)
    total, rest = 0.0, str(duration)
    for amount, unit in re.findall(r'(\d+(?:\.\d+)?)(us|ms|s|m|h)', rest):
        total += float(amount) * {'us': 1e-6, 'ms': 1e-3, 's': 1, 'm': 60, 'h': 3600}[unit]
    if not re.fullmatch(r'((\d+(?:\.\d+)?)(us|ms|s|m|h))+', rest):
        raise ValueError(f'not a duration: {duration!r}')
    return total


def resolved(text):
    """The value with each ${VAR...} replaced by a placeholder, to read its shape."""
    return INTERPOLATION.sub('VAR', str(text))


def environment(service):
    env = service.get('environment') or {}
    if isinstance(env, list):
        env = dict(item.split('=', 1) if '=' in item else (item, None) for item in env)
    return env


def flags(command):
    if isinstance(command, str):
        command = command.split()
    values, i = {}, 0
    command = [str(c) for c in command or []]
    while i < len(command):
        word = command[i]
        if word.startswith('--'):
            name, eq, value = word.partition('=')
            if not eq and i + 1 < len(command) and not command[i + 1].startswith('--'):
                value, i = command[i + 1], i + 1
            values.setdefault(name, []).append(value if (eq or value) else True)
        i += 1
    return values


def published(service):
    """(protocol, host port, container port) for each published port."""
    out = []
    for entry in service.get('ports') or []:
        if isinstance(entry, dict):
            target, host = int(entry['target']), int(str(entry.get('published', entry['target'])).split('-')[0])
            out.append((entry.get('protocol', 'tcp'), host, target))
            continue
        text, _, protocol = str(entry).partition('/')
        parts = text.split(':')
        container = parts[-1]
        host = parts[-2] if len(parts) > 1 else container
        c_lo, _, c_hi = container.partition('-')
        h_lo, _, h_hi = host.partition('-')
        c_lo, h_lo = int(c_lo), int(h_lo)
        c_hi, h_hi = int(c_hi or c_lo), int(h_hi or h_lo)
        if c_hi - c_lo != h_hi - h_lo:
            problem(f'port range {entry}: host and container ranges differ in length')
            continue
        for k in range(c_hi - c_lo + 1):
            out.append((protocol or 'tcp', h_lo + k, c_lo + k))
    return out


def main():
    text = open(COMPOSE).read()
    document = yaml.safe_load(text)

    schema_file = importlib.resources.files('check_jsonschema.builtin_schemas.vendor') / 'compose-spec.json'
    schema = json.loads(schema_file.read_text())
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    validator = validator_class(schema, format_checker=validator_class.FORMAT_CHECKER)
    summary.append(f'the Compose Specification schema of check-jsonschema {importlib.metadata.version("check-jsonschema")}')
    for error in sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path)):
        where = '/'.join(str(p) for p in error.absolute_path) or '(top)'
        problem(f'schema: {where}: {error.message}')

    services = document.get('services') or {}
    volumes = document.get('volumes') or {}

    # PostgreSQL.
    databases = {name: s for name, s in services.items() if str(s.get('image', '')).startswith('postgres:')}
    if len(databases) != 1:
        problem(f'expected one service on the official postgres image, found {sorted(databases) or "none"}')
        return
    (db_name, db), = databases.items()
    if 'pg_isready' not in json.dumps(db.get('healthcheck', {}).get('test', '')):
        problem(f'{db_name}: no healthcheck with pg_isready')
    named = [str(v).split(':')[0] if not isinstance(v, dict) else v.get('source') for v in db.get('volumes') or []]
    if not any(v in volumes for v in named):
        problem(f'{db_name}: its data is not on a named volume (top-level `volumes:`)')
    if db.get('ports'):
        problem(f'{db_name}: publishes ports; only the nodes need to reach it')

    # The nodes.
    nodes = {name: s for name, s in services.items()
             if 'vroom-server' in str(s.get('image', '')) or 'deploy/Dockerfile' in json.dumps(s.get('build', ''))}
    if len(nodes) < 2:
        problem(f'a cluster needs at least two vroom-server nodes, found {sorted(nodes)}')
    default_drain = json.load(open('deploy/vroom.json')).get('shutdown', {}).get('drainTimeoutSeconds', 1800)
    seen = {'node URL': {}, 'HTTP port': {}, 'media port': {}}
    for name, node in sorted(nodes.items()):
        args = flags(node.get('command'))
        env = environment(node)

        def one(flag, variable=None):
            if flag in args:
                return args[flag][-1]
            return env.get(variable) if variable else None

        db_url = one('--db', 'VROOM_DB')
        if not db_url or not str(db_url).startswith('postgres://'):
            problem(f'{name}: no postgres:// store (--db or VROOM_DB); {db_url!r} would keep SQLite, one node')
        else:
            host = urlsplit(resolved(db_url)).hostname
            if host != db_name:
                problem(f'{name}: the store\'s host is {host!r}, not the {db_name} service')
        condition = (node.get('depends_on') or {}).get(db_name) if isinstance(node.get('depends_on'), dict) else None
        if not condition or condition.get('condition') != 'service_healthy':
            problem(f'{name}: does not wait for {db_name} to be healthy (depends_on ... condition: service_healthy)')

        node_url = one('--node-url', 'VROOM_NODE_URL')
        http_port = int(one('--http-port', 'VROOM_HTTP_PORT') or 7880)
        rtc_port = int(one('--rtc-port', 'VROOM_RTC_PORT') or 7882)
        workers = int(one('--rtc-workers', 'VROOM_RTC_WORKERS') or 0)
        if not workers:
            problem(f'{name}: --rtc-workers not set; the default (the number of cores) makes the UDP range unknowable here')
            workers = 1
        media = set(range(rtc_port, rtc_port + workers))
        ports = published(node)
        if not node_url:
            problem(f'{name}: no --node-url')
        else:
            url = urlsplit(resolved(node_url))
            url_port = url.port or 80
            if not any(p == 'tcp' and c == http_port and h == url_port for p, h, c in ports):
                problem(f'{name}: node URL {node_url} does not reach its HTTP port {http_port} (publish {url_port}:{http_port}/tcp)')
            if seen['node URL'].setdefault(node_url, name) != name:
                problem(f'{name}: node URL {node_url} is also {seen["node URL"][node_url]}\'s')
        if seen['HTTP port'].setdefault(http_port, name) != name:
            problem(f'{name}: HTTP port {http_port} is also {seen["HTTP port"][http_port]}\'s')
        for port in sorted(media):
            if seen['media port'].setdefault(port, name) != name:
                problem(f'{name}: UDP port {port} is also {seen["media port"][port]}\'s')
            if ('udp', port, port) not in ports:
                problem(f'{name}: media port {port}/udp is not published as {port}:{port}/udp '
                        '(ICE candidates carry the port the node binds)')

        test = json.dumps(node.get('healthcheck', {}).get('test', ''))
        if '/healthz' not in test or str(http_port) not in test:
            problem(f'{name}: healthcheck does not ask /healthz on port {http_port}')

        drain = float(one('--drain-timeout', 'VROOM_SHUTDOWN_DRAIN_TIMEOUT_SECONDS') or default_drain)
        grace = seconds(node.get('stop_grace_period', '10s'))
        if grace < drain:
            problem(f'{name}: stop_grace_period {grace:g} s is shorter than the drain timeout {drain:g} s '
                    '(Docker would SIGKILL the node before its rooms move)')

        for variable in SECRET_VARIABLES:
            value = env.get(variable)
            if value is not None and not INTERPOLATION.search(str(value)):
                problem(f'{name}: {variable} is written in the file; take it from the environment (${{{variable}}})')
        for variable in ('VROOM_API_KEY', 'VROOM_API_SECRET'):
            if variable not in env:
                problem(f'{name}: {variable} is not passed to the node')
    check_turn(services, nodes)
    password = environment(db).get('POSTGRES_PASSWORD')
    if password is None or not INTERPOLATION.search(str(password)):
        problem(f'{db_name}: POSTGRES_PASSWORD must come from the environment')

    # Every variable the file reads is in the sample .env, and the real one stays out of git.
    used = set(INTERPOLATION.findall(text.replace('$$', '')))
    sample = set(re.findall(r'(?m)^([A-Za-z_][A-Za-z0-9_]*)=', open(ENV_EXAMPLE).read()))
    for variable in sorted(used - sample):
        problem(f'{COMPOSE} reads ${{{variable}}}, which {ENV_EXAMPLE} does not list')
    ignored = subprocess.run(['git', 'check-ignore', '-q', 'deploy/.env']).returncode == 0
    if not ignored:
        problem('deploy/.env (the real secrets) is not ignored by git')

    summary.append(f'{len(nodes)} nodes on {db_name}, reading {", ".join(sorted(used))} from the environment')

def check_turn(services, nodes):
    """coturn beside the nodes (PROTOCOL.md 9): its shared secret is the
    nodes' turn.secret, and what their turn.urls name it publishes."""
    turns = {name: s for name, s in services.items() if 'coturn' in str(s.get('image', ''))}
    if not turns:
        return
    (name, turn), = turns.items()
    args = flags(turn.get('command'))
    secret = (args.get('--static-auth-secret') or [None])[-1]
    if '--use-auth-secret' not in args or not secret:
        problem(f'{name}: not on the TURN REST API scheme (--use-auth-secret --static-auth-secret=...)')
    elif not INTERPOLATION.fullmatch(str(secret)):
        problem(f'{name}: its static-auth-secret is written in the file; take it from the environment')
    ports = published(turn)
    low, high = int((args.get('--min-port') or [49152])[-1]), int((args.get('--max-port') or [65535])[-1])
    missing = [p for p in range(low, high + 1) if ('udp', p, p) not in ports]
    if missing:
        problem(f'{name}: relay ports {missing[0]}-{missing[-1]}/udp are not published 1:1')
    for node_name, node in sorted(nodes.items()):
        env = environment(node)
        urls = [u for u in str(env.get('VROOM_TURN_URLS', '')).split(',') if u]
        if not urls:
            problem(f'{node_name}: no VROOM_TURN_URLS though {name} runs beside it')
            continue
        if INTERPOLATION.findall(str(env.get('VROOM_TURN_SECRET', ''))) != INTERPOLATION.findall(str(secret or '')):
            problem(f'{node_name}: VROOM_TURN_SECRET is not {name}\'s static-auth-secret')
        for url in urls:
            match = re.fullmatch(r'turns?:[^:?]+(?::(\d+))?(?:\?transport=(udp|tcp))?', resolved(url))
            if not match:
                problem(f'{node_name}: TURN URL {url} is not turn:host[:port][?transport=udp|tcp]')
                continue
            port, transport = int(match.group(1) or 3478), match.group(2) or 'udp'
            if (transport, port, port) not in ports:
                problem(f'{node_name}: TURN URL {url}: {name} does not publish {port}/{transport}')
    summary.append(f'{name} with the nodes\' TURN secret, relays {low}-{high}/udp')


if __name__ == '__main__':
    try:
        main()
    except (OSError, ValueError, KeyError, yaml.YAMLError) as error:
        problem(f'cannot read: {error}')
    for p in problems:
        print(f'check-deploy: {COMPOSE}:', p)
    print(f'check-deploy: {COMPOSE}: checked against {"; ".join(summary)}: {len(problems)} problem(s)')
    sys.exit(1 if problems else 0)
