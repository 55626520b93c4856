#!/usr/bin/env bash
# Installs what FenceLock's tests need on a Debian machine (run as root): etcd for the lock
# tests, PostgreSQL and MariaDB for the fencing tests, Redis for the Redis backend and the benchmark
# comparison, ZooKeeper (the server jar; its tests start their own servers) for the ZooKeeper backend,
# Prometheus (prometheus and promtool) for the alert-rule tests and the demo's dashboard check,
# Maven, curl and jq for the build and scripts. Safe to run again: it only calls apt-get when
# something is missing, and never starts Prometheus as a service (the demo and the tests start
# their own, on loopback, and stop it by PID).
set -euo pipefail

missing=()
command -v etcd >/dev/null 2>&1 || missing+=(etcd-server)
command -v mvn >/dev/null 2>&1 || missing+=(maven)
command -v curl >/dev/null 2>&1 || missing+=(curl)
command -v jq >/dev/null 2>&1 || missing+=(jq)
# The demo puts instance A behind socat so that it can be partitioned from etcd.
command -v socat >/dev/null 2>&1 || missing+=(socat)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
# The ZooKeeper backend's tests start their own servers from Debian's jar.
[ -r /usr/share/java/zookeeper.jar ] || missing+=(zookeeper)
[ -x /usr/lib/postgresql/15/bin/postgres ] || ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || missing+=(postgresql)
command -v mariadbd >/dev/null 2>&1 || command -v mysqld >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ] || missing+=(mariadb-server)

# Debian's prometheus package holds both binaries. Its recommended extras (node exporter, ...) are
# not needed.
prometheus_missing=""
command -v prometheus >/dev/null 2>&1 && command -v promtool >/dev/null 2>&1 || prometheus_missing=yes

if [ ${#missing[@]} -gt 0 ] || [ -n "$prometheus_missing" ]; then
  echo "Installing: ${missing[*]}${prometheus_missing:+ prometheus}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  if [ ${#missing[@]} -gt 0 ]; then
    apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
  if [ -n "$prometheus_missing" ]; then
    # The package enables a system service; where services may start (systemd), stop it again at
    # once: nothing here uses it, and it would hold port 9090.
    apt-get install -y -qq --no-install-recommends prometheus >/dev/null
    if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
      systemctl disable --now prometheus >/dev/null 2>&1 || true
    fi
  fi
fi

etcd --version | sed -n 1p
mvn -v | sed -n 1p
promtool --version 2>&1 | sed -n 1p
dpkg-query -W -f='zookeeper ${Version}\n' zookeeper
