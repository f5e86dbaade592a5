#!/usr/bin/env bash
# Shapes UDP traffic to one port on loopback with the kernel's htb, as a real
# bottleneck for adaptive-video and BWE tests (this kernel has htb but no
# netem: INTEROP.md, "Shaping a link"). Shared by the Swift tests
# (VroomTesting's LinkShaper) and the interop scripts (scripts/interop/
# shaping.py).
#
#   scripts/shape.sh add <udp-port> <kbit> [queue-packets]   shape datagrams TO that port
#   scripts/shape.sh change <udp-port> <kbit>                 a new rate, mid-test
#   scripts/shape.sh clear                                     remove every shaping (the root qdisc)
#   scripts/shape.sh show                                      the qdiscs, classes and filters
#
# A client's downlink is the server's datagrams to the client's port, so
# shape the client's port. Each port gets an htb class 1:<port in hex>
# (its bucket holds 10 ms at the rate, at least one 1,600-byte packet:
# a bigger one, 15 kB as first chosen, let a 9 kB bandwidth probe through
# at loopback speed and read to the server's estimator as a link several
# times faster than the rate) with a pfifo of queue-packets (default 30) behind it and a
# u32 filter on the destination port; everything else goes to 1:10 at
# 10 Gbit/s, untouched.
#
# Refuses to run in a network namespace with any interface besides lo (the
# machine's own has eth0 and more; a fresh `unshare --net` has only lo):
# run it inside one the test created, e.g.
#   unshare --net bash -c 'ip link set lo up && scripts/shape.sh add 5004 500 && ...'
# VROOM_SHAPE_ANY_NAMESPACE=1 lifts the guard (on a machine of your own).
set -euo pipefail

usage() { sed -n '9,12p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
die() { echo "shape.sh: $*" >&2; exit 1; }

[ $# -ge 1 ] || usage
command -v tc >/dev/null || die "tc not found (install iproute2: scripts/bootstrap.sh)"
if [ -z "${VROOM_SHAPE_ANY_NAMESPACE:-}" ]; then
  others=$(ip -o link show | awk -F': ' '$2 != "lo" { print $2 }' | tr '\n' ' ')
  [ -z "$others" ] || die "refusing to shape: this network namespace has interfaces besides lo ($others); run inside 'unshare --net' (or set VROOM_SHAPE_ANY_NAMESPACE=1)"
fi

# Whether the htb root is there. tc's output is read whole first: with
# pipefail, `tc ... | grep -q` fails whenever grep exits at its match before
# tc has written the rest (SIGPIPE), and `add` then tried to add the root
# again ("Exclusivity flag on, cannot modify").
has_root() {
  local qdiscs
  qdiscs=$(tc qdisc show dev lo)
  grep -q '^qdisc htb 1: root' <<<"$qdiscs"
}

port_class() {
  local port=$1
  [[ "$port" =~ ^[0-9]+$ ]] && [ "$port" -ge 1 ] && [ "$port" -le 65534 ] && [ "$port" -ne 16 ] \
    || die "bad UDP port '$port' (1-65534, not 16: class 1:10 is the default)"
  printf '%x' "$port"
}

# The htb bucket for a rate in kbit/s: 10 ms of it, at least 1,600 bytes.
burst_bytes() {
  local bytes=$(( $1 * 1000 / 8 / 100 ))
  [ "$bytes" -ge 1600 ] || bytes=1600
  echo "$bytes"
}

check_rate() {
  [[ "$1" =~ ^[0-9]+$ ]] && [ "$1" -ge 8 ] || die "bad rate '$1' (kbit/s, at least 8)"
}

case "$1" in
  add)
    [ $# -ge 3 ] || usage
    minor=$(port_class "$2"); check_rate "$3"; limit=${4:-30}
    [[ "$limit" =~ ^[0-9]+$ ]] && [ "$limit" -ge 1 ] || die "bad queue length '$limit' (packets)"
    if ! has_root; then
      tc qdisc add dev lo root handle 1: htb default 10 r2q 1000
      tc class add dev lo parent 1: classid 1:10 htb rate 10gbit quantum 60000
    fi
    tc class add dev lo parent 1: classid "1:$minor" htb rate "${3}kbit" burst "$(burst_bytes "$3")" cburst "$(burst_bytes "$3")" quantum 1514
    tc qdisc add dev lo parent "1:$minor" handle "$minor:" pfifo limit "$limit"
    tc filter add dev lo parent 1: protocol ip prio 1 u32 match ip protocol 17 0xff \
      match ip dport "$2" 0xffff flowid "1:$minor"
    ;;
  change)
    [ $# -ge 3 ] || usage
    minor=$(port_class "$2"); check_rate "$3"
    tc class change dev lo parent 1: classid "1:$minor" htb rate "${3}kbit" burst "$(burst_bytes "$3")" cburst "$(burst_bytes "$3")" quantum 1514
    ;;
  clear)
    if has_root; then tc qdisc del dev lo root; fi
    ;;
  show)
    tc -s qdisc show dev lo; tc class show dev lo; tc filter show dev lo
    ;;
  *) usage ;;
esac
