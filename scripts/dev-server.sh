# Sourced by the scripts that run against a throwaway release server
# (loadtest.sh, churn.sh); not a command of its own.
#
#   release_tools NAME PRODUCT...   sets `bin`: $VROOM_BIN_DIR, or a release
#                                   build of vroom-server and each PRODUCT
#   start_dev_server NAME [FLAGS...]
#       starts "$bin/vroom-server --dev" on kernel-chosen loopback ports with
#       its own SQLite file in a temporary folder (`work`), sets `server_pid`
#       and `port` once it accepts connections, and stops it (and removes
#       `work`, unless VROOM_KEEP_LOGS=1) when the calling script exits.

release_tools() {
  local name=$1
  shift
  if [[ -n "${VROOM_BIN_DIR:-}" ]]; then
    bin=$VROOM_BIN_DIR
  else
    echo "$name: building vroom-server and $* (release)..." >&2
    swift build -c release --product vroom-server >&2
    for product in "$@"; do swift build -c release --product "$product" >&2; done
    bin=$(swift build -c release --show-bin-path)
  fi
  for tool in vroom-server "$@"; do
    [[ -x "$bin/$tool" ]] || { echo "$name: no $bin/$tool" >&2; exit 2; }
  done
}

start_dev_server() {
  dev_server_name=$1
  shift
  work=${work:-$(mktemp -d -t "vroom-$dev_server_name.XXXXXX")}
  "$bin/vroom-server" --dev --http-port 0 --rtc-port 0 --db "$work/vroom.sqlite" "$@" \
    2> "$work/server.log" > /dev/null &
  server_pid=$!
  trap stop_dev_server EXIT

  # The server logs "http: listening on 127.0.0.1:PORT" once it accepts
  # connections (as VroomTesting.ServerProcess reads it).
  port=
  for _ in $(seq 300); do
    port=$(sed -nE 's/.*http: listening on 127\.0\.0\.1:([0-9]+).*/\1/p' "$work/server.log" | head -n 1)
    [[ -n "$port" ]] && break
    kill -0 "$server_pid" 2> /dev/null || break
    sleep 0.1
  done
  if [[ -z "$port" ]]; then
    echo "$dev_server_name: vroom-server did not start; its log:" >&2
    cat "$work/server.log" >&2
    exit 2
  fi
}

stop_dev_server() {
  if kill -0 "$server_pid" 2> /dev/null; then
    # A second SIGTERM ends the server's wait for participants still connected.
    kill -TERM "$server_pid" 2> /dev/null || true
    for _ in $(seq 10); do kill -0 "$server_pid" 2> /dev/null || break; sleep 0.1; done
    kill -TERM "$server_pid" 2> /dev/null || true
    for _ in $(seq 50); do kill -0 "$server_pid" 2> /dev/null || break; sleep 0.1; done
    kill -KILL "$server_pid" 2> /dev/null || true
  fi
  wait "$server_pid" 2> /dev/null || true
  if [[ "${VROOM_KEEP_LOGS:-0}" == 1 ]]; then
    echo "$dev_server_name: server log kept in $work/server.log" >&2
  else
    rm -rf "$work"
  fi
}
