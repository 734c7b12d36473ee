#!/usr/bin/env bash
# h2load against silentpushd and against nghttpd (nghttp2's own C server) answering the same
# POST /3/device/<token> requests, alternating, in one run; prints requests/s, each round's
# ratio and the median ratio. Every request must be answered 2xx or the run fails.
#
# Environment (defaults in brackets):
#   ROUNDS [5]  REQUESTS [200000]  CLIENTS [4]  STREAMS [32] (per connection)
#   THREADS [1]: worker threads of both servers (silentpushd --threads, nghttpd -n)
#   TLS [0]: 1 to measure over TLS (both servers with the dev certificate) instead of h2c
#   MIN_RATIO: if set, exit 1 when the median ratio is below it
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-5} REQUESTS=${REQUESTS:-200000} CLIENTS=${CLIENTS:-4} STREAMS=${STREAMS:-32}
THREADS=${THREADS:-1} TLS=${TLS:-0}
for tool in h2load nghttpd python3; do
  command -v "$tool" >/dev/null || { echo "missing $tool: run 'make deps' (nghttp2-client, nghttp2-server)" >&2; exit 2; }
done

swift build -c release --product silentpushd >&2
work=$(mktemp -d)
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

token=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
mkdir -p "$work/docroot/3/device" && : > "$work/docroot/3/device/$token"
payload=payloads/background.json

if [ "$TLS" = 1 ]; then
  .build/release/silentpushd --listen 127.0.0.1:0 --listen-h2c off --threads "$THREADS" --log-level warning \
    --ready-file "$work/ready.json" & pids+=($!)
else
  .build/release/silentpushd --listen off --listen-h2c 127.0.0.1:0 --threads "$THREADS" --log-level warning \
    --ready-file "$work/ready.json" & pids+=($!)
fi
nghttpd_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
if [ "$TLS" = 1 ]; then
  nghttpd -n "$THREADS" -d "$work/docroot" "$nghttpd_port" certs/server-key.pem certs/server.pem >/dev/null 2>&1 & pids+=($!)
  scheme=https
else
  nghttpd -n "$THREADS" --no-tls -d "$work/docroot" "$nghttpd_port" >/dev/null 2>&1 & pids+=($!)
  scheme=http
fi
for _ in $(seq 100); do [ -s "$work/ready.json" ] && break; sleep 0.1; done
spd_port=$(python3 -c "import json,sys; d=json.load(open('$work/ready.json')); print(d['tls' if '$TLS'=='1' else 'h2c'])")
sleep 0.3

# Prints requests/s; fails unless every request was answered 2xx.
measure() {
  local out
  out=$(h2load -n "$REQUESTS" -c "$CLIENTS" -m "$STREAMS" -d "$payload" "$scheme://127.0.0.1:$1/3/device/$token")
  grep -q "status codes: $REQUESTS 2xx" <<<"$out" || { echo "not every request answered 2xx on port $1:" >&2; echo "$out" >&2; exit 1; }
  sed -n 's/^finished in .*, \([0-9.]*\) req\/s.*/\1/p' <<<"$out"
}

echo "h2load -n $REQUESTS -c $CLIENTS -m $STREAMS over $scheme; $THREADS worker thread(s) each; $(nproc) cores"
printf '%-6s %14s %14s %7s\n' round nghttpd silentpushd ratio
ratios=()
for round in $(seq "$ROUNDS"); do
  if [ $((round % 2)) = 1 ]; then ref=$(measure "$nghttpd_port"); ours=$(measure "$spd_port")
  else ours=$(measure "$spd_port"); ref=$(measure "$nghttpd_port"); fi
  ratio=$(python3 -c "print(f'{$ours/$ref:.2f}')")
  ratios+=("$ratio")
  printf '%-6s %14.0f %14.0f %7s\n' "$round" "$ref" "$ours" "$ratio"
done
median=$(printf '%s\n' "${ratios[@]}" | sort -n | python3 -c 'import sys; v=[float(x) for x in sys.stdin]; print(f"{v[len(v)//2]:.2f}")')
echo "median ratio silentpushd/nghttpd: $median"
if [ -n "${MIN_RATIO:-}" ] && python3 -c "import sys; sys.exit(0 if $median >= $MIN_RATIO else 1)"; then :; elif [ -n "${MIN_RATIO:-}" ]; then
  echo "below the target $MIN_RATIO" >&2; exit 1
fi
