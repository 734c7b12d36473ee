#!/usr/bin/env bash
# Two silentpushd binaries, A and B, in alternating rounds over h2c: each round starts the
# binary on a fresh file store, warms it with WARMUP pushes, then runs
# `h2load -n REQUESTS -c 4 -m 32` over TOKENS device tokens. Prints pushes/s and the CPU
# time per push of all its threads (/proc), and the median B/A ratio of each.
#   Benchmarks/compare-binaries.sh OLD_BINARY NEW_BINARY
#   ROUNDS [6]  REQUESTS [200000]  WARMUP [20000]  TOKENS [20000]  THREADS [1]
#   TLS [0]: 1 for TLS (the dev certificate, ALPN h2) instead of h2c
#   STORE [sqlite]: postgres for a fresh database each run on a PostgreSQL server the script
#     starts (its own CPU is not counted: only the receiver's)
#   LATENCY [0]: 1 to compare latency instead: after the REQUESTS pushes, RATE [20000]
#     pushes/s for RATE_SECONDS [10] (`-c 10 -m 4 --rps`, as `make bench`), each round from
#     a fresh h2load log; prints p50 and p99 (ms) and the median B/A of each
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/h2load-figures.sh
A=$1 B=$2
ROUNDS=${ROUNDS:-6} REQUESTS=${REQUESTS:-200000} WARMUP=${WARMUP:-20000} TOKENS=${TOKENS:-20000} THREADS=${THREADS:-1}
LATENCY=${LATENCY:-0} RATE=${RATE:-20000} RATE_SECONDS=${RATE_SECONDS:-10}
if [ "${TLS:-0}" = 1 ]; then listen=(--listen 127.0.0.1:0 --listen-h2c off) scheme=https port_key=tls
else listen=(--listen off --listen-h2c 127.0.0.1:0) scheme=http port_key=h2c; fi
STORE=${STORE:-sqlite}
work=$(mktemp -d)
pid=
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null
  [ -z "${PG_RUN+x}" ] || "${PG_RUN[@]}" "$PG_BIN/pg_ctl" -D "$work/pg" -m immediate -w stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
if [ "$STORE" = postgres ]; then
  PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
  [ -n "$PG_BIN" ] || { echo "PostgreSQL is not installed: run 'make deps'" >&2; exit 2; }
  PG_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  mkdir -p "$work/pg"
  # initdb refuses root: the server runs as `postgres` then.
  if [ "$(id -u)" = 0 ]; then chown postgres:postgres "$work" "$work/pg"; PG_RUN=(runuser -u postgres --); else PG_RUN=(env); fi
  "${PG_RUN[@]}" "$PG_BIN/initdb" -D "$work/pg" -U silentpush --auth=trust >"$work/initdb.log" 2>&1
  "${PG_RUN[@]}" "$PG_BIN/pg_ctl" -D "$work/pg" -l "$work/pg/log" -w -o "-p $PG_PORT -k $work/pg -c listen_addresses=127.0.0.1" start >/dev/null
elif [ "$STORE" != sqlite ]; then
  echo "STORE is sqlite or postgres, not '$STORE'" >&2; exit 2
fi
store_for() {  # a run's directory (its name unique) -> its --store
  if [ "$STORE" = postgres ]; then
    local name="bench_${1##*/}"; name=${name//-/_}
    "${PG_RUN[@]}" "$PG_BIN/createdb" -h 127.0.0.1 -p "$PG_PORT" -U silentpush "$name"
    echo "postgres://silentpush@127.0.0.1:$PG_PORT/$name"
  else
    echo "$1/store.sqlite"
  fi
}
python3 -c "
import hashlib
for i in range($TOKENS): print('/3/device/' + hashlib.sha256(b'silentpush-bench-%d' % i).hexdigest())" > "$work/paths"
jwt=$(scripts/dev-provider-token.sh)
headers=(-H "authorization: bearer $jwt" -H "apns-topic: com.example.app" -H "apns-push-type: background" -H "apns-priority: 5")
ticks=$(getconf CLK_TCK)
cpu() { awk '{ s += $14 + $15 } END { print s }' /proc/"$1"/task/*/stat; }

run() {  # binary label -> "pushes/s cpu_us_per_push", or "p50_ms p99_ms" with LATENCY=1
  local binary=$1 dir="$work/$2-$RANDOM"
  local store; store=$(store_for "$dir")
  "$binary" --threads "$THREADS" --log-level warning --admin 127.0.0.1:0 "${listen[@]}" \
    --store "$store" --ready-file "$dir.json" >/dev/null 2>&1 & pid=$!
  for _ in $(seq 300); do [ -s "$dir.json" ] && break; sleep 0.1; done
  local port; port=$(python3 -c "import json; print(json.load(open('$dir.json'))['$port_key'])")
  sed "s|^|$scheme://127.0.0.1:$port|" "$work/paths" > "$dir.uris"
  h2load -n "$WARMUP" -c 4 -m 32 -d payloads/background.json "${headers[@]}" -i "$dir.uris" >/dev/null
  local before; before=$(cpu "$pid")
  local out; out=$(h2load -n "$REQUESTS" -c 4 -m 32 -d payloads/background.json "${headers[@]}" -i "$dir.uris")
  local after; after=$(cpu "$pid")
  grep -q "status codes: $REQUESTS 2xx" <<<"$out" || { echo "not every request answered 2xx" >&2; echo "$out" >&2; exit 1; }
  if [ "$LATENCY" = 1 ]; then
    local n=$(( RATE * RATE_SECONDS ))
    # h2load appends to its log: a fresh one per run.
    rm -f "$work/latency.log"
    out=$(h2load -n "$n" -c 10 -m 4 --rps $(( RATE / 10 )) -d payloads/background.json "${headers[@]}" \
      --log-file "$work/latency.log" -i "$dir.uris")
    grep -q "status codes: $n 2xx" <<<"$out" || { echo "not every request answered 2xx" >&2; echo "$out" >&2; exit 1; }
  fi
  kill -TERM "$pid"; wait "$pid" 2>/dev/null || true; pid=
  if [ "$LATENCY" = 1 ]; then
    python3 Benchmarks/latency-percentiles.py "$work/latency.log" | cut -d' ' -f1,2
    return
  fi
  local rate; rate=$(requests_per_second "$out")
  python3 -c "print($rate, ($after - $before) / $ticks * 1e6 / $REQUESTS)"
}

# Each round yields two figures per binary: pushes/s and CPU µs per push, or p50 and p99 (ms).
if [ "$LATENCY" = 1 ]; then labels=(A_p50 B_p50 A_p99 B_p99 p50 p99) format='%10.2f %10.2f %10.2f %10.2f'
else labels=(A/s B/s A_us B_us rate cpu) format='%10.0f %10.0f %10.1f %10.1f'; fi
printf '%-6s %10s %10s %10s %10s %8s %8s\n' round "${labels[@]}"
firsts=() seconds=()
for round in $(seq "$ROUNDS"); do
  if (( round % 2 )); then a=$(run "$A" a); b=$(run "$B" b); else b=$(run "$B" b); a=$(run "$A" a); fi
  read -r a1 a2 <<<"$a"; read -r b1 b2 <<<"$b"
  firsts+=("$(ratio "$b1" "$a1")"); seconds+=("$(ratio "$b2" "$a2")")
  printf "%-6s $format %8s %8s\n" "$round" "$a1" "$b1" "$a2" "$b2" "${firsts[-1]}" "${seconds[-1]}"
done
if [ "$LATENCY" = 1 ]; then echo "median B/A: p50 $(median "${firsts[@]}"), p99 $(median "${seconds[@]}")"
else echo "median B/A: pushes/s $(median "${firsts[@]}"), CPU per push $(median "${seconds[@]}")"; fi
