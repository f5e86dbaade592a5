#!/usr/bin/env bash
# Proves the admin REST API (PROTOCOL.md section 6) against third-party tools:
#   a. openapi.yaml is valid OpenAPI 3.1 (openapi-spec-validator) and is what
#      scripts/rest_conformance/gen_openapi.py makes from Twilio's reference file
#   b. schemathesis fuzzes every operation of openapi.yaml against the live server
#   c. Twilio's own Python helper library drives rooms, participants (joined over
#      the signaling WebSocket), tracks, subscribe rules, removal and completion
#   d. every JSON response the library saw validates against Twilio's own schema
#      (../shared/reference/twilio_video_v1_rooms.json) and has every field it lists
#   e. c and d again against a two-node cluster on a private PostgreSQL, the
#      library pointed at the node that does NOT own the rooms (they are created
#      and joined at the other), so every action travels over LISTEN/NOTIFY
#      (PROTOCOL.md section 8); skipped with BASE_URL or without PostgreSQL
#
# Usage: scripts/rest-conformance.sh [BASE_URL]
#   Without BASE_URL it builds vroom-server, starts
#   `vroom-server --dev --http-port 0 --rtc-port 0 --db TMP/v.sqlite`, and stops it
#   at the end. With BASE_URL (http://127.0.0.1:PORT only) it uses that server,
#   whose API key and secret are VROOM_API_KEY / VROOM_API_SECRET (default
#   devkey / devsecret); tokens are minted with VROOM_SERVER_BIN (default the
#   debug build).
# Environment: VROOM_TWILIO_REFERENCE (Twilio's file), REST_CONFORMANCE_MAX_EXAMPLES
#   (schemathesis cases per operation, default 20), REST_CONFORMANCE_CHECKS.
# Tools go to .build-venv-rest/ (pinned in scripts/rest_conformance/requirements.txt);
# logs, the JUnit report and the captured exchanges to .build-rest-conformance/.
# Prints `rest-conformance: N passed, M failed` last; exits 1 on any failure.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
export PATH="/opt/swift/usr/bin:$PATH"

venv="$root/.build-venv-rest"
requirements="$root/scripts/rest_conformance/requirements.txt"
reference="${VROOM_TWILIO_REFERENCE:-$root/../shared/reference/twilio_video_v1_rooms.json}"
api_key="${VROOM_API_KEY:-devkey}"
api_secret="${VROOM_API_SECRET:-devsecret}"
max_examples="${REST_CONFORMANCE_MAX_EXAMPLES:-20}"
signal_url="${REST_CONFORMANCE_SIGNAL_URL:-}"   # only for mock_server.py
checks="${REST_CONFORMANCE_CHECKS:-not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance}"

passed=0
failed=0
pass() { passed=$((passed + 1)); printf 'ok   %s\n' "$1"; }
fail() { failed=$((failed + 1)); printf 'FAIL %s\n' "$1"; }
finish() { printf 'rest-conformance: %d passed, %d failed\n' "$passed" "$failed"; [ "$failed" -eq 0 ]; exit $?; }
section() { printf '\n==== %s ====\n' "$1"; }

work=$(mktemp -d)
logs="$root/.build-rest-conformance"   # kept after the run (ignored by .build-*/)
server_pid=""
seed_pid=""
cluster_pids=""
pg_dir=""
pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
# PostgreSQL refuses to run as root: its commands run as `postgres` then.
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
stop_pid() {
  if [ -n "$1" ] && kill -0 "$1" 2>/dev/null; then
    # A second SIGTERM ends a server's wait for participants still connected.
    kill -TERM "$1" 2>/dev/null
    for _ in $(seq 10); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
    kill -TERM "$1" 2>/dev/null
    for _ in $(seq 50); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$1" 2>/dev/null
  fi
}
cleanup() {
  stop_pid "$seed_pid"
  stop_pid "$server_pid"
  for pid in $cluster_pids; do stop_pid "$pid"; done
  if [ -n "$pg_dir" ]; then
    as_postgres "$pg_bin/pg_ctl" -D "$pg_dir/data" -m fast -w stop >/dev/null 2>&1
    cp "$pg_dir"/*.log "$work"/ 2>/dev/null
    rm -rf "$pg_dir"
  fi
  rm -rf "$logs" && mkdir -p "$logs"
  cp "$work"/*.log "$work"/*.xml "$work"/*.json "$work"/*.toml "$work"/fuzz.yaml "$logs"/ 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

if [ ! -f "$reference" ]; then
  fail "Twilio's reference file not found at $reference (set VROOM_TWILIO_REFERENCE)"
  finish
fi

section "tools: $venv"
stamp="$venv/.requirements"
if [ ! -x "$venv/bin/python" ] || ! cmp -s "$requirements" "$stamp"; then
  { python3 -m venv "$venv" && "$venv/bin/pip" install -q --upgrade pip && "$venv/bin/pip" install -q -r "$requirements"; } >"$work/pip.log" 2>&1 \
    && cp "$requirements" "$stamp" || { tail -n 30 "$work/pip.log"; fail "installing the tools from PyPI"; finish; }
fi
py="$venv/bin/python"
"$venv/bin/pip" freeze 2>/dev/null | grep -iE '^(schemathesis|twilio|openapi-spec-validator|websockets)==' | tr '\n' ' '; echo

section "a. openapi.yaml"
if "$venv/bin/openapi-spec-validator" openapi.yaml; then pass "openapi.yaml is valid OpenAPI 3.1"; else fail "openapi.yaml is not valid"; fi
if "$py" scripts/rest_conformance/gen_openapi.py "$reference" "$work/openapi.yaml" && cmp -s openapi.yaml "$work/openapi.yaml"; then
  pass "openapi.yaml is what gen_openapi.py makes"
else
  diff -u openapi.yaml "$work/openapi.yaml" | head -n 40
  fail "openapi.yaml differs from gen_openapi.py's output (run it: scripts/rest_conformance/gen_openapi.py $reference openapi.yaml)"
fi

section "server"
base="${1:-}"
base_given="$base"
server_bin="${VROOM_SERVER_BIN:-}"
if [ -z "$server_bin" ]; then
  if ! swift build --product vroom-server >"$work/build.log" 2>&1; then
    grep -E 'error:' "$work/build.log" || tail -n 30 "$work/build.log"
    fail "swift build --product vroom-server"
    finish
  fi
  server_bin="$(swift build --show-bin-path)/vroom-server"
fi
server_bin=$(realpath "$server_bin")
if [ -z "$base" ]; then
  "$server_bin" --dev --http-port 0 --rtc-port 0 --db "$work/v.sqlite" >"$work/server.log" 2>&1 &
  server_pid=$!
  port=""
  for _ in $(seq 300); do
    port=$(grep -oE 'http: listening on 127\.0\.0\.1:[0-9]+' "$work/server.log" | head -n 1 | grep -oE '[0-9]+$')
    [ -n "$port" ] && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
  done
  if [ -z "$port" ]; then
    tail -n 30 "$work/server.log"
    fail "vroom-server did not log 'http: listening on 127.0.0.1:PORT' within 30 s"
    finish
  fi
  base="http://127.0.0.1:$port"
  echo "started $server_bin (pid $server_pid) on $base"
fi
case "$base" in
  http://127.0.0.1:*) ;;
  *) fail "base URL must be http://127.0.0.1:PORT (only loopback is tested), got $base"; finish ;;
esac
base="${base%/}"

section "b. schemathesis against $base"
"$py" scripts/rest_conformance/fuzz_spec.py openapi.yaml "$work/fuzz.yaml" || fail "writing the fuzzed copy of openapi.yaml"
# Live participants and tracks, so that fuzzing reaches past the 404s (seed_participants.py).
st_config="$root/scripts/rest_conformance/schemathesis.toml"
(cd scripts/rest_conformance && exec "$py" seed_participants.py --base-url "$base" --server-bin "$server_bin" \
    --static "$st_config" --out "$work/schemathesis.toml" --api-key "$api_key" --api-secret "$api_secret" ${signal_url:+--signal-url "$signal_url"}) >"$work/seed.log" 2>&1 &
seed_pid=$!
for _ in $(seq 300); do
  grep -q '^seeded' "$work/seed.log" && break
  kill -0 "$seed_pid" 2>/dev/null || break
  sleep 0.1
done
if grep -q '^seeded' "$work/seed.log"; then
  pass "$(grep '^seeded' "$work/seed.log")"
  st_config="$work/schemathesis.toml"
else
  cat "$work/seed.log"
  fail "seed_participants.py: no live participants for fuzzing (fuzzing the routes with random identifiers only)"
fi
# Bounded: $max_examples cases per operation, 10 s per request, 10 minutes in all.
# Run from $work: schemathesis keeps a .schemathesis/ cache in its working directory.
if (cd "$work" && timeout 600 "$venv/bin/st" --config-file "$st_config" run "$work/fuzz.yaml" --url "$base" --auth "$api_key:$api_secret" \
    --checks "$checks" --max-examples "$max_examples" --workers 1 --seed 20261121 \
    --request-timeout 10 --max-failures 200 --no-color \
    --report junit --report-junit-path "$work/schemathesis.xml") 2>&1 | tee "$work/schemathesis.log" | tail -n 80; then
  pass "schemathesis ($checks)"
else
  fail "schemathesis found failures (full log: $logs/schemathesis.log)"
fi
stop_pid "$seed_pid"
seed_pid=""

section "c+d. Twilio's Python helper library against $base"
(cd scripts/rest_conformance && "$py" twilio_client_test.py --base-url "$base" --server-bin "$server_bin" \
    --twilio-schema "$reference" --api-key "$api_key" --api-secret "$api_secret" ${signal_url:+--signal-url "$signal_url"} --dump "$work/exchanges.json") | tee "$work/twilio.log"
# Adds the "twilio-client: P passed, F failed" line of log $1 to the totals;
# a log without one is a failure named $2.
count_twilio_results() {
  local line
  line=$(grep -E '^twilio-client: [0-9]+ passed, [0-9]+ failed$' "$1" | tail -n 1)
  if [ -n "$line" ]; then
    passed=$((passed + $(echo "$line" | sed -E 's/^twilio-client: ([0-9]+) passed, ([0-9]+) failed$/\1/')))
    failed=$((failed + $(echo "$line" | sed -E 's/^twilio-client: ([0-9]+) passed, ([0-9]+) failed$/\2/')))
  else
    fail "$2 did not finish"
  fi
}
count_twilio_results "$work/twilio.log" "twilio_client_test.py"

if [ -n "$server_pid" ]; then
  section "server log (last lines)"
  tail -n 15 "$work/server.log"
fi

section "e. Twilio's Python helper library against a 2-node cluster, through the node that does not own the rooms"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
if [ -n "$base_given" ]; then
  echo "skipped: a BASE_URL was given"
elif [ -z "$pg_bin" ]; then
  fail "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin): run scripts/bootstrap.sh"
else
  pg_dir=$(mktemp -d)
  [ "$(id -u)" = 0 ] && chown postgres:postgres "$pg_dir"
  pg_port=$(free_port)
  if as_postgres "$pg_bin/initdb" -D "$pg_dir/data" -U vroom --auth=trust --no-sync -E UTF8 --locale=C >"$work/pg-init.log" 2>&1 \
    && as_postgres "$pg_bin/pg_ctl" -D "$pg_dir/data" -l "$pg_dir/postgres.log" -w -t 60 \
        -o "-p $pg_port -k $pg_dir -c listen_addresses=127.0.0.1 -c fsync=off" start >>"$work/pg-init.log" 2>&1 \
    && "$pg_bin/createdb" -h 127.0.0.1 -p "$pg_port" -U vroom vroom >>"$work/pg-init.log" 2>&1; then
    db="postgres://vroom@127.0.0.1:$pg_port/vroom?sslmode=disable"
    node_ports=""
    for n in a b; do
      p=$(free_port)
      "$server_bin" --dev --http-port "$p" --rtc-port 0 --rtc-workers 1 --db "$db" --node-url "http://127.0.0.1:$p" \
        >"$work/node-$n.log" 2>&1 &
      cluster_pids="$cluster_pids $!"
      for _ in $(seq 300); do grep -q 'http: listening on' "$work/node-$n.log" && break; sleep 0.1; done
      grep -q 'http: listening on' "$work/node-$n.log" || { tail -n 20 "$work/node-$n.log"; fail "cluster node $n did not start"; finish; }
      node_ports="$node_ports $p"
    done
    set -- $node_ports
    echo "PostgreSQL on $pg_port; rooms owned by node a (:$1), the library at node b (:$2)"
    (cd scripts/rest_conformance && "$py" twilio_client_test.py --base-url "http://127.0.0.1:$2" --owner-url "http://127.0.0.1:$1" \
        --server-bin "$server_bin" --twilio-schema "$reference" --api-key "$api_key" --api-secret "$api_secret" \
        --dump "$work/cluster-exchanges.json") | tee "$work/twilio-cluster.log"
    count_twilio_results "$work/twilio-cluster.log" "twilio_client_test.py against the cluster"
  else
    tail -n 20 "$work/pg-init.log"
    fail "starting PostgreSQL for the cluster"
  fi
fi
finish
