#!/usr/bin/env bash
# Starts or stops a local three-member etcd cluster on loopback, for the demo and for trying
# FenceLock by hand. Data lives under a temporary directory; members are stopped by PID.
#
#   scripts/etcd-cluster.sh start [DIR]   prints the client endpoints (comma separated)
#   scripts/etcd-cluster.sh stop  [DIR]
#
# DIR (default ${TMPDIR:-/tmp}/fencelock-etcd) holds the members' data, logs and PIDs; give each
# cluster its own DIR to run several at once, and stop it with the same DIR.
# Environment:
#   FENCELOCK_ETCD_BASE_PORT  first port (default 23790). Member i listens for clients on
#                             BASE + 2i and for peers on BASE + 2i + 1: 23790-23795 by default.
#   FENCELOCK_ETCD_BINARY     the etcd binary (default: etcd on the PATH, else /usr/bin/etcd)
set -euo pipefail

action=${1:-}
dir=${2:-${TMPDIR:-/tmp}/fencelock-etcd}
etcd_bin=${FENCELOCK_ETCD_BINARY:-$(command -v etcd || echo /usr/bin/etcd)}
base_port=${FENCELOCK_ETCD_BASE_PORT:-23790}

member_ports() { # index -> "client peer"
  echo "$((base_port + $1 * 2)) $((base_port + $1 * 2 + 1))"
}

start() {
  if [ ! -x "$etcd_bin" ]; then
    echo "etcd not found; install it with: apt-get install -y etcd-server" >&2
    exit 1
  fi
  mkdir -p "$dir"
  local cluster="" endpoints=""
  for i in 0 1 2; do
    read -r client peer < <(member_ports "$i")
    cluster+="m$i=http://127.0.0.1:$peer,"
    endpoints+="http://127.0.0.1:$client,"
  done
  cluster=${cluster%,}
  endpoints=${endpoints%,}
  for i in 0 1 2; do
    read -r client peer < <(member_ports "$i")
    if [ -f "$dir/m$i.pid" ] && kill -0 "$(cat "$dir/m$i.pid")" 2>/dev/null; then
      continue
    fi
    env -u ETCD_NAME "$etcd_bin" --name "m$i" --data-dir "$dir/m$i" \
      --listen-client-urls "http://127.0.0.1:$client" --advertise-client-urls "http://127.0.0.1:$client" \
      --listen-peer-urls "http://127.0.0.1:$peer" --initial-advertise-peer-urls "http://127.0.0.1:$peer" \
      --initial-cluster "$cluster" --initial-cluster-state new --initial-cluster-token fencelock-demo \
      >"$dir/m$i.log" 2>&1 &
    echo $! >"$dir/m$i.pid"
  done
  for i in 0 1 2; do
    read -r client peer < <(member_ports "$i")
    for _ in $(seq 1 100); do
      if curl -fsS "http://127.0.0.1:$client/health" 2>/dev/null | grep -q '"health":"true"'; then
        break
      fi
      sleep 0.2
    done
    curl -fsS "http://127.0.0.1:$client/health" 2>/dev/null | grep -q '"health":"true"' \
      || { echo "etcd member m$i did not become healthy; see $dir/m$i.log" >&2; exit 1; }
  done
  echo "$endpoints"
}

stop() {
  for i in 0 1 2; do
    if [ -f "$dir/m$i.pid" ]; then
      local pid
      pid=$(cat "$dir/m$i.pid")
      kill -CONT "$pid" 2>/dev/null || true
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -9 "$pid" 2>/dev/null || true
      rm -f "$dir/m$i.pid"
    fi
  done
  rm -rf "$dir"
}

case "$action" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop [DIR]" >&2; exit 2 ;;
esac
