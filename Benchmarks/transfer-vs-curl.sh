#!/usr/bin/env bash
# A background transfer's overhead against a plain curl of the same file, in one run: the
# origin is Tests/origin/origin_server.py on loopback serving SIZE bytes; each round times
# `curl -o FILE` and then a transfer that silentpushd's device runs for a wake (handed over
# by scripts/examples/background-transfer.sh), from hand-over to done as the device recorded
# them (the system clock, to the millisecond). Prints each round, the median ratio
# transfer/curl, and the receiver's resident memory idle and at its peak during the transfers.
#   Benchmarks/transfer-vs-curl.sh [SILENTPUSHD]     (default .build/release/silentpushd)
#   ROUNDS [5]  SIZE [52428800]
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${1:-.build/release/silentpushd}
ROUNDS=${ROUNDS:-5} SIZE=${SIZE:-52428800}
work=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"' EXIT
python3 Tests/origin/origin_server.py "$work/origin.port" "$work" & pids+=($!)
for _ in $(seq 100); do [ -s "$work/origin.port" ] && break; sleep 0.1; done
url="http://127.0.0.1:$(cat "$work/origin.port")/blob/$SIZE"
mkdir -p "$work/kept"
SILENTPUSH_KEEP="$work/kept" "$binary" --log-level warning --store memory --profile debugger --listen off \
  --listen-h2c 127.0.0.1:0 --admin 127.0.0.1:0 --ready-file "$work/ready.json" \
  --fetch-exec 'sh scripts/examples/background-transfer.sh' >/dev/null 2>&1 & spd=$!; pids+=($spd)
for _ in $(seq 300); do [ -s "$work/ready.json" ] && break; sleep 0.1; done
port=$(python3 -c "import json; print(json.load(open('$work/ready.json'))['h2c'])")
admin=$(python3 -c "import json; print(json.load(open('$work/ready.json'))['admin'])")
jwt=$(scripts/dev-provider-token.sh)
rss() { awk '/^VmRSS/ {print $2}' /proc/"$spd"/status; }
sleep 0.5
idle=$(rss) peak=$idle
ratios=()
for round in $(seq "$ROUNDS"); do
  start=$(date +%s%N)
  curl -s -o "$work/curl.bin" "$url"
  curl_ms=$(( ($(date +%s%N) - start) / 1000000 ))
  token=$(printf '%064x' "$round")
  curl -s --http2-prior-knowledge -H "authorization: bearer $jwt" -H 'apns-topic: com.example.app' \
    -H 'apns-push-type: background' -H 'apns-priority: 5' \
    -d "{\"aps\":{\"content-available\":1},\"download\":\"$url\"}" "http://127.0.0.1:$port/3/device/$token"
  until curl -s "http://127.0.0.1:$admin/v1/transfers?device=$token" | grep -q '"file":"'; do
    r=$(rss); [ "$r" -gt "$peak" ] && peak=$r; sleep 0.02
  done
  transfer_ms=$(curl -s "http://127.0.0.1:$admin/v1/transfers?device=$token" | python3 -c "
import json, sys
from datetime import datetime
t = json.load(sys.stdin)['transfers'][0]
assert t['state'] == 'done' and t['bytes'] == $SIZE, t
p = lambda s: datetime.fromisoformat(s.replace('Z', '+00:00'))
print(round((p(t['finishedAt']) - p(t['handedOverAt'])).total_seconds() * 1000))")
  ratio=$(python3 -c "print(f'{$transfer_ms / max($curl_ms, 1):.2f}')")
  ratios+=("$ratio")
  echo "round $round: curl ${curl_ms} ms, transfer ${transfer_ms} ms, ratio $ratio"
  rm -f "$work/kept"/*
done
median=$(printf '%s\n' "${ratios[@]}" | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}')
echo "median transfer/curl: $median"
echo "RSS: idle $((idle / 1024)) MB, peak $((peak / 1024)) MB during the transfers (+$(( (peak - idle) / 1024 )) MB)"
