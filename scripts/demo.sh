#!/usr/bin/env bash
# FenceLock end to end: two instances of the sample inventory service share one PostgreSQL
# database and a three-member etcd cluster. The demo drives concurrent reservations across both,
# then freezes instance A (SIGSTOP) while it is inside a reservation, lets its lease expire, has B
# take over, wakes A, and checks that A's late write is refused; then cuts A off from etcd (not from
# the database) while A is inside a reservation and has an operator force-release A's lock, so
# that A cannot know and only the database can refuse A's write; then keeps A cut off for longer
# than its wait timeout, so that its acquisitions fail as the lock store's unavailability; then has
# psql, with no FenceLock, write the protected stock table without a fence and with A's stale token,
# which the table's trigger refuses. It checks that no unit was sold twice, and reports which layer
# refused each stale write.
#
# Meanwhile a real Prometheus scrapes both instances every second while background load runs on a
# second SKU, and every query of every panel of docs/grafana-dashboard.json is evaluated through
# Prometheus's HTTP API: under load before the faults, and again after them (the panels of losses,
# rejections and unavailability only have data once those happened). A query that does not parse
# or returns no series fails the demo.
#
#   bash scripts/demo.sh        (as root on Debian, with a JDK 17+; installs what is missing)
#
# Exits non-zero when an invariant or a dashboard query fails. Everything it starts (etcd members,
# the two JVMs, A's socat links to etcd, Prometheus, the load loops) is stopped by PID on exit, also
# on Ctrl-C; the databases are system services and keep running.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$(pwd)
# shellcheck source=scripts/prometheus.sh
source "$ROOT/scripts/prometheus.sh"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/fencelock-demo.XXXXXX")
PORT_A=${DEMO_PORT_A:-18081}
PORT_B=${DEMO_PORT_B:-18082}
# Prometheus listens on the first free loopback port from here (below 32768).
PROMETHEUS_PORT_FROM=${DEMO_PROMETHEUS_PORT:-19090}
# Long enough that a keep-alive answered a second late on a busy machine loses no lock: a lost lock
# here should only ever be one the demo caused.
LEASE_TTL_SECONDS=10
HOLD_MILLIS=6000
# Zombie 2 is frozen inside this hold, so that it writes after B whatever the machine's speed, and is
# woken while its lease is still within its local deadline (TTL minus a tenth, counted from the last
# keep-alive sent, at most TTL/3 before it took the lock: at least 5.6 s after): it must not know it
# lost the lock. The hold only has to outlast the demo's reaction to A's token.
PARTITIONED_HOLD_MILLIS=3000
LINK_PORT_BASE=${DEMO_LINK_PORT_BASE:-18391}
REQUESTS=40
INITIAL_STOCK=100
SKU="demo-$(date +%s)"
RESOURCE="stock:$SKU"
# The background load reserves this SKU from both instances, one loop each, at most LOAD_REQUESTS
# reservations per loop, until the demo stops it.
LOAD_SKU="demo-load-$(date +%s)"
LOAD_STOCK=100000
LOAD_REQUESTS=5000
# Every run starts a new etcd cluster, whose revisions (the tokens) start afresh, while PostgreSQL keeps
# the fence rows of earlier runs: like any two clusters sharing a fence table, each run gets its own scope.
FENCE_SCOPE="demo-cluster-$(date +%s)"
JAR="$ROOT/sample-app/target/sample-app-0.1.0-SNAPSHOT.jar"
export PGPASSWORD=fencelock
PSQL=(psql -h 127.0.0.1 -U fencelock -d fencelock -v ON_ERROR_STOP=1 -tAq)

PID_A=""
PID_B=""
LOAD_PIDS=""
LINK_PIDS=""
ETCD_STARTED=""
FAILURES=0

log() { printf '\n== %s\n' "$*"; }
fail() { printf 'FAILED: %s\n' "$*" >&2; FAILURES=$((FAILURES + 1)); }

cleanup() {
  local code=$?
  trap - EXIT INT TERM
  touch "$WORK/load.stop" 2>/dev/null || true
  # A loop's curl is its child: stop it too, by its parent's PID.
  for pid in $LOAD_PIDS; do pkill -P "$pid" 2>/dev/null || true; kill "$pid" 2>/dev/null || true; done
  prometheus_stop
  for pid in $PID_A $PID_B; do
    # A paused process ignores SIGTERM until it runs again.
    kill -CONT "$pid" 2>/dev/null || true
    kill "$pid" 2>/dev/null || true
  done
  for pid in $PID_A $PID_B; do
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -9 "$pid" 2>/dev/null || true
  done
  for pid in $LINK_PIDS; do
    # Each link runs in its own process group (setsid): the listener and the connections it forked.
    kill -CONT -- "-$pid" 2>/dev/null || true
    kill -- "-$pid" 2>/dev/null || true
  done
  if [ -n "$ETCD_STARTED" ]; then
    bash "$ROOT/scripts/etcd-cluster.sh" stop "$WORK/etcd" >/dev/null 2>&1 || true
  fi
  if [ "$code" -ne 0 ]; then
    echo "Logs kept in $WORK (instance-a.log, instance-b.log, etcd/, prometheus/)" >&2
  else
    rm -rf "$WORK"
  fi
  exit "$code"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Extracts a top-level scalar field from a flat JSON object on stdin (no jq on a fresh machine).
# One value per input line; callers pass one object.
json() { sed -n "s/.*\"$1\":\"\{0,1\}\([^,\"}]*\).*/\1/p"; }

# POSTs a reservation; writes "<status> <body>" to stdout.
reserve() { # port quantity holdMillis
  curl -s -o - -w '\n%{http_code}\n' -X POST -H 'Content-Type: application/json' \
    -d "{\"quantity\": $2, \"holdMillis\": $3}" "http://127.0.0.1:$1/api/stock/$SKU/reservations" \
    | { read -r body || true; read -r status || true; echo "$status $body"; }
}

# Reserves 1 unit of LOAD_SKU on one instance, over and over, until load.stop exists (at most
# LOAD_REQUESTS times, not counting the pauses while load.pause exists); appends each answer's status
# to load-<name>.status ("000": no answer).
load_loop() { # port name
  local status
  for _ in $(seq 1 "$LOAD_REQUESTS"); do
    while [ -e "$WORK/load.pause" ] && [ ! -e "$WORK/load.stop" ]; do sleep 0.2; done
    [ -e "$WORK/load.stop" ] && break
    status=$(curl -s -o /dev/null -w '%{http_code}' -m 90 -X POST -H 'Content-Type: application/json' \
      -d '{"quantity": 1, "holdMillis": 0}' "http://127.0.0.1:$1/api/stock/$LOAD_SKU/reservations" || true)
    echo "${status:-000}" >>"$WORK/load-$2.status"
    sleep 0.05
  done
}

fence_token() {
  # A scoped fence row is keyed <scope>, U+001F, <resource>.
  "${PSQL[@]}" -c "SELECT token FROM fencelock_fence WHERE resource = '$FENCE_SCOPE' || chr(31) || '$RESOURCE'"
}

# Prints the fence row's token once it is larger than $1 (bounded, 5 s): A has read the stock under
# its lock once its read transaction committed A's token to the fence row. Prints nothing on time-out.
await_token_after() { # token
  local current
  for _ in $(seq 1 100); do
    current=$(fence_token)
    if [ -n "$current" ] && [ "$current" -gt "$1" ]; then echo "$current"; return; fi
    sleep 0.05
  done
}

await_health() { # port name
  for _ in $(seq 1 120); do
    if curl -fs "http://127.0.0.1:$1/actuator/health" 2>/dev/null | grep -q '"status":"UP"'; then
      return 0
    fi
    sleep 0.5
  done
  echo "instance $2 did not become healthy; see $WORK/instance-$2.log" >&2
  tail -n 30 "$WORK/instance-$2.log" >&2
  exit 1
}

# Starts one socat link per etcd member on loopback and sets LINKS to the endpoints to use instead
# (not called in a subshell: it records the links' PIDs for partition_a and cleanup). Each link is a
# process group of its own, so stopping it (SIGSTOP) freezes every connection it carries: a
# partition that produces no errors, only silence, while the database stays reachable.
start_links() {
  local port=$LINK_PORT_BASE target
  LINKS=""
  for target in ${ENDPOINTS//,/ }; do
    setsid socat "TCP-LISTEN:$port,bind=127.0.0.1,reuseaddr,fork" "TCP:${target#http://}" \
      >>"$WORK/links.log" 2>&1 &
    LINK_PIDS="$LINK_PIDS $!"
    LINKS="${LINKS:+$LINKS,}http://127.0.0.1:$port"
    port=$((port + 1))
  done
}

partition_a() {
  [ -n "$LINK_PIDS" ] || { fail "no links to cut A off with"; exit 1; }
  for pid in $LINK_PIDS; do kill -STOP -- "-$pid"; done
}
heal_a() { for pid in $LINK_PIDS; do kill -CONT -- "-$pid" 2>/dev/null || true; done; }

start_instance() { # name port endpoints extra-args...
  local name=$1 port=$2 endpoints=$3
  shift 3
  # C1 only: the JVMs start faster, which matters more here than peak throughput.
  java -Xmx256m -XX:TieredStopAtLevel=1 -jar "$JAR" --server.port="$port" \
    --spring.datasource.url=jdbc:postgresql://127.0.0.1:5432/fencelock \
    --spring.datasource.username=fencelock --spring.datasource.password=fencelock \
    --fencelock.etcd.endpoints="$endpoints" --fencelock.lease-ttl="${LEASE_TTL_SECONDS}s" \
    --fencelock.fencing.scope="$FENCE_SCOPE" \
    --inventory.lock-wait-timeout=30s "$@" >"$WORK/instance-$name.log" 2>&1 &
  echo $!
}

log "Installing missing dependencies"
bash scripts/install-deps.sh

log "Building the sample app"
# Tests and formatting are checked by the test command; the demo only needs the jar.
mvn -B -ntp -q -Dmaven.test.skip=true -Dspotless.check.skip=true package -pl sample-app -am

log "Starting a three-member etcd cluster and PostgreSQL"
ETCD_STARTED=yes
ENDPOINTS=$(bash scripts/etcd-cluster.sh start "$WORK/etcd")
echo "etcd: $ENDPOINTS"
bash scripts/start-databases.sh

log "Starting instances A (:$PORT_A, through links it can be cut off by) and B (:$PORT_B), lease TTL ${LEASE_TTL_SECONDS}s"
start_links
echo "A reaches etcd through $LINKS (socat pids$LINK_PIDS)"
PID_A=$(start_instance a "$PORT_A" "$LINKS")
# Only A creates the tables: two concurrent CREATE TABLE IF NOT EXISTS can collide in PostgreSQL.
# Force-release is off by default (the endpoint is read-only); the operator uses B's, so only B permits it.
PID_B=$(start_instance b "$PORT_B" "$ENDPOINTS" --spring.sql.init.mode=never \
  --management.endpoint.fencelock.access=unrestricted)
echo "A pid $PID_A, B pid $PID_B"
await_health "$PORT_A" a
await_health "$PORT_B" b

log "Starting Prometheus (scrapes both instances every second)"
prometheus_start "$WORK/prometheus" "$PROMETHEUS_PORT_FROM" "127.0.0.1:$PORT_A" "127.0.0.1:$PORT_B" \
  -- "$ROOT/docs/prometheus-alerts.yml"
echo "Prometheus $PROMETHEUS_URL (pid $PROMETHEUS_PID)"
prometheus_await_targets 2

log "Stock of $SKU set to $INITIAL_STOCK"
curl -fsS -X PUT -H 'Content-Type: application/json' -d "{\"quantity\": $INITIAL_STOCK}" \
  "http://127.0.0.1:$PORT_A/api/stock/$SKU"
echo

log "$REQUESTS concurrent reservations of 1 unit, alternating A and B"
mkdir -p "$WORK/concurrent"
RESERVATIONS=""
for i in $(seq 1 "$REQUESTS"); do
  port=$PORT_A
  [ $((i % 2)) -eq 0 ] && port=$PORT_B
  reserve "$port" 1 0 >"$WORK/concurrent/$i" &
  RESERVATIONS="$RESERVATIONS $!"
done
# Only these: a bare wait would wait for the socat links too, which run until cleanup.
wait $RESERVATIONS
CONCURRENT_OK=$(cat "$WORK"/concurrent/* | grep -c '^200 ' || true)
CONCURRENT_OTHER=$(cat "$WORK"/concurrent/* | grep -vc '^200 ' || true)
TOKENS=$(cat "$WORK"/concurrent/* | grep '^200 ' | json fencingToken | sort -n)
DISTINCT_TOKENS=$(echo "$TOKENS" | sort -un | grep -c . || true)
echo "accepted: $CONCURRENT_OK, other outcomes: $CONCURRENT_OTHER, distinct fencing tokens: $DISTINCT_TOKENS"
[ "$CONCURRENT_OTHER" -eq 0 ] || { fail "some concurrent reservations were not accepted:"; grep -hv '^200 ' "$WORK"/concurrent/* >&2; }
[ "$DISTINCT_TOKENS" -eq "$CONCURRENT_OK" ] || fail "two accepted reservations share a fencing token"

log "Background load on $LOAD_SKU from both instances; the dashboard's queries under load"
curl -fsS -X PUT -H 'Content-Type: application/json' -d "{\"quantity\": $LOAD_STOCK}" \
  "http://127.0.0.1:$PORT_B/api/stock/$LOAD_SKU" >/dev/null
load_loop "$PORT_A" a &
LOAD_PIDS="$LOAD_PIDS $!"
load_loop "$PORT_B" b &
LOAD_PIDS="$LOAD_PIDS $!"
# Until Prometheus has seen acquisitions on both instances within a rate window (bounded, 60 s).
for _ in $(seq 1 120); do
  seen=$(prometheus_query "count(sum by (instance) (increase(fencelock_acquire_seconds_count{outcome=\"acquired\"}[$DASHBOARD_RATE_INTERVAL])) > 0)" \
    | jq -r '.data.result[0].value[1] // 0' || echo 0)
  [ "$seen" -ge 2 ] && break
  sleep 0.5
done
DASHBOARD_REPORT="$WORK/dashboard-check.txt"
DASHBOARD_FAILED=0
dashboard_check "$ROOT/docs/grafana-dashboard.json" "$DASHBOARD_REPORT" load || DASHBOARD_FAILED=$((DASHBOARD_FAILED + $?))

# The zombie scenes measure who writes first against lease deadlines: the load pauses meanwhile, so
# that its CPU does not decide the order on a small machine. It runs again for the third fault.
touch "$WORK/load.pause"

log "Zombie: A reserves with holdMillis=$HOLD_MILLIS and is frozen inside the critical section"
BEFORE=$(fence_token)
reserve "$PORT_A" 1 "$HOLD_MILLIS" >"$WORK/zombie-a" &
ZOMBIE_JOB=$!
TOKEN_A=$(await_token_after "$BEFORE")
[ -n "$TOKEN_A" ] || { fail "A never took the lock"; exit 1; }
if curl -fs "http://127.0.0.1:$PORT_A/actuator/fencelock" -o "$WORK/held-a.json" 2>/dev/null; then
  echo "A's /actuator/fencelock: $(head -c 300 "$WORK/held-a.json")"
fi
kill -STOP "$PID_A"
echo "A (pid $PID_A) holds $RESOURCE with token $TOKEN_A and is now paused (SIGSTOP)"
sleep $((LEASE_TTL_SECONDS + 2))
echo "waited $((LEASE_TTL_SECONDS + 2))s > lease TTL: A's lease has expired in etcd"

RESULT_B=$(reserve "$PORT_B" 1 0)
STATUS_B=${RESULT_B%% *}
TOKEN_B=$(echo "$RESULT_B" | json fencingToken)
echo "B: $RESULT_B"
[ "$STATUS_B" = 200 ] || fail "B's reservation was not accepted while A was paused"

kill -CONT "$PID_A"
echo "A resumed (SIGCONT); waiting for its pending reservation"
wait "$ZOMBIE_JOB" || true
RESULT_A=$(cat "$WORK/zombie-a")
STATUS_A=${RESULT_A%% *}
TYPE_A=$(echo "$RESULT_A" | json type)
REFUSED_BY=$(echo "$RESULT_A" | json refusedBy)
REFUSED_AT=$(echo "$RESULT_A" | json refusedAt)
echo "A: $RESULT_A"
[ "$STATUS_A" = 409 ] || fail "A's stale reservation was not refused with 409"
[ -n "$TOKEN_B" ] && [ "$TOKEN_B" -gt "$TOKEN_A" ] || fail "B's token $TOKEN_B is not larger than A's $TOKEN_A"

log "Zombie 2: A is cut off from etcd inside a reservation, and an operator takes its lock"
# A's database connection works; only etcd is out of reach. Connected, A would learn of the
# force-release within one watch event and stop; cut off, it cannot, and its lease is still within
# its deadline, so only the database can refuse its late write. A is also frozen while the operator
# and B act, so that its write comes after B's however slow the machine is; it wakes well before its
# deadline and writes at once (its hold has passed).
BEFORE=$(fence_token)
reserve "$PORT_A" 1 "$PARTITIONED_HOLD_MILLIS" >"$WORK/zombie2-a" &
ZOMBIE2_JOB=$!
TOKEN_A2=$(await_token_after "$BEFORE")
[ -n "$TOKEN_A2" ] || { fail "A never took the lock for the second zombie"; exit 1; }
partition_a
kill -STOP "$PID_A"
ZOMBIE2_FROZEN_AT=$SECONDS
echo "A holds $RESOURCE with token $TOKEN_A2 and is now cut off from etcd, and frozen"
FORCED=$(curl -sS -X DELETE "http://127.0.0.1:$PORT_B/actuator/fencelock/$RESOURCE")
echo "force-release through B's /actuator/fencelock: $FORCED"
RESULT_B2=$(reserve "$PORT_B" 1 0)
STATUS_B2=${RESULT_B2%% *}
TOKEN_B2=$(echo "$RESULT_B2" | json fencingToken)
echo "B: $RESULT_B2"
[ "$STATUS_B2" = 200 ] || fail "B's reservation after the force-release was not accepted"
kill -CONT "$PID_A"
echo "A resumed (SIGCONT) after $((SECONDS - ZOMBIE2_FROZEN_AT))s, still cut off; waiting for its pending reservation"
wait "$ZOMBIE2_JOB" || true
RESULT_A2=$(cat "$WORK/zombie2-a")
STATUS_A2=${RESULT_A2%% *}
TYPE_A2=$(echo "$RESULT_A2" | json type)
REFUSED_BY2=$(echo "$RESULT_A2" | json refusedBy)
REFUSED_AT2=$(echo "$RESULT_A2" | json refusedAt)
echo "A: $RESULT_A2"
[ "$STATUS_A2" = 409 ] || fail "A's late write after the force-release was not refused with 409"
[ "$REFUSED_BY2" = database ] || fail "A's late write was refused by '$REFUSED_BY2', expected the database"
[ -n "$TOKEN_B2" ] && [ "$TOKEN_B2" -gt "$TOKEN_A2" ] || fail "B's token $TOKEN_B2 is not larger than A's $TOKEN_A2"

rm -f "$WORK/load.pause"

log "Store unavailable: A stays cut off from etcd for longer than its wait timeout"
# A reservation on A cannot reach etcd; it fails once the wait timeout has passed (A's load loop
# fails the same way meanwhile). Then A is reconnected.
RESULT_A3=$(reserve "$PORT_A" 1 0)
STATUS_A3=${RESULT_A3%% *}
TYPE_A3=$(echo "$RESULT_A3" | json type)
echo "A: $RESULT_A3"
[ "$STATUS_A3" != 200 ] || fail "A reserved while cut off from etcd"
heal_a
echo "A reconnected to etcd"

log "The dashboard's queries after the faults, load still running"
# Until A has acquired again after being reconnected (bounded, 60 s), so its panels show it back.
for _ in $(seq 1 120); do
  back=$(prometheus_query "sum(increase(fencelock_acquire_seconds_count{instance=\"127.0.0.1:$PORT_A\", outcome=\"acquired\"}[5s]))" \
    | jq -r '.data.result[0].value[1] // 0' || echo 0)
  awk -v v="$back" 'BEGIN { exit !(v + 0 > 0) }' && break
  sleep 0.5
done
dashboard_check "$ROOT/docs/grafana-dashboard.json" "$DASHBOARD_REPORT" faults || DASHBOARD_FAILED=$((DASHBOARD_FAILED + $?))
cat "$DASHBOARD_REPORT"
[ "$DASHBOARD_FAILED" -eq 0 ] || fail "$DASHBOARD_FAILED dashboard queries failed (above)"

log "Alert rules (docs/prometheus-alerts.yml) in Prometheus"
if NOT_FIRED=$(prometheus_await_alerts FenceLockLockLost FenceLockStaleWriteRefused); then
  echo "fired as expected after the faults: FenceLockLockLost, FenceLockStaleWriteRefused"
else
  fail "alerts that did not fire after the faults: $NOT_FIRED"
fi
RULE_ERRORS=$(prometheus_rule_errors || echo "the rules could not be read")
[ -z "$RULE_ERRORS" ] || fail "rules that do not evaluate: $RULE_ERRORS"
FIRING=$(prometheus_firing_alerts || true)
echo "firing now:"
echo "$FIRING" | sed 's/^/  /'

log "Stopping the background load"
touch "$WORK/load.stop"
wait $LOAD_PIDS || true
LOAD_PIDS=""
LOAD_OK=$(cat "$WORK"/load-*.status | grep -c '^200$' || true)
LOAD_UNANSWERED=$(cat "$WORK"/load-*.status | grep -c '^000$' || true)
LOAD_OTHER=$(cat "$WORK"/load-*.status | grep -vc '^200$' || true)
LOAD_ROWS=$("${PSQL[@]}" -c "SELECT count(*) FROM inventory_reservation WHERE sku = '$LOAD_SKU'")
LOAD_LEFT=$("${PSQL[@]}" -c "SELECT quantity FROM inventory_stock WHERE sku = '$LOAD_SKU'")
echo "load: $LOAD_OK accepted, $LOAD_OTHER refused or failed ($LOAD_UNANSWERED unanswered), $LOAD_ROWS reservation rows, stock $LOAD_LEFT"
# An unanswered request may or may not have committed; every other answer says what happened.
[ "$LOAD_ROWS" -ge "$LOAD_OK" ] && [ "$LOAD_ROWS" -le $((LOAD_OK + LOAD_UNANSWERED)) ] \
  || fail "$LOAD_ROWS reservation rows of $LOAD_SKU, expected $LOAD_OK (+ up to $LOAD_UNANSWERED unanswered)"
[ "$LOAD_LEFT" = $((LOAD_STOCK - LOAD_ROWS)) ] || fail "stock of $LOAD_SKU is $LOAD_LEFT, expected $((LOAD_STOCK - LOAD_ROWS))"

log "A script with no FenceLock writes the protected stock table"
# The sample protects inventory_stock with the database's own check (protected tables): a writer
# that bypasses the application — psql here — is refused unless it carries a current fence.
NO_FENCE_OUT=$("${PSQL[@]}" -c "UPDATE inventory_stock SET quantity = 0 WHERE sku = '$SKU'" 2>&1) \
  && fail "psql's write without a fence was accepted" || true
echo "psql, no fence:          ${NO_FENCE_OUT%%$'\n'*}"
case "$NO_FENCE_OUT" in *"carries no fence"*) SCRIPT_NO_FENCE=refused ;; *) SCRIPT_NO_FENCE="not refused as unfenced"; fail "psql's unfenced write: $NO_FENCE_OUT" ;; esac
# The same write carrying A's stale token from the second zombie, set in the session as the client does.
STALE_OUT=$("${PSQL[@]}" <<SQL 2>&1
BEGIN;
SELECT set_config('fencelock.fence', '$TOKEN_A2:' || '$FENCE_SCOPE' || chr(31) || '$RESOURCE', true);
UPDATE inventory_stock SET quantity = 0 WHERE sku = '$SKU';
COMMIT;
SQL
) && fail "psql's write with A's stale token $TOKEN_A2 was accepted" || true
STALE_OUT=$(echo "$STALE_OUT" | grep -m1 'ERROR' || echo "$STALE_OUT")
echo "psql, stale token $TOKEN_A2: $STALE_OUT"
case "$STALE_OUT" in *"stale $TOKEN_A2 < $TOKEN_B2"*"protected table"*) SCRIPT_STALE=refused ;; *) SCRIPT_STALE="not refused as stale"; fail "psql's stale write: $STALE_OUT" ;; esac

log "Checking the database"
FENCE_ROW=$(fence_token)
ROW_TOKEN=$("${PSQL[@]}" -c "SELECT fence_token FROM inventory_stock WHERE sku = '$SKU'")
DB_STOCK=$("${PSQL[@]}" -c "SELECT quantity FROM inventory_stock WHERE sku = '$SKU'")
DB_RESERVATIONS=$("${PSQL[@]}" -c "SELECT count(*) FROM inventory_reservation WHERE sku = '$SKU'")
API_STOCK=$(curl -fsS "http://127.0.0.1:$PORT_B/api/stock/$SKU" | json quantity)
ACCEPTED=$((CONCURRENT_OK + (STATUS_B == 200 ? 1 : 0) + (STATUS_B2 == 200 ? 1 : 0)))
EXPECTED=$((INITIAL_STOCK - ACCEPTED))
[ "$FENCE_ROW" = "$TOKEN_B2" ] || fail "fence row token $FENCE_ROW is not B's last token $TOKEN_B2"
[ "$ROW_TOKEN" = "$TOKEN_B2" ] || fail "stock row was last written with token $ROW_TOKEN, not B's last $TOKEN_B2"
[ "$DB_STOCK" = "$EXPECTED" ] || fail "stock in PostgreSQL is $DB_STOCK, expected $EXPECTED"
[ "$API_STOCK" = "$EXPECTED" ] || fail "stock via GET is $API_STOCK, expected $EXPECTED"
[ "$DB_RESERVATIONS" = "$ACCEPTED" ] || fail "$DB_RESERVATIONS reservation rows, expected $ACCEPTED"

log "Metrics (instance A)"
for meter in fencelock.acquire fencelock.lost fencelock.fencing.rejected; do
  if body=$(curl -fs "http://127.0.0.1:$PORT_A/actuator/metrics/$meter" 2>/dev/null); then
    echo "$meter: $(echo "$body" | sed 's/.*"measurements":\(\[[^]]*\]\).*/\1/')"
  else
    echo "$meter: not registered on A (no such event counted there yet, or not published by this build)"
  fi
done

case "$REFUSED_BY" in
  database) HOW="by the DATABASE (A still believed it held the lock; the fence check refused token $TOKEN_A)" ;;
  client) HOW="LOCALLY by instance A (it knew its lease was lost; no write reached the database)" ;;
  *) HOW="(not reported: $TYPE_A)" ;;
esac

cat <<EOF

================ FenceLock demo report ================
SKU                         $SKU (resource $RESOURCE)
initial stock               $INITIAL_STOCK
reservations accepted       $ACCEPTED ($CONCURRENT_OK concurrent across A and B + 1 by B during A's pause + 1 by B after the force-release)
stale writes rejected       $(( (STATUS_A == 409 ? 1 : 0) + (STATUS_A2 == 409 ? 1 : 0) ))
  1. A paused past its lease  HTTP $STATUS_A ($TYPE_A), refused $HOW
                              tokens: A $TOKEN_A < B $TOKEN_B
                              refusedBy $REFUSED_BY, at: $REFUSED_AT
  2. A cut off, lock taken     HTTP $STATUS_A2 ($TYPE_A2), refused by: $REFUSED_BY2, at: $REFUSED_AT2
                              tokens: A $TOKEN_A2 < B $TOKEN_B2 (the database had accepted B's)
  3. psql, no fence            $SCRIPT_NO_FENCE by the protected table inventory_stock (FL001)
  4. psql, A's token $TOKEN_A2     $SCRIPT_STALE by the protected table inventory_stock (FL002)
A cut off past its wait     HTTP $STATUS_A3 ($TYPE_A3)
background load ($LOAD_SKU)  $LOAD_OK accepted, $LOAD_OTHER refused or failed, stock $LOAD_STOCK - $LOAD_ROWS = $LOAD_LEFT
dashboard queries           $DASHBOARD_FAILED failed (Prometheus $PROMETHEUS_URL, table above)
alerts firing at the end    $(echo "$FIRING" | sed 's/{.*//' | sort -u | paste -sd, -)
fence row / stock row       PostgreSQL fence row $FENCE_ROW, stock row fence_token $ROW_TOKEN
final stock                 GET $API_STOCK, PostgreSQL $DB_STOCK, expected $INITIAL_STOCK - $ACCEPTED = $EXPECTED
reservation rows            $DB_RESERVATIONS
elapsed                     ${SECONDS}s
result                      $([ "$FAILURES" -eq 0 ] && echo "all invariants hold" || echo "$FAILURES invariant(s) FAILED")
=======================================================
EOF
[ "$FAILURES" -eq 0 ]
