#!/usr/bin/env bash
# Two silentpushd binaries, A and B, in alternating rounds: each round starts the binary on a
# fresh file store, pushes once to each of TOKENS devices over h2c, then reads
# `GET /v1/devices?limit=LIMIT` PAGES times (the first page, then each next one, as the
# timeline does). Prints each binary's median time a page (ms) and the median B/A ratio.
#   Benchmarks/device-listing.sh OLD_BINARY NEW_BINARY
#   ROUNDS [3]  TOKENS [100000]  LIMIT [1000]  PAGES [10]
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/h2load-figures.sh
A=$1 B=$2
ROUNDS=${ROUNDS:-3} TOKENS=${TOKENS:-100000} LIMIT=${LIMIT:-1000} PAGES=${PAGES:-10}
work=$(mktemp -d)
pid=
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
python3 -c "
import hashlib
for i in range($TOKENS): print('/3/device/' + hashlib.sha256(b'silentpush-listing-%d' % i).hexdigest())" > "$work/paths"
jwt=$(scripts/dev-provider-token.sh)
headers=(-H "authorization: bearer $jwt" -H "apns-topic: com.example.app" -H "apns-push-type: background" -H "apns-priority: 5")

run() {  # binary label -> the median ms a page
  local binary=$1 dir="$work/$2-$RANDOM"
  "$binary" --log-level warning --admin 127.0.0.1:0 --listen off --listen-h2c 127.0.0.1:0 \
    --store "$dir.sqlite" --ready-file "$dir.json" >/dev/null 2>&1 & pid=$!
  for _ in $(seq 300); do [ -s "$dir.json" ] && break; sleep 0.1; done
  local h2c admin
  h2c=$(python3 -c "import json; print(json.load(open('$dir.json'))['h2c'])")
  admin=$(python3 -c "import json; print(json.load(open('$dir.json'))['admin'])")
  sed "s|^|http://127.0.0.1:$h2c|" "$work/paths" > "$dir.uris"
  local out; out=$(h2load -n "$TOKENS" -c 4 -m 32 -d payloads/background.json "${headers[@]}" -i "$dir.uris")
  grep -q "status codes: $TOKENS 2xx" <<<"$out" || { echo "not every push answered 2xx" >&2; echo "$out" >&2; exit 1; }
  local cursor="" times=()
  for _ in $(seq "$PAGES"); do
    local url="http://127.0.0.1:$admin/v1/devices?limit=$LIMIT${cursor:+&cursor=$cursor}"
    local seconds; seconds=$(curl -sS -o "$dir.page" -w '%{time_total}' "$url")
    times+=("$(python3 -c "print($seconds * 1000)")")
    cursor=$(python3 -c "import json; print(json.load(open('$dir.page'))['next'] or '')")
    [ -n "$cursor" ] || break
  done
  kill -TERM "$pid"; wait "$pid" 2>/dev/null || true; pid=
  median "${times[@]}"
}

printf '%-6s %10s %10s %8s\n' round A_ms B_ms ratio
ratios=()
for round in $(seq "$ROUNDS"); do
  if (( round % 2 )); then a=$(run "$A" a); b=$(run "$B" b); else b=$(run "$B" b); a=$(run "$A" a); fi
  ratios+=("$(ratio "$b" "$a")")
  printf '%-6s %10s %10s %8s\n' "$round" "$a" "$b" "${ratios[-1]}"
done
echo "median B/A, ms a page: $(median "${ratios[@]}")"
