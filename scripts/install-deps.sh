#!/usr/bin/env bash
# Installs what FenceLock's tests need on a Debian machine (run as root): etcd for the lock
# tests, PostgreSQL and MariaDB for the fencing tests, Redis for the benchmark comparison, Maven
# and curl for the build and scripts. Safe to run again:
# it only calls apt-get when something is missing.
set -euo pipefail

missing=()
command -v etcd >/dev/null 2>&1 || missing+=(etcd-server)
command -v mvn >/dev/null 2>&1 || missing+=(maven)
command -v curl >/dev/null 2>&1 || missing+=(curl)
# The demo puts instance A behind socat so that it can be partitioned from etcd.
command -v socat >/dev/null 2>&1 || missing+=(socat)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
[ -x /usr/lib/postgresql/15/bin/postgres ] || ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || missing+=(postgresql)
command -v mariadbd >/dev/null 2>&1 || command -v mysqld >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ] || missing+=(mariadb-server)

if [ ${#missing[@]} -gt 0 ]; then
  echo "Installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}" >/dev/null
fi

etcd --version | sed -n 1p
mvn -v | sed -n 1p
