#!/usr/bin/env bash
# Starts the local PostgreSQL 15 and MariaDB servers the JDBC fencing tests run against, on
# 127.0.0.1 only, with user/password/database "fencelock" in both.
#
# Run as root on Debian 12 after `apt-get install -y postgresql mariadb-server`. Safe to run
# again: servers already running are left alone, and the user/database are created only when
# missing (the password is reset to "fencelock" each time).
#
# The tests read FENCELOCK_PG_URL (default jdbc:postgresql://127.0.0.1:5432/fencelock) and
# FENCELOCK_MARIADB_URL (default jdbc:mariadb://127.0.0.1:3306/fencelock).
set -euo pipefail

PG_VERSION="${PG_VERSION:-15}"
PG_CLUSTER="${PG_CLUSTER:-main}"
DB_NAME=fencelock
DB_USER=fencelock
DB_PASSWORD=fencelock
WAIT_SECONDS="${WAIT_SECONDS:-30}"

log() { printf '[start-databases] %s\n' "$*"; }
fail() { printf '[start-databases] ERROR: %s\n' "$*" >&2; exit 1; }

[[ "$(id -u)" -eq 0 ]] || fail "run as root (it starts system services and uses peer/socket auth as root/postgres)"

# Polls "$@" once a second until it succeeds or WAIT_SECONDS pass.
wait_for() {
    local what="$1"; shift
    local deadline=$((SECONDS + WAIT_SECONDS))
    until "$@" >/dev/null 2>&1; do
        (( SECONDS < deadline )) || fail "$what did not accept connections within ${WAIT_SECONDS}s"
        sleep 1
    done
    log "$what accepts connections"
}

start_postgresql() {
    command -v pg_ctlcluster >/dev/null || fail "PostgreSQL not installed: apt-get install -y postgresql"
    # Loopback only, through a drop-in in Debian's conf.d (postgresql.conf stays untouched);
    # the file is rewritten only when its content differs, so a second run changes nothing.
    local dropin="/etc/postgresql/$PG_VERSION/$PG_CLUSTER/conf.d/fencelock-listen.conf"
    local wanted="listen_addresses = '127.0.0.1'"
    [[ -d "$(dirname "$dropin")" ]] || fail "no PostgreSQL cluster $PG_VERSION/$PG_CLUSTER (see pg_lsclusters)"
    if [[ "$(cat "$dropin" 2>/dev/null || true)" != "$wanted" ]]; then
        printf '%s\n' "$wanted" >"$dropin"
        log "PostgreSQL $PG_VERSION/$PG_CLUSTER: wrote $dropin ($wanted)"
        if pg_ctlcluster "$PG_VERSION" "$PG_CLUSTER" status >/dev/null 2>&1; then
            pg_ctlcluster "$PG_VERSION" "$PG_CLUSTER" restart
            log "PostgreSQL $PG_VERSION/$PG_CLUSTER: restarted to apply listen_addresses"
        fi
    fi
    if pg_ctlcluster "$PG_VERSION" "$PG_CLUSTER" status >/dev/null 2>&1; then
        log "PostgreSQL $PG_VERSION/$PG_CLUSTER: already running"
    else
        pg_ctlcluster "$PG_VERSION" "$PG_CLUSTER" start
        log "PostgreSQL $PG_VERSION/$PG_CLUSTER: started"
    fi
    wait_for "PostgreSQL (socket)" runuser -u postgres -- psql -XAtqc 'SELECT 1'

    local psql=(runuser -u postgres -- psql -XAtq -v ON_ERROR_STOP=1)
    if [[ "$("${psql[@]}" -c "SELECT 1 FROM pg_roles WHERE rolname = '$DB_USER'")" == 1 ]]; then
        "${psql[@]}" -c "ALTER ROLE $DB_USER WITH LOGIN PASSWORD '$DB_PASSWORD'"
        log "PostgreSQL: role $DB_USER exists (password reset)"
    else
        "${psql[@]}" -c "CREATE ROLE $DB_USER WITH LOGIN PASSWORD '$DB_PASSWORD'"
        log "PostgreSQL: role $DB_USER created"
    fi
    if [[ "$("${psql[@]}" -c "SELECT 1 FROM pg_database WHERE datname = '$DB_NAME'")" == 1 ]]; then
        log "PostgreSQL: database $DB_NAME exists"
    else
        "${psql[@]}" -c "CREATE DATABASE $DB_NAME OWNER $DB_USER"
        log "PostgreSQL: database $DB_NAME created"
    fi
    wait_for "PostgreSQL (127.0.0.1:5432 as $DB_USER)" \
        env PGPASSWORD="$DB_PASSWORD" psql -XAtq -h 127.0.0.1 -p 5432 -U "$DB_USER" -d "$DB_NAME" -c 'SELECT 1'
}

mariadb_ping() { mariadb-admin --protocol=socket -uroot ping; }

start_mariadb() {
    command -v mariadbd >/dev/null || fail "MariaDB not installed: apt-get install -y mariadb-server"
    # Debian's 50-server.cnf binds 127.0.0.1; refuse to go on if someone widened it.
    local bind
    bind="$(my_print_defaults --mysqld | sed -n 's/^--bind[-_]address=//p' | tail -n 1)"
    [[ "$bind" == "127.0.0.1" ]] || fail "MariaDB bind-address is '${bind:-unset}', expected 127.0.0.1 (see /etc/mysql/mariadb.conf.d/50-server.cnf)"
    if mariadb_ping >/dev/null 2>&1; then
        log "MariaDB: already running"
    else
        service mariadb start >/dev/null || fail "service mariadb start failed; see /var/log/mysql or journal"
        log "MariaDB: started (bind-address $bind)"
    fi
    wait_for "MariaDB (socket)" mariadb_ping

    # root authenticates through the unix socket (Debian default), so no password is needed here.
    mariadb --protocol=socket -uroot <<SQL
CREATE DATABASE IF NOT EXISTS \`$DB_NAME\`;
CREATE USER IF NOT EXISTS '$DB_USER'@'127.0.0.1' IDENTIFIED BY '$DB_PASSWORD';
CREATE USER IF NOT EXISTS '$DB_USER'@'localhost' IDENTIFIED BY '$DB_PASSWORD';
ALTER USER '$DB_USER'@'127.0.0.1' IDENTIFIED BY '$DB_PASSWORD';
ALTER USER '$DB_USER'@'localhost' IDENTIFIED BY '$DB_PASSWORD';
GRANT ALL PRIVILEGES ON \`$DB_NAME\`.* TO '$DB_USER'@'127.0.0.1';
GRANT ALL PRIVILEGES ON \`$DB_NAME\`.* TO '$DB_USER'@'localhost';
SQL
    log "MariaDB: database $DB_NAME and user $DB_USER@127.0.0.1/localhost ensured"
    wait_for "MariaDB (127.0.0.1:3306 as $DB_USER)" \
        mariadb --protocol=tcp -h 127.0.0.1 -P 3306 -u"$DB_USER" -p"$DB_PASSWORD" "$DB_NAME" -e 'SELECT 1'
}

start_postgresql
start_mariadb
log "done: jdbc:postgresql://127.0.0.1:5432/$DB_NAME and jdbc:mariadb://127.0.0.1:3306/$DB_NAME (user/password $DB_USER/$DB_PASSWORD)"
