#!/usr/bin/env bash
# h2load against nghttpd (nghttp2's own C server) and against SilentPush answering the same
# POST /3/device/<token> requests, alternating, in one run; prints requests/s, each round's
# ratios and the medians. Every request must be answered 2xx or the run fails.
#
# Two SilentPush servers are measured against the same nghttpd:
#   transport   the HTTP/2 transport alone (H2FixedResponseServer: the fixed 200 + apns-id)
#   silentpushd the receiver: APNs validation and provider-token auth of every request, then
#               the device side: the wake policy and the SQLite store (a file; 200 after commit)
# The requests are real APNs pushes: a provider token made with the openssl CLI (Apple's
# recipe), topic, push-type and priority headers and a background payload.
#
# Environment (defaults in brackets):
#   ROUNDS [5]  REQUESTS [200000]  CLIENTS [4]  STREAMS [32] (per connection)
#   THREADS [1]: worker threads of every server (--threads, nghttpd -n)
#   TLS [0]: 1 to measure over TLS (dev certificate, ALPN h2) instead of h2c
#   MIN_RATIO: if set, exit 1 when the transport's median ratio is below it
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-5} REQUESTS=${REQUESTS:-200000} CLIENTS=${CLIENTS:-4} STREAMS=${STREAMS:-32}
THREADS=${THREADS:-1} TLS=${TLS:-0}
for tool in h2load nghttpd python3 openssl; do
  command -v "$tool" >/dev/null || { echo "missing $tool: run 'make deps' (nghttp2-client, nghttp2-server)" >&2; exit 2; }
done

swift build -c release --product silentpushd >&2
swift build -c release --product H2FixedResponseServer >&2
work=$(mktemp -d)
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

token=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
mkdir -p "$work/docroot/3/device" && : > "$work/docroot/3/device/$token"
payload=payloads/background.json
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_for() { for _ in $(seq 200); do [ -s "$1" ] && return 0; sleep 0.1; done; echo "server did not start ($1)" >&2; exit 1; }

if [ "$TLS" = 1 ]; then
  scheme=https
  .build/release/silentpushd --listen 127.0.0.1:0 --listen-h2c off --threads "$THREADS" --log-level warning \
    --admin 127.0.0.1:0 --store "$work/store.sqlite" --ready-file "$work/spd.json" & pids+=($!)
  .build/release/H2FixedResponseServer "$work/transport.json" "$THREADS" tls & pids+=($!)
  nghttpd_port=$(free_port)
  nghttpd -n "$THREADS" -d "$work/docroot" "$nghttpd_port" certs/server-key.pem certs/server.pem >/dev/null 2>&1 & pids+=($!)
else
  scheme=http
  .build/release/silentpushd --listen off --listen-h2c 127.0.0.1:0 --threads "$THREADS" --log-level warning \
    --admin 127.0.0.1:0 --store "$work/store.sqlite" --ready-file "$work/spd.json" & pids+=($!)
  .build/release/H2FixedResponseServer "$work/transport.json" "$THREADS" & pids+=($!)
  nghttpd_port=$(free_port)
  nghttpd -n "$THREADS" --no-tls -d "$work/docroot" "$nghttpd_port" >/dev/null 2>&1 & pids+=($!)
fi
wait_for "$work/spd.json"
wait_for "$work/transport.json"
spd_port=$(python3 -c "import json; d=json.load(open('$work/spd.json')); print(d['tls' if '$TLS'=='1' else 'h2c'])")
transport_port=$(python3 -c "import json; print(json.load(open('$work/transport.json'))['port'])")
sleep 0.3

jwt=$(scripts/dev-provider-token.sh)
headers=(-H "authorization: bearer $jwt" -H "apns-topic: com.example.app" -H "apns-push-type: background" -H "apns-priority: 5")

# Prints requests/s; fails unless every request was answered 2xx.
measure() {
  local out
  out=$(h2load -n "$REQUESTS" -c "$CLIENTS" -m "$STREAMS" -d "$payload" "${headers[@]}" "$scheme://127.0.0.1:$1/3/device/$token")
  grep -q "status codes: $REQUESTS 2xx" <<<"$out" || { echo "not every request answered 2xx on port $1:" >&2; echo "$out" >&2; exit 1; }
  sed -n 's/^finished in .*, \([0-9.]*\) req\/s.*/\1/p' <<<"$out"
}
ratio() { python3 -c "print(f'{$1/$2:.2f}')"; }
median() { printf '%s\n' "$@" | sort -n | python3 -c 'import sys; v=[float(x) for x in sys.stdin]; print(f"{v[len(v)//2]:.2f}")'; }

echo "h2load -n $REQUESTS -c $CLIENTS -m $STREAMS over $scheme; $THREADS worker thread(s) each; $(nproc) cores"
printf '%-6s %10s %10s %10s %10s %12s\n' round nghttpd transport ratio silentpushd ratio
transport_ratios=() spd_ratios=()
for round in $(seq "$ROUNDS"); do
  # The order rotates so no server always runs first.
  case $((round % 3)) in
    1) ref=$(measure "$nghttpd_port"); tr=$(measure "$transport_port"); spd=$(measure "$spd_port") ;;
    2) tr=$(measure "$transport_port"); spd=$(measure "$spd_port"); ref=$(measure "$nghttpd_port") ;;
    0) spd=$(measure "$spd_port"); ref=$(measure "$nghttpd_port"); tr=$(measure "$transport_port") ;;
  esac
  tr_ratio=$(ratio "$tr" "$ref"); spd_ratio=$(ratio "$spd" "$ref")
  transport_ratios+=("$tr_ratio"); spd_ratios+=("$spd_ratio")
  printf '%-6s %10.0f %10.0f %10s %10.0f %12s\n' "$round" "$ref" "$tr" "$tr_ratio" "$spd" "$spd_ratio"
done
transport_median=$(median "${transport_ratios[@]}")
echo "median ratio transport/nghttpd: $transport_median"
echo "median ratio silentpushd/nghttpd: $(median "${spd_ratios[@]}")"
if [ -n "${MIN_RATIO:-}" ] && ! python3 -c "import sys; sys.exit(0 if $transport_median >= $MIN_RATIO else 1)"; then
  echo "transport below the target $MIN_RATIO" >&2; exit 1
fi
