#!/usr/bin/env bash
# `make test`, after the consumer package: the installed tool as a new user meets it.
# `make install PREFIX=$(mktemp -d)` (from make test with INSTALL_CONFIG=debug: the tests'
# build), then from / with no flags: silentpushd serves (the default ports 2197-2199, the
# development material found next to the install) and pushsend sends it a push, which the
# admin API then shows. Copies of the binaries with no material beside them stop with exit 2
# and a line naming the flags to pass. `make uninstall` removes every file. Runs from /, so
# the default store is /.silentpush (removed after unless it was there before).
set -euo pipefail
cd "$(dirname "$0")/.."
make="${MAKE:-make}"
prefix=$(mktemp -d) elsewhere=$(mktemp -d)
pid= created_store=
[ -e /.silentpush ] || created_store=1
cleanup() {
  [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null || true
  [ -n "$created_store" ] && rm -rf /.silentpush
  rm -rf "$prefix" "$elsewhere"
}
trap cleanup EXIT
fail() { echo "test-install: $*" >&2; exit 1; }

for port in 2197 2198 2199; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then fail "port $port is in use: stop what listens there (make run?) and run again"; fi
done

"$make" install PREFIX="$prefix" INSTALL_CONFIG="${INSTALL_CONFIG:-release}" SWIFT_FLAGS="${SWIFT_FLAGS:-}" >/dev/null
[ -x "$prefix/bin/silentpushd" ] && [ -x "$prefix/bin/pushsend" ] || fail "the binaries were not installed"
for file in share/man/man1/silentpushd.1 share/man/man1/pushsend.1 share/bash-completion/completions/pushsend \
  share/zsh/site-functions/_silentpushd share/silentpush/certs/ca.pem share/silentpush/payloads/background.json; do
  [ -s "$prefix/$file" ] || fail "$file was not installed"
done
version=$(cat VERSION)
(cd / && "$prefix/bin/silentpushd" --version) | grep -Eq "^silentpushd $version \(commit ([0-9a-f]{12}|unknown)\)$" || fail "silentpushd --version"
(cd / && "$prefix/bin/pushsend" --version) | grep -Eq "^pushsend $version \(commit ([0-9a-f]{12}|unknown)\)$" || fail "pushsend --version"

# From /, with no flags.
log="$elsewhere/silentpushd.log"
(cd / && exec "$prefix/bin/silentpushd") >"$log" 2>&1 & pid=$!
for _ in $(seq 100); do curl -sf http://127.0.0.1:2199/readyz >/dev/null && break; sleep 0.1; done
curl -sf http://127.0.0.1:2199/readyz >/dev/null || { cat "$log" >&2; fail "silentpushd did not become ready"; }
out=$(cd / && "$prefix/bin/pushsend") || { echo "$out" >&2; fail "pushsend with no flags failed"; }
[[ "$out" =~ ^200\ ([0-9A-F-]{36})$ ]] || fail "pushsend printed '$out', not '200 <apns-id>'"
apns_id=${BASH_REMATCH[1]}
curl -sf "http://127.0.0.1:2199/v1/pushes/$apns_id" | grep -q '"deviceToken":"0000000000000000000000000000000000000000000000000000000000000000"' \
  || fail "the admin API does not show push $apns_id"
kill -TERM "$pid"
wait "$pid" || fail "silentpushd did not exit 0 on SIGTERM"
pid=

# Copies with no material beside them (and none in the working directory) say what to pass.
cp "$prefix/bin/silentpushd" "$prefix/bin/pushsend" "$elsewhere/"
set +e
message=$(cd "$elsewhere" && ./silentpushd --store memory 2>&1); status=$?
set -e
[ "$status" -eq 2 ] || fail "silentpushd without material exited $status, not 2"
[[ "$message" == "silentpushd: the development certificate was not found (looked in "*"): pass --tls-cert and --tls-key, or --listen off" ]] \
  || fail "silentpushd without material said: $message"
set +e
message=$(cd "$elsewhere" && ./pushsend 2>&1); status=$?
set -e
[ "$status" -eq 2 ] || fail "pushsend without material exited $status, not 2"
[[ "$message" == "pushsend: the development CA was not found (looked in "*"): pass --cacert, or --insecure" ]] \
  || fail "pushsend without material said: $message"

"$make" uninstall PREFIX="$prefix" >/dev/null 2>&1
left=$(find "$prefix" -type f)
[ -z "$left" ] || fail "make uninstall left: $left"
echo "test-install: make install, silentpushd and pushsend from / with no flags, make uninstall: ok" >&2
