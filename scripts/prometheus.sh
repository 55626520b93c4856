# Functions that scripts/demo.sh sources to run a real Prometheus next to the sample instances and
# to evaluate every query of docs/grafana-dashboard.json through its HTTP API. Not a script of its
# own: the demo keeps PROMETHEUS_PID and stops the process by PID on exit.
#
# Needs: prometheus (Debian's package, which install-deps.sh installs), curl and jq.

PROMETHEUS_PID=""
PROMETHEUS_URL=""
# When Prometheus started; the dashboard's $__range is the time since then (the whole run).
PROMETHEUS_STARTED_AT=""
# Grafana's $__rate_interval is max($__interval + scrape interval, 4 × scrape interval): 4 s for a
# 1 s scrape over a short time range. Wider here, so that a scrape missed on a busy machine does not
# empty a panel: a rate needs two samples in its window.
DASHBOARD_RATE_INTERVAL=${DASHBOARD_RATE_INTERVAL:-20s}
# Panels whose data only appears with a fault; before the faults they may be empty.
DASHBOARD_FAULT_PANELS=("Locks lost (range)" "Fencing rejections (range)" "Store unavailable (range)"
  "Lost and rejected per lock" "Failed acquisitions ratio")
# Of those, the stats that must count more than zero once the faults happened.
DASHBOARD_FAULT_STATS=("Locks lost (range)" "Fencing rejections (range)" "Store unavailable (range)")

# Prints a loopback port below 32768 (outside Linux's ephemeral range, so no outgoing connection
# holds it) that nothing listens on, starting at $1.
free_port_from() {
  local port
  for port in $(seq "$1" $(($1 + 200))); do
    [ "$port" -lt 32768 ] || break
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return 0
    fi
  done
  echo "no free port from $1" >&2
  return 1
}

# Starts Prometheus on 127.0.0.1, scraping /actuator/prometheus of the given host:port targets every
# second as job "fencelock-sample", with the rule files given after "--", its data in DIR.
prometheus_start() { # dir first-port target... [-- rule-file...]
  local dir=$1 port targets="" rules=""
  port=$(free_port_from "$2")
  shift 2
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    targets="${targets:+$targets, }'$1'"
    shift
  done
  [ "${1:-}" != "--" ] || shift
  for rule in "$@"; do rules="$rules
  - $rule"; done
  mkdir -p "$dir/data"
  cat >"$dir/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files:${rules:- []}
scrape_configs:
  - job_name: fencelock-sample
    metrics_path: /actuator/prometheus
    static_configs:
      - targets: [$targets]
EOF
  prometheus --config.file="$dir/prometheus.yml" --storage.tsdb.path="$dir/data" \
    --web.listen-address="127.0.0.1:$port" --log.level=warn >"$dir/prometheus.log" 2>&1 &
  PROMETHEUS_PID=$!
  PROMETHEUS_URL="http://127.0.0.1:$port"
  PROMETHEUS_STARTED_AT=$(date +%s)
  for _ in $(seq 1 120); do
    if curl -fs "$PROMETHEUS_URL/-/ready" >/dev/null 2>&1; then return 0; fi
    kill -0 "$PROMETHEUS_PID" 2>/dev/null || break
    sleep 0.5
  done
  echo "Prometheus did not become ready on $PROMETHEUS_URL; see $dir/prometheus.log" >&2
  tail -n 20 "$dir/prometheus.log" >&2
  return 1
}

prometheus_stop() {
  [ -n "$PROMETHEUS_PID" ] || return 0
  kill "$PROMETHEUS_PID" 2>/dev/null || true
  for _ in $(seq 1 50); do kill -0 "$PROMETHEUS_PID" 2>/dev/null || return 0; sleep 0.2; done
  kill -9 "$PROMETHEUS_PID" 2>/dev/null || true
}

# Runs an instant query; prints Prometheus's JSON answer (errors included).
prometheus_query() { # promql
  curl -sS -G --max-time 10 "$PROMETHEUS_URL/api/v1/query" --data-urlencode "query=$1"
}

# Waits (bounded, 60 s) until Prometheus has scraped FenceLock's meters from $1 targets, three times
# each: the first scrapes load and compile each JVM's exposition code, which should be done before
# the demo's load begins.
prometheus_await_targets() { # count
  local found=0
  for _ in $(seq 1 120); do
    found=$(prometheus_query 'count(count_over_time(fencelock_active{job="fencelock-sample"}[1m]) >= 3)' \
      | jq -r '.data.result[0].value[1] // 0' || echo 0)
    [ "$found" -ge "$1" ] && return 0
    sleep 0.5
  done
  echo "Prometheus scraped FenceLock's meters from $found of $1 instances; see $PROMETHEUS_URL/targets" >&2
  return 1
}

# Every panel query of the dashboard as "title<TAB>refId<TAB>expr" lines (each field base64, so no
# character of a query is lost), panels of collapsed rows included, then each template variable's
# label_values() query as the PromQL it stands for.
dashboard_queries() { # dashboard.json
  jq -r '
    ([.. | objects | select(has("targets") and has("title"))] | .[] | . as $panel
      | .targets[] | select(.expr) | [$panel.title, .refId, .expr]),
    (.templating.list[]? | select(.type == "query") | (.query.query? // .query)
      | capture("label_values\\((?<metric>.*),\\s*(?<label>[a-z_]+)\\)")
      | ["variable " + .label, "-", "count by (" + .label + ") (" + .metric + ")"])
    | map(@base64) | join("\t")' "$1"
}

# Grafana's variables as the dashboard's defaults have them: "All" (.*) for job, instance and lock;
# $__rate_interval as above; $__range the time since Prometheus started.
dashboard_substitute() { # expr
  local range=$(($(date +%s) - PROMETHEUS_STARTED_AT))s
  jq -rn --arg e "$1" --arg ri "$DASHBOARD_RATE_INTERVAL" --arg range "$range" \
    '$e | gsub("\\$__rate_interval"; $ri) | gsub("\\$__range"; $range)
        | gsub("\\$\\{?(job|instance|lock)\\}?"; ".*")'
}

contains() { # needle haystack...
  local needle=$1 item
  shift
  for item in "$@"; do [ "$item" = "$needle" ] && return 0; done
  return 1
}

# Evaluates every query of the dashboard. Round "load" (before any fault) lets the fault panels be
# empty; round "faults" needs every query to return a series and the fault stats to be above zero.
# Writes a table to $2 and returns the number of failed queries.
dashboard_check() { # dashboard.json report-file round
  local dashboard=$1 report=$2 round=$3 failed=0 title ref expr query answer status count value note titles
  printf '%-48s %-4s %7s  %s\n' "panel (round: $round)" ref series "first value / note" >>"$report"
  while IFS=$'\t' read -r title ref expr; do
    title=$(echo "$title" | base64 -d)
    ref=$(echo "$ref" | base64 -d)
    expr=$(echo "$expr" | base64 -d)
    query=$(dashboard_substitute "$expr")
    answer=$(prometheus_query "$query") || answer='{"status":"error","error":"no answer"}'
    status=$(echo "$answer" | jq -r '.status // "error"')
    count=$(echo "$answer" | jq -r 'if .data.resultType == "vector" then (.data.result | length) else 0 end')
    value=$(echo "$answer" | jq -r '.data.result[0].value[1] // "-"')
    note=$value
    if [ "$status" != success ]; then
      note="ERROR $(echo "$answer" | jq -r '.error // "?"')"
      failed=$((failed + 1))
      echo "FAILED: panel '$title' query $ref does not evaluate: $note; query: $query" >&2
    elif [ "$count" -eq 0 ]; then
      if [ "$round" = load ] && contains "$title" "${DASHBOARD_FAULT_PANELS[@]}"; then
        note="(no data before the faults: allowed)"
      else
        note="NO SERIES"
        failed=$((failed + 1))
        echo "FAILED: panel '$title' query $ref returned no series (round $round); query: $query" >&2
      fi
    elif [ "$round" = faults ] && contains "$title" "${DASHBOARD_FAULT_STATS[@]}" \
        && ! awk -v v="$value" 'BEGIN { exit !(v + 0 > 0) }'; then
      note="$value (expected > 0 after the faults)"
      failed=$((failed + 1))
      echo "FAILED: panel '$title' shows $value after the faults; query: $query" >&2
    fi
    printf '%-48s %-4s %7s  %s\n' "$title" "$ref" "$count" "$note" >>"$report"
  done < <(dashboard_queries "$dashboard")
  # Into a variable first: with pipefail, grep -q leaving a pipe early would fail the pipeline.
  titles=$(dashboard_queries "$dashboard" | cut -f1 | while read -r t; do echo "$t" | base64 -d; echo; done)
  for title in "${DASHBOARD_FAULT_PANELS[@]}"; do
    if ! grep -qxF "$title" <<<"$titles"; then
      echo "FAILED: the dashboard has no panel '$title' that the check expects" >&2
      failed=$((failed + 1))
    fi
  done
  return "$failed"
}

# Rules that failed to evaluate, one "name: error" line each (none when all are healthy).
prometheus_rule_errors() {
  curl -sS --max-time 10 "$PROMETHEUS_URL/api/v1/rules" \
    | jq -r '.data.groups[].rules[] | select(.health == "err") | "\(.name): \(.lastError)"'
}

# Waits (bounded, 30 s) until each named alert has fired since Prometheus started, now or earlier
# (an alert on an increase over 5 minutes resolves 5 minutes after its fault, which a slow run can
# outlast); prints the ones that never did.
prometheus_await_alerts() { # alertname...
  local fired missing="" range
  for _ in $(seq 1 60); do
    range=$(($(date +%s) - PROMETHEUS_STARTED_AT + 1))s
    fired=$(prometheus_query "count by (alertname) (max_over_time(ALERTS{alertstate=\"firing\"}[$range]))" \
      | jq -r '.data.result[].metric.alertname' || true)
    missing=""
    for alert in "$@"; do
      echo "$fired" | grep -qxF "$alert" || missing="$missing $alert"
    done
    [ -z "$missing" ] && return 0
    sleep 0.5
  done
  echo "${missing# }"
  return 1
}

# The alerts firing now, "name{labels}" per line.
prometheus_firing_alerts() {
  curl -sS --max-time 10 "$PROMETHEUS_URL/api/v1/alerts" \
    | jq -r '.data.alerts[] | select(.state == "firing")
        | .labels.alertname + "{" + ([.labels | to_entries[] | select(.key != "alertname")
        | .key + "=" + .value] | join(", ")) + "}"' | sort
}
