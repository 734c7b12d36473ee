#!/usr/bin/env bash
# `make docs`: DocC for the library products through swift-docc-plugin. Fails on any warning
# or error from SilentPush's own documentation (a dependency's SwiftPM notes aside).
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
targets=(SilentPushTesting SilentPushReceiver SilentPushCore)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
args=()
for target in "${targets[@]}"; do args+=(--target "$target"); done
"$SWIFT" package generate-documentation "${args[@]}" >"$log" 2>&1 || { cat "$log" >&2; exit 1; }
problems=$(grep -E "^(warning|error):" "$log" | grep -v "swift-distributed-tracing" || true)
if [ -n "$problems" ]; then
  grep -E -A8 "^(warning|error):" "$log" | grep -v "swift-distributed-tracing" >&2
  echo "DocC: $(wc -l <<<"$problems") problem(s)" >&2
  exit 1
fi
grep -A3 -E "Generated (documentation archive|[0-9]+ documentation archives)" "$log" || true
