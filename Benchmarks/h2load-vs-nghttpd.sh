#!/usr/bin/env bash
# `make bench`: h2load against silentpushd and against nghttpd (nghttp2's own C server)
# answering the same APNs requests, alternating, in one run. Prints each round's ratio and
# the median over h2c and over TLS (with each server's CPU time per request), latency
# p50/p99 at a fixed rate (each server's from its own log) and their p99 ratio, and the
# receiver's resident memory after a million pushes to 100,000 devices, and the store's size
# on disk after a million pushes with and without retention (and what retention costs in
# throughput).
#
# silentpushd runs as a user runs it: a SQLite file store, the system clock, profile ios.
# Every request is a real push: POST /3/device/<token> over 20,000 distinct tokens (h2load's
# -i URI file), a provider token made with the openssl CLI (Apple's recipe), topic,
# push-type background, priority 5 and the background payload. nghttpd serves a document
# root in which every /3/device/<token> exists, so it answers 200. A round fails unless every
# request is answered 2xx, and the run fails unless the store recorded every push sent.
#
# Environment (defaults in brackets):
#   ROUNDS [3]  REQUESTS [200000] per measurement  CLIENTS [4]  STREAMS [32] per connection
#   TOKENS [20000]  THREADS [1]: worker threads of both servers (--threads, nghttpd -n)
#   RATE [20000] pushes/s and RATE_SECONDS [10] for the latency run, LATENCY_CLIENTS [10]
#     connections with LATENCY_STREAMS [4] streams each: h2load's --rps sends each tick's
#     requests in one burst, so many streams per connection measure its own queue
#   RSS_PUSHES [1000000] to RSS_DEVICES [100000] for the memory run
#   STORE_PUSHES [1000000] in STORE_CHUNKS [4] to RSS_DEVICES devices for the store run, with
#     no retention and with --retain-pushes STORE_RETAIN [100000], chunk by chunk alternating
#   PARTS ["h2c tls latency rss store"]: which parts to run; add "transport" for the HTTP/2
#     transport alone (H2FixedResponseServer: a fixed 200 + apns-id, no APNs, no device)
#     against the same nghttpd over h2c, as the foundation measured it
#   MIN_RATIO: if set, exit 1 when a median ratio is below it
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/h2load-figures.sh
ROUNDS=${ROUNDS:-3} REQUESTS=${REQUESTS:-200000} CLIENTS=${CLIENTS:-4} STREAMS=${STREAMS:-32}
TOKENS=${TOKENS:-20000} THREADS=${THREADS:-1} RATE=${RATE:-20000} RATE_SECONDS=${RATE_SECONDS:-10}
LATENCY_CLIENTS=${LATENCY_CLIENTS:-10} LATENCY_STREAMS=${LATENCY_STREAMS:-4}
RSS_PUSHES=${RSS_PUSHES:-1000000} RSS_DEVICES=${RSS_DEVICES:-100000} PARTS=${PARTS:-"h2c tls latency rss store"}
STORE_PUSHES=${STORE_PUSHES:-1000000} STORE_CHUNKS=${STORE_CHUNKS:-4} STORE_RETAIN=${STORE_RETAIN:-100000}
for tool in h2load nghttpd python3 openssl curl; do
  command -v "$tool" >/dev/null || { echo "missing $tool: run 'make deps' (nghttp2-client, nghttp2-server, curl)" >&2; exit 2; }
done

swift build -c release --product silentpushd >&2
work=$(mktemp -d)
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

payload=payloads/background.json
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_for() { for _ in $(seq 300); do [ -s "$1" ] && return 0; sleep 0.1; done; echo "server did not start ($1)" >&2; exit 1; }
ready_port() { python3 -c "import json; print(json.load(open('$1'))['$2'])"; }
# N distinct 64-hex device tokens, one path per line.
paths() { python3 -c "
import hashlib
for i in range($1): print('/3/device/' + hashlib.sha256(b'silentpush-bench-%d' % i).hexdigest())"; }
# A URI file for h2load -i: the first URI names scheme, host and port.
uris() { sed "s|^|$1://127.0.0.1:$2|" "$3" > "$4"; }

paths "$TOKENS" > "$work/paths"
mkdir -p "$work/docroot/3/device"
(cd "$work/docroot" && sed 's|^/||' "$work/paths" | xargs touch)

jwt=$(scripts/dev-provider-token.sh)
headers=(-H "authorization: bearer $jwt" -H "apns-topic: com.example.app" -H "apns-push-type: background" -H "apns-priority: 5")

# silentpushd on a fresh file store; sets spd_pid and spd_ready.
start_silentpushd() {
  local name=$1; shift
  .build/release/silentpushd --threads "$THREADS" --log-level warning --admin 127.0.0.1:0 \
    --store "$work/$name/store.sqlite" --ready-file "$work/$name.json" "$@" & spd_pid=$!; pids+=($spd_pid)
  spd_ready="$work/$name.json"
  wait_for "$spd_ready"
}
stop() { kill -TERM "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; }
# The receiver's own count of pushes recorded (GET /v1/stats through the admin API).
recorded() {
  curl -sf "http://127.0.0.1:$(ready_port "$1" admin)/v1/stats" \
    | python3 -c 'import json,sys; print(sum(json.load(sys.stdin)["pushes"].values()))'
}
# Prints requests/s; fails unless every request was answered 2xx.
measure() {
  local out
  out=$(h2load -n "$REQUESTS" -c "$CLIENTS" -m "$STREAMS" -d "$payload" "${headers[@]}" -i "$1")
  grep -q "status codes: $REQUESTS 2xx" <<<"$out" || { echo "not every request answered 2xx ($1):" >&2; echo "$out" >&2; exit 1; }
  requests_per_second "$out"
}
below() { [ -n "${MIN_RATIO:-}" ] && python3 -c "import sys; sys.exit(0 if $1 < $MIN_RATIO else 1)"; }

echo "silentpushd (file store, system clock, profile ios) vs nghttpd; $THREADS worker thread(s) each; $(nproc) cores"
echo "h2load -n $REQUESTS -c $CLIENTS -m $STREAMS over $TOKENS device tokens (-i)"
failed=0

# A process's CPU time so far, in clock ticks (user + system, all its threads, exited ones too).
ticks=$(getconf CLK_TCK)
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
# Runs `measure` on URI file $1 against process $2; prints "requests/s CPU-µs-per-request".
measure_cpu() {
  local before rate after; before=$(cpu_ticks "$2"); rate=$(measure "$1"); after=$(cpu_ticks "$2")
  echo "$rate $(python3 -c "print(f'{($after - $before) / $ticks * 1e6 / $REQUESTS:.1f}')")"
}

# Alternating rounds of the reference and another server, the order rotating so neither
# always runs first; prints each round (throughput, and each server's CPU per request: a
# figure that does not depend on how two busy processes share the cores) and sets
# `median_ratio` (other/reference) and `median_cpu_ratio`.
alternate() {
  local label=$1 name=$2 ref_uris=$3 other_uris=$4 ref_pid=$5 other_pid=$6 ratios=() cpu_ratios=() ref other
  printf '%-9s %-6s %12s %14s %8s %12s %12s %8s\n' "$label" round nghttpd "$name" ratio "nghttpd us" "$name us" "cpu"
  for round in $(seq "$ROUNDS"); do
    if (( round % 2 )); then ref=$(measure_cpu "$ref_uris" "$ref_pid"); other=$(measure_cpu "$other_uris" "$other_pid")
    else other=$(measure_cpu "$other_uris" "$other_pid"); ref=$(measure_cpu "$ref_uris" "$ref_pid"); fi
    read -r ref_rate ref_us <<<"$ref"; read -r other_rate other_us <<<"$other"
    ratios+=("$(ratio "$other_rate" "$ref_rate")"); cpu_ratios+=("$(ratio "$other_us" "$ref_us")")
    printf '%-9s %-6s %12.0f %14.0f %8s %12s %12s %8s\n' "$label" "$round" "$ref_rate" "$other_rate" "${ratios[-1]}" \
      "$ref_us" "$other_us" "${cpu_ratios[-1]}"
  done
  median_ratio=$(median "${ratios[@]}") median_cpu_ratio=$(median "${cpu_ratios[@]}")
}

# Throughput of silentpushd against nghttpd; fails unless the store recorded every push.
throughput() {
  local scheme=$1 spd_port=$2 ref_port=$3 label=$4
  uris "$scheme" "$spd_port" "$work/paths" "$work/spd.uris"
  uris "$scheme" "$ref_port" "$work/paths" "$work/ref.uris"
  local before; before=$(recorded "$spd_ready")
  alternate "$label" silentpushd "$work/ref.uris" "$work/spd.uris" "$ref_pid" "$spd_pid"
  local stored=$(( $(recorded "$spd_ready") - before )) sent=$(( ROUNDS * REQUESTS ))
  echo "$label median ratio silentpushd/nghttpd: $median_ratio (pushes recorded: $stored of $sent); CPU per request, silentpushd/nghttpd: $median_cpu_ratio"
  [ "$stored" = "$sent" ] || { echo "the store is missing pushes answered 200" >&2; exit 1; }
  if below "$median_ratio"; then echo "$label: below the target $MIN_RATIO" >&2; failed=1; fi
}

# Latency at a fixed rate: h2load's per-request log (microseconds until the response ends).
# Each server's p99 is kept in `p99s`, by label, for their ratio.
declare -A p99s
latency() {
  local uri_file=$1 label=$2 log="$work/latency-$2.log" n=$(( RATE * RATE_SECONDS ))
  # h2load appends to its log: each server's figures come from its own, fresh one.
  rm -f "$log"
  local out; out=$(h2load -n "$n" -c "$LATENCY_CLIENTS" -m "$LATENCY_STREAMS" --rps $(( RATE / LATENCY_CLIENTS )) -d "$payload" "${headers[@]}" \
    --log-file "$log" -i "$uri_file")
  grep -q "status codes: $n 2xx" <<<"$out" || { echo "not every request answered 2xx ($label):" >&2; echo "$out" >&2; exit 1; }
  local achieved; achieved=$(requests_per_second "$out")
  local p50 p99 p999 max; read -r p50 p99 p999 max < <(python3 Benchmarks/latency-percentiles.py "$log")
  printf '%-12s %9.0f %9.2f %9.2f %9.2f %9.2f\n' "$label" "$achieved" "$p50" "$p99" "$p999" "$max"
  p99s[$label]=$p99
}

if [[ " $PARTS " == *" h2c "* ]]; then
  start_silentpushd h2c --listen off --listen-h2c 127.0.0.1:0
  ref_port=$(free_port)
  nghttpd -n "$THREADS" --no-tls -d "$work/docroot" "$ref_port" >/dev/null 2>&1 & ref_pid=$!; pids+=($ref_pid)
  sleep 0.3
  throughput http "$(ready_port "$spd_ready" h2c)" "$ref_port" h2c
  if [[ " $PARTS " == *" latency "* ]]; then
    echo "latency at $RATE pushes/s for ${RATE_SECONDS} s (h2c, -c $LATENCY_CLIENTS -m $LATENCY_STREAMS --rps $(( RATE / LATENCY_CLIENTS )) per client), ms:"
    printf '%-12s %9s %9s %9s %9s %9s\n' server "req/s" p50 p99 p99.9 max
    latency "$work/ref.uris" nghttpd
    latency "$work/spd.uris" silentpushd
    echo "p99 silentpushd/nghttpd: $(ratio "${p99s[silentpushd]}" "${p99s[nghttpd]}")"
  fi
  stop "$spd_pid"; stop "$ref_pid"
fi

if [[ " $PARTS " == *" transport "* ]]; then
  swift build --package-path Benchmarks -c release --product H2FixedResponseServer >&2
  Benchmarks/.build/release/H2FixedResponseServer "$work/transport.json" "$THREADS" & tr_pid=$!; pids+=($tr_pid)
  ref_port=$(free_port)
  nghttpd -n "$THREADS" --no-tls -d "$work/docroot" "$ref_port" >/dev/null 2>&1 & ref_pid=$!; pids+=($ref_pid)
  wait_for "$work/transport.json"; sleep 0.3
  uris http "$(ready_port "$work/transport.json" port)" "$work/paths" "$work/tr.uris"
  uris http "$ref_port" "$work/paths" "$work/ref.uris"
  alternate transport transport "$work/ref.uris" "$work/tr.uris" "$ref_pid" "$tr_pid"
  echo "transport median ratio transport/nghttpd: $median_ratio; CPU per request, transport/nghttpd: $median_cpu_ratio"
  stop "$tr_pid"; stop "$ref_pid"
fi

if [[ " $PARTS " == *" tls "* ]]; then
  start_silentpushd tls --listen 127.0.0.1:0 --listen-h2c off
  ref_port=$(free_port)
  nghttpd -n "$THREADS" -d "$work/docroot" "$ref_port" certs/server-key.pem certs/server.pem >/dev/null 2>&1 & ref_pid=$!; pids+=($ref_pid)
  sleep 0.3
  throughput https "$(ready_port "$spd_ready" tls)" "$ref_port" tls
  stop "$spd_pid"; stop "$ref_pid"
fi

if [[ " $PARTS " == *" rss "* ]]; then
  # A million pushes to 100,000 devices: each device's first push wakes its app, the rest wait
  # and coalesce in its slot (profile ios: 15 minutes between wakes).
  paths "$RSS_DEVICES" > "$work/rss.paths"
  start_silentpushd rss --listen off --listen-h2c 127.0.0.1:0
  uris http "$(ready_port "$spd_ready" h2c)" "$work/rss.paths" "$work/rss.uris"
  rss_before=$(awk '/^VmRSS/ {print $2}' "/proc/$spd_pid/status")
  REQUESTS=$RSS_PUSHES measure "$work/rss.uris" >/dev/null
  sleep 1
  rss=$(awk '/^VmRSS/ {print $2}' "/proc/$spd_pid/status") hwm=$(awk '/^VmHWM/ {print $2}' "/proc/$spd_pid/status")
  stored=$(recorded "$spd_ready")
  echo "memory: RSS $(( rss_before / 1024 )) MB at start; after $RSS_PUSHES pushes to $RSS_DEVICES devices: RSS $(( rss / 1024 )) MB, peak $(( hwm / 1024 )) MB (pushes recorded: $stored)"
  [ "$stored" = "$RSS_PUSHES" ] || { echo "the store is missing pushes answered 200" >&2; exit 1; }
  stop "$spd_pid"
fi
if [[ " $PARTS " == *" store "* ]]; then
  # The same million pushes to two receivers, one keeping everything and one keeping the
  # newest STORE_RETAIN (its pruner runs every 10 s), a chunk to each in turn.
  [ -s "$work/rss.paths" ] || paths "$RSS_DEVICES" > "$work/rss.paths"
  store_bytes() { local total=0 f; for f in "$work/$1/store.sqlite" "$work/$1/store.sqlite-wal"; do
    [ -f "$f" ] && total=$(( total + $(stat -c %s "$f") )); done; echo "$total"; }
  start_silentpushd keep --listen off --listen-h2c 127.0.0.1:0 --retain none --retain-pushes none
  keep_pid=$spd_pid keep_ready=$spd_ready
  start_silentpushd pruned --listen off --listen-h2c 127.0.0.1:0 --retain-pushes "$STORE_RETAIN"
  pruned_pid=$spd_pid pruned_ready=$spd_ready
  uris http "$(ready_port "$keep_ready" h2c)" "$work/rss.paths" "$work/keep.uris"
  uris http "$(ready_port "$pruned_ready" h2c)" "$work/rss.paths" "$work/pruned.uris"
  chunk=$(( STORE_PUSHES / STORE_CHUNKS )) store_ratios=()
  printf '%-7s %-6s %12s %14s %8s\n' store chunk keep-all "retain $STORE_RETAIN" ratio
  for round in $(seq "$STORE_CHUNKS"); do
    if (( round % 2 )); then keep=$(REQUESTS=$chunk measure "$work/keep.uris"); kept=$(REQUESTS=$chunk measure "$work/pruned.uris")
    else kept=$(REQUESTS=$chunk measure "$work/pruned.uris"); keep=$(REQUESTS=$chunk measure "$work/keep.uris"); fi
    store_ratios+=("$(ratio "$kept" "$keep")")
    printf '%-7s %-6s %12.0f %14.0f %8s\n' store "$round" "$keep" "$kept" "${store_ratios[-1]}"
  done
  sleep 15  # a pruning pass and its vacuum
  keep_stored=$(recorded "$keep_ready") pruned_stored=$(recorded "$pruned_ready")
  keep_bytes=$(store_bytes keep) pruned_bytes=$(store_bytes pruned)
  echo "store: throughput with retention / without, median over chunks: $(median "${store_ratios[@]}")"
  echo "store: without retention, $STORE_PUSHES pushes take $(( keep_bytes / 1048576 )) MB on disk ($(( keep_bytes / keep_stored )) bytes per push; $keep_stored pushes kept)"
  echo "store: with --retain-pushes $STORE_RETAIN, $(( pruned_bytes / 1048576 )) MB on disk ($pruned_stored pushes kept)"
  ls -l "$work"/keep/store.sqlite* "$work"/pruned/store.sqlite* | awk '{print "  " $5, $NF}' 
  [ "$keep_stored" = "$STORE_PUSHES" ] || { echo "the store is missing pushes answered 200" >&2; exit 1; }
  # Export every one of them (pushsend export over the admin API's NDJSON stream): the
  # receiver's peak RSS during the export (its high-water mark reset first) and pushsend's.
  swift build -c release --product pushsend >&2
  echo 5 > "/proc/$keep_pid/clear_refs" 2>/dev/null || true
  export_rss_before=$(awk '/^VmRSS/ {print $2}' "/proc/$keep_pid/status")
  export_out=$(python3 - "$(ready_port "$keep_ready" admin)" <<'PY'
import resource, subprocess, sys, time
started = time.monotonic()
proc = subprocess.Popen([".build/release/pushsend", "export", "pushes", "--admin", f"http://127.0.0.1:{sys.argv[1]}"], stdout=subprocess.PIPE)
lines = sum(1 for _ in proc.stdout)
proc.wait()
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
print(lines, proc.returncode, f"{time.monotonic() - started:.1f}", rss)
PY
)
  read -r export_lines export_status export_seconds export_client_mb <<<"$export_out"
  export_hwm=$(awk '/^VmHWM/ {print $2}' "/proc/$keep_pid/status")
  echo "export: $export_lines pushes in ${export_seconds}s (exit $export_status); receiver RSS $(( export_rss_before / 1024 )) MB before, peak $(( export_hwm / 1024 )) MB during; pushsend peak RSS ${export_client_mb} MB"
  [ "$export_lines" = "$STORE_PUSHES" ] || { echo "the export is missing pushes" >&2; exit 1; }
  stop "$keep_pid"; stop "$pruned_pid"
fi
exit "$failed"
