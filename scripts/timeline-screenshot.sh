#!/usr/bin/env bash
# `make screenshot`: docs/timeline.png, the timeline after a scripted run on the manual clock
# (four devices, two apps, coalescing, Low Power Mode, a force-quit app, an injected APNs
# failure and a background task), with a waiting push's panel open.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-docs/timeline.png}
swift build --product silentpushd >&2
work=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT
cat > "$work/config.json" <<'JSON'
{"apps": {"com.example.news": {"permittedTaskIdentifiers": ["com.example.news.refresh"], "backgroundModes": ["fetch"]}}}
JSON
.build/debug/silentpushd --clock manual --store memory --listen off --listen-h2c 127.0.0.1:0 --admin 127.0.0.1:0 \
  --config "$work/config.json" --ready-file "$work/ready.json" --log-level warning & pid=$!
for _ in $(seq 100); do [ -s "$work/ready.json" ] && break; sleep 0.1; done
port() { python3 -c "import json; print(json.load(open('$work/ready.json'))['$1'])"; }
h2c=$(port h2c) admin=$(port admin)
jwt=$(scripts/dev-provider-token.sh)
push() {  # TOKEN TOPIC N
  curl -sf --http2-prior-knowledge -o /dev/null -H "authorization: bearer $jwt" -H "apns-topic: $2" \
    -H "apns-push-type: background" -H "apns-priority: 5" -H "apns-id: 00000000-0000-4000-8000-0000000000$3" \
    -d @payloads/background.json "http://127.0.0.1:$h2c/3/device/$1" || true
}
admin() { curl -sf -X "$1" -H 'content-type: application/json' ${3:+-d "$3"} "http://127.0.0.1:$admin$2" >/dev/null; }
advance() { admin POST /v1/clock/advance "{\"seconds\": $1}"; }
prefix=$(printf 'ab%.0s' $(seq 31))
a=${prefix}01 b=${prefix}02 c=c0ffee$(printf '0%.0s' $(seq 58)) d=5eed$(printf '7%.0s' $(seq 60))
admin PATCH "/v1/devices/$b" '{"lowPowerMode": true, "batteryLevel": 15}'
admin PATCH "/v1/devices/$c" '{"forceQuit": true}'
admin POST /v1/faults "{\"match\": {\"device\": \"$d\"}, \"count\": 1, \"action\": {\"reason\": \"InternalServerError\"}}"
n=10
for minute in 0 7 14 21 28 35 42; do
  push "$a" com.example.app $n; n=$((n + 1))
  (( minute % 14 == 0 )) && { push "$a" com.example.news $n; n=$((n + 1)); }
  (( minute == 7 )) && { push "$b" com.example.app $n; n=$((n + 1)); push "$c" com.example.app $n; n=$((n + 1)); }
  (( minute == 14 )) && { push "$d" com.example.app $n; n=$((n + 1)); push "$d" com.example.app $n; n=$((n + 1)); }
  (( minute == 21 )) && admin POST "/v1/devices/$a/apps/com.example.news/tasks" '{"identifier": "com.example.news.refresh", "kind": "refresh"}'
  advance 420
done
push "$b" com.example.app $n; n=$((n + 1))
push "$a" com.example.app $n
python3 Tests/timeline/browse.py "http://127.0.0.1:$admin/" --size 1280x800 \
  --expect ".push[data-apns-id=\"00000000-0000-4000-8000-0000000000$n\"]" \
  --click ".push[data-apns-id=\"00000000-0000-4000-8000-0000000000$n\"]" --expect "#panel .why" --wait 0.3 \
  --screenshot "$out" >/dev/null
echo "wrote $out"
