#!/usr/bin/env bash
# Prints an APNs provider token (JWT, ES256) made with the openssl CLI, as in Apple's
# command-line recipe: the signature is the DER that `openssl dgst -sha256 -sign` writes.
#
# Usage: scripts/dev-provider-token.sh [KEY.p8 [KEY_ID [TEAM_ID [IAT]]]]
#   defaults: the dev key certs/AuthKey_DEVKEY0001.p8, DEVKEY0001, DEVTEAM001, now
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
key=${1:-$root/certs/AuthKey_DEVKEY0001.p8}
kid=${2:-DEVKEY0001}
team=${3:-DEVTEAM001}
iat=${4:-$(date +%s)}
[ -r "$key" ] || { echo "dev-provider-token: cannot read key '$key'" >&2; exit 2; }
b64url() { openssl base64 -A | tr '+/' '-_' | tr -d '='; }
header=$(printf '{"alg":"ES256","kid":"%s"}' "$kid" | b64url)
claims=$(printf '{"iss":"%s","iat":%s}' "$team" "$iat" | b64url)
signature=$(printf '%s.%s' "$header" "$claims" | openssl dgst -sha256 -sign "$key" -binary | b64url)
printf '%s.%s.%s\n' "$header" "$claims" "$signature"
