#!/usr/bin/env bash
# `make bench-cluster`: the cluster's figures for docs/benchmarks.md ("The cluster"), each
# a ratio against a reference measured in the same run:
#   cpu       CPU per push of one receiver on PostgreSQL against the same receiver on a SQLite
#             file, same h2load load, alternating rounds, in two phases: each device's first
#             push (a wake each) and then the steady state (the apps throttled: pushes
#             coalesced and held); PostgreSQL's own CPU, its commits, rows written and WAL
#             bytes per push counted beside it
#   proxy     pushes/s of 1 receiver direct against 1, 2 and 3 receivers behind HAProxy
#             (scripts/cluster.sh, its h2c front), and each part's CPU per push
#   failover  kill -9 of the receiver that owns a device, to the first 200 for that device
#             through the proxy: median and max over FAILOVERS runs
#
# One throwaway PostgreSQL server serves every part (a new database per receiver or cluster).
# Every request is a real push (POST /3/device/<token>, provider token, background payload)
# over TOKENS distinct devices; a measurement fails unless every request is answered 2xx.
# Outside the cpu part's first phase, every device has had its first push (and wake) before
# anything is measured.
#
# Environment (defaults in brackets): ROUNDS [3]  REQUESTS [100000] per measurement
#   CLIENTS [4]  STREAMS [32] per connection  TOKENS [20000]  SHARDS [8]
#   CLAIM_INTERVAL [2s]  FAILOVERS [10]  PARTS ["cpu proxy failover"]
#   SILENTPUSHD: a release silentpushd to measure (default: build .build/release/silentpushd)
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/h2load-figures.sh
ROUNDS=${ROUNDS:-3} REQUESTS=${REQUESTS:-100000} CLIENTS=${CLIENTS:-4} STREAMS=${STREAMS:-32}
TOKENS=${TOKENS:-20000} SHARDS=${SHARDS:-8} CLAIM_INTERVAL=${CLAIM_INTERVAL:-2s} FAILOVERS=${FAILOVERS:-10}
PARTS=${PARTS:-"cpu proxy failover"}
for tool in h2load haproxy python3 curl; do
  command -v "$tool" >/dev/null || { echo "missing $tool: run 'make deps'" >&2; exit 2; }
done
PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -n "$PG_BIN" ] || { echo "PostgreSQL is not installed: run 'make deps'" >&2; exit 2; }

if [ -z "${SILENTPUSHD:-}" ]; then swift build -c release --product silentpushd >&2; fi
SPD=${SILENTPUSHD:-.build/release/silentpushd}
work=$(mktemp -d)
pids=()
cluster_pid=""
cleanup() {
  [ -z "$cluster_pid" ] || { kill -TERM "$cluster_pid" 2>/dev/null || true; wait "$cluster_pid" 2>/dev/null || true; }
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  [ -z "${PG_RUN+x}" ] || "${PG_RUN[@]}" "$PG_BIN/pg_ctl" -D "$work/pg" -m immediate -w stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
json_field() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }
wait_for() { for _ in $(seq 600); do [ -s "$1" ] && return 0; sleep 0.1; done; echo "not ready: $1" >&2; exit 1; }
python3 -c "
import hashlib
for i in range($TOKENS): print(hashlib.sha256(b'silentpush-bench-%d' % i).hexdigest())" >"$work/tokens"
uris() { sed "s|^|http://127.0.0.1:$1/3/device/|" "$work/tokens" >"$2"; }
jwt=$(scripts/dev-provider-token.sh)
headers=(-H "authorization: bearer $jwt" -H "apns-topic: com.example.app" -H "apns-push-type: background" -H "apns-priority: 5")
# Pushes/s of h2load over URI file $1 ($2 requests, over ${3:-$CLIENTS} connections); fails
# unless every one is answered 2xx. With one connection, each URI in turn.
load() {
  local out
  out=$(h2load -i "$1" -n "$2" -c "${3:-$CLIENTS}" -m "$STREAMS" -d payloads/background.json "${headers[@]}" 2>&1)
  local ok
  ok=$(sed -n 's/^status codes: \([0-9]*\) 2xx.*/\1/p' <<<"$out")
  [ "$ok" = "$2" ] || { echo "h2load: $ok of $2 answered 2xx" >&2; tail -5 <<<"$out" >&2; exit 1; }
  requests_per_second "$out"
}

# CPU time in microseconds: of processes $@ (utime + stime), and for a PostgreSQL server of its
# postmaster's children too (live ones, and what ended children left in cutime + cstime).
ticks=$(getconf CLK_TCK)
cpu_us() { python3 - "$ticks" "$@" <<'PY'
import sys
ticks, total = int(sys.argv[1]), 0
for pid in sys.argv[2:]:
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    except OSError:
        pass
print(total * 1_000_000 // ticks)
PY
}
pg_pids() {
  local pm
  pm=$(head -1 "$work/pg/postmaster.pid")
  echo "$pm" $(pgrep -P "$pm")
}
pg_cpu_us() {
  local pm live reaped
  pm=$(head -1 "$work/pg/postmaster.pid")
  live=$(cpu_us $(pg_pids))
  reaped=$(python3 -c "
f=open('/proc/$pm/stat').read().rsplit(')',1)[1].split(); print((int(f[13])+int(f[14]))*1_000_000//$ticks)")
  echo $((live + reaped))
}

# The PostgreSQL server (run as `postgres` when root: initdb refuses root).
PG_PORT=$(free_port)
mkdir -p "$work/pg"
if [ "$(id -u)" = 0 ]; then chown postgres:postgres "$work" "$work/pg"; PG_RUN=(runuser -u postgres --); else PG_RUN=(env); fi
"${PG_RUN[@]}" "$PG_BIN/initdb" -D "$work/pg" -U silentpush --auth=trust >"$work/initdb.log" 2>&1
"${PG_RUN[@]}" "$PG_BIN/pg_ctl" -D "$work/pg" -l "$work/pg/log" -w -o "-p $PG_PORT -k $work/pg -c listen_addresses=127.0.0.1" start >/dev/null
# A new database: its URL in db_url.
databases=0
new_database() {
  databases=$((databases + 1))
  "${PG_RUN[@]}" "$PG_BIN/createdb" -h 127.0.0.1 -p "$PG_PORT" -U silentpush "bench$databases"
  db_url="postgres://silentpush@127.0.0.1:$PG_PORT/bench$databases"
}
psql_value() { "$PG_BIN/psql" -h 127.0.0.1 -p "$PG_PORT" -U silentpush -d "$1" -At -c "$2"; }
# WAL position, commits and rows written of database $1 (the receivers' statistics are
# flushed within a second of going idle).
pg_counters() {
  sleep 1.5
  psql_value "$1" "SELECT pg_current_wal_lsn() - '0/0', xact_commit, tup_inserted + tup_updated + tup_deleted FROM pg_stat_database WHERE datname = '$1'" | tr '|' ' '
}

if [[ " $PARTS " == *" cpu "* ]]; then
  echo "== CPU per push: PostgreSQL against SQLite (one receiver, h2c, $CLIENTS x $STREAMS streams)"
  echo "   first: each of $TOKENS devices' first push (one connection); steady: $REQUESTS more"
  declare -A cpu=() sqlite_own=()
  # Round 0 warms both engines (the new server's caches, the page cache) and is not counted.
  for round in $(seq 0 "$ROUNDS"); do
    for engine in sqlite postgres; do
      if [ "$engine" = sqlite ]; then store="$work/sqlite$round/store.sqlite"; else new_database; store=$db_url; fi
      rm -f "$work/cpu.json"
      "$SPD" --listen off --listen-h2c 127.0.0.1:0 --admin 127.0.0.1:0 --log-level warning --store "$store" \
        --ready-file "$work/cpu.json" & pid=$!; pids+=($pid)
      wait_for "$work/cpu.json"
      uris "$(json_field "$work/cpu.json" h2c)" "$work/cpu.uris"
      for phase in first steady; do
        [ "$engine" = postgres ] && { read -r wal0 commits0 rows0 <<<"$(pg_counters "${store##*/}")"; pg0=$(pg_cpu_us); }
        own0=$(cpu_us "$pid")
        if [ "$phase" = first ]; then n=$TOKENS; rate=$(load "$work/cpu.uris" "$n" 1); else n=$REQUESTS; rate=$(load "$work/cpu.uris" "$n"); fi
        own=$(($(cpu_us "$pid") - own0))
        line="round $round $engine $phase: $rate pushes/s; receiver $(ratio "$own" "$n") us/push"
        if [ "$engine" = postgres ]; then
          pg=$(($(pg_cpu_us) - pg0))
          read -r wal commits rows <<<"$(pg_counters "${store##*/}")"
          line+=", PostgreSQL $(ratio "$pg" "$n") us/push; $(ratio "$n" "$((commits - commits0))") pushes per commit,"
          line+=" $(ratio "$((rows - rows0))" "$n") rows and $(ratio "$((wal - wal0))" "$n") WAL bytes per push"
          [ "$round" = 0 ] || cpu[total-$phase]+=" $(ratio "$((own + pg))" "${sqlite_own[$phase]}")"
          [ "$round" = 0 ] || cpu[receiver-$phase]+=" $(ratio "$own" "${sqlite_own[$phase]}")"
        else
          sqlite_own[$phase]=$own
        fi
        [ "$round" = 0 ] && line+=" (warm-up, not counted)"
        [ "$round" = 0 ] || cpu[rate-$engine-$phase]+=" $rate"
        echo "$line"
      done
      kill -TERM "$pid"; wait "$pid" 2>/dev/null || true
    done
  done
  for phase in first steady; do
    # shellcheck disable=SC2086 # lists
    echo "median $phase: pushes/s sqlite $(median ${cpu[rate-sqlite-$phase]}), postgres $(median ${cpu[rate-postgres-$phase]});" \
      "CPU per push against SQLite: receiver $(median ${cpu[receiver-$phase]}), receiver + PostgreSQL $(median ${cpu[total-$phase]})"
  done
fi

# Starts scripts/cluster.sh with $1 receivers on a new database; sets cluster_pid, cluster_dir,
# front (its h2c port).
start_cluster() {
  new_database
  cluster_dir="$work/cluster$databases"
  front=$(free_port)
  RECEIVERS=$1 SHARDS=$SHARDS CLAIM_INTERVAL=$CLAIM_INTERVAL STORE=$db_url SILENTPUSHD=$SPD \
    APNS_PORT=$(free_port) H2C_PORT=$front ADMIN_PORT=$(free_port) WORKDIR="$cluster_dir" READY_FILE="$work/cluster.json" \
    ARGS="--log-level warning" scripts/cluster.sh >"$work/cluster.log" 2>&1 & cluster_pid=$!
  wait_for "$work/cluster.json"
  rm -f "$work/cluster.json"
}
stop_cluster() { kill -TERM "$cluster_pid" 2>/dev/null || true; wait "$cluster_pid" 2>/dev/null || true; cluster_pid=""; }
receiver_pids() { for i in $(seq "$1"); do cat "$cluster_dir/r$i.pid"; done; }

if [[ " $PARTS " == *" proxy "* ]]; then
  echo "== Pushes/s: 1 receiver direct against 1, 2 and 3 behind HAProxy ($REQUESTS pushes, h2c, $SHARDS shards)"
  declare -A rates=()
  for receivers in 1 2 3; do
    start_cluster "$receivers"
    haproxy_pid=$(pgrep -f "haproxy -db -f $cluster_dir/haproxy.cfg")
    uris "$front" "$work/front.uris"
    uris "$(json_field "$cluster_dir/r1.json" h2c)" "$work/direct.uris"
    load "$work/front.uris" "$TOKENS" 1 >/dev/null  # every device's first push, and its wake
    for round in $(seq "$ROUNDS"); do
      ways=(proxy)
      [ "$receivers" = 1 ] && ways=(direct proxy)
      for way in "${ways[@]}"; do
        own0=$(cpu_us $(receiver_pids "$receivers")); proxy0=$(cpu_us "$haproxy_pid"); pg0=$(pg_cpu_us)
        rate=$(load "$work/$( [ "$way" = direct ] && echo direct || echo front).uris" "$REQUESTS")
        own=$(($(cpu_us $(receiver_pids "$receivers")) - own0)); proxy=$(($(cpu_us "$haproxy_pid") - proxy0)); pg=$(($(pg_cpu_us) - pg0))
        rates[$way$receivers]="${rates[$way$receivers]:-} $rate"
        echo "$receivers receiver(s) $way, round $round: $rate pushes/s; CPU us/push: receivers $(ratio "$own" "$REQUESTS")," \
          "HAProxy $(ratio "$proxy" "$REQUESTS"), PostgreSQL $(ratio "$pg" "$REQUESTS")"
      done
    done
    stop_cluster
  done
  # shellcheck disable=SC2086 # the rates are a list
  direct=$(median ${rates[direct1]})
  echo "median pushes/s: 1 direct $direct"
  for receivers in 1 2 3; do
    # shellcheck disable=SC2086
    proxied=$(median ${rates[proxy$receivers]})
    echo "median pushes/s: $receivers behind HAProxy $proxied (against 1 direct: $(ratio "$proxied" "$direct"))"
  done
fi

if [[ " $PARTS " == *" failover "* ]]; then
  echo "== Failover: kill -9 of a device's owner to its first 200 through the proxy (3 receivers, claim interval $CLAIM_INTERVAL)"
  times=()
  for run in $(seq "$FAILOVERS"); do
    start_cluster 3
    owned=$(curl -sf "http://127.0.0.1:$(json_field "$cluster_dir/r1.json" admin)/v1/cluster" | python3 -c 'import json,sys; print(" ".join(map(str, json.load(sys.stdin)["owned"])))')
    token=$(python3 -c "
import sys, zlib
owned = set(map(int, '$owned'.split()))
print(next(t for t in open('$work/tokens').read().split() if zlib.crc32(t.lower().encode()) % $SHARDS in owned))")
    push() {
      curl -s --http2-prior-knowledge -o /dev/null -w '%{http_code}' --max-time 2 "${headers[@]}" \
        --data-binary @payloads/background.json "http://127.0.0.1:$front/3/device/$token" || true
    }
    [ "$(push)" = 200 ] || { echo "the device's first push was not answered 200" >&2; exit 1; }
    start=$(date +%s%N)
    kill -KILL "$(cat "$cluster_dir/r1.pid")"
    until [ "$(push)" = 200 ]; do
      (($(date +%s%N) - start < 30000000000)) || { echo "no 200 within 30 s of the kill" >&2; exit 1; }
      sleep 0.02
    done
    elapsed=$((($(date +%s%N) - start) / 1000000))
    times+=("$elapsed")
    echo "run $run: first 200 after $elapsed ms"
    stop_cluster
  done
  printf '%s\n' "${times[@]}" | python3 -c '
import sys
v = sorted(int(x) for x in sys.stdin)
print(f"failover over {len(v)} runs: median {v[len(v)//2]} ms, max {v[-1]} ms, min {v[0]} ms")'
fi
