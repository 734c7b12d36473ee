#!/usr/bin/env bash
# pushsend against h2load, the same requests to the same silentpushd, alternating, in one run:
# REQUESTS pushes on one connection with STREAMS in flight (pushsend --concurrency, h2load -m).
# Prints each round's pushes/s, the ratio pushsend/h2load and the median ratio.
#
# Environment (defaults in brackets):
#   ROUNDS [5]  REQUESTS [20000]  STREAMS [100]
#   MIN_RATIO: if set, exit 1 when the median ratio is below it
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/h2load-figures.sh
ROUNDS=${ROUNDS:-5} REQUESTS=${REQUESTS:-20000} STREAMS=${STREAMS:-100}
for tool in h2load python3 openssl; do
  command -v "$tool" >/dev/null || { echo "missing $tool: run 'make deps'" >&2; exit 2; }
done
swift build -c release --product silentpushd >&2
swift build -c release --product pushsend >&2
work=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

# The receiver keeps its store in memory and runs on one thread, like the other benchmarks.
.build/release/silentpushd --listen off --listen-h2c 127.0.0.1:0 --admin off --store memory --threads 1 \
  --log-level warning --ready-file "$work/ready.json" & pid=$!
for _ in $(seq 200); do [ -s "$work/ready.json" ] && break; sleep 0.1; done
port=$(python3 -c "import json; print(json.load(open('$work/ready.json'))['h2c'])")
token=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
payload=payloads/background.json
jwt=$(scripts/dev-provider-token.sh)

run_h2load() {
  h2load -n "$REQUESTS" -c 1 -m "$STREAMS" -H "authorization: bearer $jwt" -H "apns-topic: com.example.app" \
    -H "apns-push-type: background" -H "apns-priority: 5" -d "$payload" "http://127.0.0.1:$port/3/device/$token" > "$work/h2load.txt"
  grep -q "status codes: $REQUESTS 2xx" "$work/h2load.txt" || { cat "$work/h2load.txt" >&2; exit 1; }
  requests_per_second "$(<"$work/h2load.txt")"
}
run_pushsend() {
  .build/release/pushsend --url "http://127.0.0.1:$port" --device "$token" --priority 5 --count "$REQUESTS" \
    --concurrency "$STREAMS" --quiet "$payload" 2> "$work/pushsend.txt" || { cat "$work/pushsend.txt" >&2; exit 1; }
  grep -q "accepted $REQUESTS," "$work/pushsend.txt" || { cat "$work/pushsend.txt" >&2; exit 1; }
  sed -n 's/.*; \([0-9]*\) pushes\/s.*/\1/p' "$work/pushsend.txt"
}

run_h2load > /dev/null; run_pushsend > /dev/null  # warm up both
echo "$REQUESTS pushes, 1 connection, $STREAMS streams in flight; silentpushd --store memory --threads 1; $(nproc) cores"
printf '%-6s %12s %12s %8s\n' round h2load pushsend ratio
ratios=()
for round in $(seq "$ROUNDS"); do
  if [ $((round % 2)) = 1 ]; then h=$(run_h2load); p=$(run_pushsend); else p=$(run_pushsend); h=$(run_h2load); fi
  ratio=$(ratio "$p" "$h")
  ratios+=("$ratio")
  printf '%-6s %12.0f %12.0f %8s\n' "$round" "$h" "$p" "$ratio"
done
median=$(printf '%s\n' "${ratios[@]}" | sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}')
echo "median ratio pushsend/h2load: $median"
if [ -n "${MIN_RATIO:-}" ] && python3 -c "import sys; sys.exit(0 if $median >= $MIN_RATIO else 1)"; then :; elif [ -n "${MIN_RATIO:-}" ]; then exit 1; fi
