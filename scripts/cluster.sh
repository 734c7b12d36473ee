#!/usr/bin/env bash
# Starts a SilentPush cluster on loopback (`make cluster`): a PostgreSQL server, RECEIVERS
# silentpushd receivers sharing it with SHARDS shards, and HAProxy in front of them:
#   127.0.0.1:${APNS_PORT:-2197}  APNs over TLS (ALPN h2, the development certificate)
#   127.0.0.1:${H2C_PORT:-2198}   APNs over cleartext HTTP/2 (prior knowledge)
#   127.0.0.1:${ADMIN_PORT:-2199} the admin API
#   127.0.0.1:${CHANNELS_PORT:-2195} the channel-management API over TLS (h2c: ${CHANNELS_H2C_PORT:-2196})
# Each push goes to the receiver that owns its device's shard (crc32 of the lower-cased
# token, mod SHARDS), found by a health check per shard on /v1/cluster/shards/N.
# Ctrl-C (or SIGTERM) stops it all. See docs/cluster.md.
#
# Settings (environment): RECEIVERS (3), SHARDS (8), CLAIM_INTERVAL (2s), STORE (a
# postgres:// URL to use instead of a throwaway server), SILENTPUSHD (.build/debug/silentpushd),
# CERTS (certs), ARGS (more silentpushd flags, e.g. "--clock manual"), WORKDIR (where the
# logs and haproxy.cfg go: kept when given; else a new temporary directory, removed at the end
# unless KEEP_WORKDIR is set), READY_FILE (written with the ports once all is up).
set -euo pipefail

RECEIVERS=${RECEIVERS:-3}
SHARDS=${SHARDS:-8}
CLAIM_INTERVAL=${CLAIM_INTERVAL:-2s}
APNS_PORT=${APNS_PORT:-2197}
H2C_PORT=${H2C_PORT:-2198}
ADMIN_PORT=${ADMIN_PORT:-2199}
CHANNELS_PORT=${CHANNELS_PORT:-2195}
CHANNELS_H2C_PORT=${CHANNELS_H2C_PORT:-2196}
SILENTPUSHD=${SILENTPUSHD:-.build/debug/silentpushd}
CERTS=${CERTS:-certs}
ARGS=${ARGS:-}

fail() { echo "cluster.sh: $*" >&2; exit 2; }

[[ "$RECEIVERS" =~ ^[0-9]+$ ]] && ((RECEIVERS >= 1 && RECEIVERS <= 32)) || fail "RECEIVERS must be from 1 to 32"
[[ "$SHARDS" =~ ^[0-9]+$ ]] && ((SHARDS >= 1 && SHARDS <= 1024)) || fail "SHARDS must be from 1 to 1024"
[ -x "$SILENTPUSHD" ] || fail "no silentpushd at $SILENTPUSHD (run make cluster, or set SILENTPUSHD)"
command -v haproxy >/dev/null || fail "haproxy is not installed (apt-get install haproxy)"
[ -f "$CERTS/server.pem" ] && [ -f "$CERTS/server-key.pem" ] || fail "no development certificate in $CERTS (make certs)"

# A directory given in WORKDIR is the caller's and stays; the one made here goes at the end
# unless KEEP_WORKDIR is set.
OWN_WORKDIR=""
if [ -z "${WORKDIR:-}" ]; then
    WORKDIR=$(mktemp -d "${TMPDIR:-/tmp}/silentpush-cluster.XXXXXX")
    [ -n "${KEEP_WORKDIR:-}" ] || OWN_WORKDIR=$WORKDIR
fi
mkdir -p "$WORKDIR"
PIDS=()
PG_DATA=""
PG_RUN=()

stop() {
    trap - INT TERM EXIT
    set +e  # every step of the clean-up runs, whatever one of them answers
    # The proxy first (no new pushes), then the receivers (each drains), at most 35 s.
    for pid in $(printf '%s\n' "${PIDS[@]}" | tac); do kill -TERM "$pid" 2>/dev/null || true; done
    for _ in $(seq 1 350); do
        alive=0
        for pid in "${PIDS[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
        ((alive)) || break
        sleep 0.1
    done
    for pid in "${PIDS[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
    if [ -n "$PG_DATA" ]; then "${PG_RUN[@]}" "$PG_BIN/pg_ctl" -D "$PG_DATA" -m fast -w stop >/dev/null 2>&1 || true; fi
    [ -z "$OWN_WORKDIR" ] || rm -rf "$OWN_WORKDIR"
}
# A signal stops everything and ends the script (it is not a HAProxy failure to report).
trap 'stop; exit 130' INT
trap 'stop; exit 143' TERM
trap stop EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# PostgreSQL: the one given, or a throwaway server (run as `postgres` when root: initdb refuses root).
if [ -n "${STORE:-}" ]; then
    URL=$STORE
else
    PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
    [ -n "$PG_BIN" ] || PG_BIN=$(dirname "$(command -v initdb || fail "PostgreSQL is not installed (apt-get install postgresql)")")
    PG_PORT=$(free_port)
    PG_DATA=$WORKDIR/postgres
    mkdir -p "$PG_DATA"
    if [ "$(id -u)" = 0 ]; then
        chown postgres:postgres "$WORKDIR" "$PG_DATA"
        PG_RUN=(runuser -u postgres --)
    else
        PG_RUN=(env)
    fi
    "${PG_RUN[@]}" "$PG_BIN/initdb" -D "$PG_DATA" -U silentpush --auth=trust >"$WORKDIR/initdb.log" 2>&1 || fail "initdb failed: $(tail -3 "$WORKDIR/initdb.log")"
    "${PG_RUN[@]}" "$PG_BIN/pg_ctl" -D "$PG_DATA" -l "$PG_DATA/log" -w -o "-p $PG_PORT -k $PG_DATA -c listen_addresses=127.0.0.1" start >/dev/null \
        || fail "PostgreSQL did not start: $(tail -3 "$PG_DATA/log")"
    "${PG_RUN[@]}" "$PG_BIN/createdb" -h 127.0.0.1 -p "$PG_PORT" -U silentpush silentpush
    URL=postgres://silentpush@127.0.0.1:$PG_PORT/silentpush
fi

# The receivers: h2c and admin on free ports, read back from their ready files.
for i in $(seq 1 "$RECEIVERS"); do
    # shellcheck disable=SC2086 # ARGS is a list of flags
    "$SILENTPUSHD" --listen off --listen-h2c 127.0.0.1:0 --listen-channels-h2c 127.0.0.1:0 --admin 127.0.0.1:0 --ready-file "$WORKDIR/r$i.json" \
        --store "$URL" --cluster-shards "$SHARDS" --cluster-claim-interval "$CLAIM_INTERVAL" --cluster-name "r$i" \
        $ARGS >"$WORKDIR/r$i.log" 2>&1 &
    PIDS+=($!)
    echo $! >"$WORKDIR/r$i.pid"
done
for i in $(seq 1 "$RECEIVERS"); do
    for _ in $(seq 1 300); do
        [ -s "$WORKDIR/r$i.json" ] && break
        kill -0 "${PIDS[$((i - 1))]}" 2>/dev/null || fail "receiver r$i stopped: $(tail -1 "$WORKDIR/r$i.log")"
        sleep 0.1
    done
    [ -s "$WORKDIR/r$i.json" ] || fail "receiver r$i did not start within 30 s: $(tail -1 "$WORKDIR/r$i.log")"
done
port_of() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$WORKDIR/r$1.json" "$2"; }

# HAProxy's configuration: a backend per shard (for pushes, and for device-scoped admin
# routes), each listing every receiver, health-checked on /v1/cluster/shards/N so that only
# the owner is up.
cat "$CERTS/server.pem" "$CERTS/server-key.pem" >"$WORKDIR/front.pem"
printf 'HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n{"reason":"ServiceUnavailable"}\n' >"$WORKDIR/503.http"
# A receiver that closed the connection without an answer, or never answered: APNs has no 502
# or 504, and answers its own failures 500 InternalServerError, which clients try again.
printf 'HTTP/1.1 500 Internal Server Error\r\ncontent-type: application/json\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n{"reason":"InternalServerError"}\n' >"$WORKDIR/500.http"
# The admin API's errors are problem documents (RFC 9457), the proxy's own too.
printf 'HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/problem+json\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n{"type":"about:blank","title":"Service Unavailable","status":503,"detail":"no receiver serves this now (a receiver stopped: another takes its devices within a claim interval or two); try again"}\n' >"$WORKDIR/503-admin.http"
printf 'HTTP/1.1 502 Bad Gateway\r\ncontent-type: application/problem+json\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n{"type":"about:blank","title":"Bad Gateway","status":502,"detail":"the receiver closed the connection without an answer (it stopped?); try again"}\n' >"$WORKDIR/502-admin.http"
printf 'HTTP/1.1 504 Gateway Timeout\r\ncontent-type: application/problem+json\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n{"type":"about:blank","title":"Gateway Timeout","status":504,"detail":"the receiver did not answer within 120 s (HAProxy'"'"'s timeout server)"}\n' >"$WORKDIR/504-admin.http"
CONFIG=$WORKDIR/haproxy.cfg
{
    cat <<EOF
global
    maxconn 4000
    stats socket $WORKDIR/haproxy.sock mode 600 level user

defaults
    mode http
    # A receiver killed: a request on its way is tried again after min(timeout connect, 1 s),
    # at most twice, and sent to another server of the backend (the shard's new owner, once
    # its check passes), then answered 503: about a second, not three (HAProxy's defaults).
    timeout connect 500ms
    retries 2
    option redispatch 1
    timeout client 120s
    timeout server 120s
    timeout check 1s
    errorfile 503 $WORKDIR/503.http
    errorfile 502 $WORKDIR/500.http
    errorfile 504 $WORKDIR/500.http
    # A receiver's connection is one client's, as at APNs: its token updates count per connection.
    http-reuse never

frontend apns
    bind 127.0.0.1:$APNS_PORT ssl crt $WORKDIR/front.pem alpn h2
    bind 127.0.0.1:$H2C_PORT proto h2
    use_backend shard%[path,field(4,/),lower,crc32,mod($SHARDS)] if { path_beg /3/device/ }
    default_backend apns-any
    # The proxy's own 503 and 500 have an apns-id, as every APNs answer does: the request's
    # when it carried one (APNs echoes it), else a new one.
    http-request set-var(txn.apns_id) req.hdr(apns-id) if { req.hdr(apns-id) -m found }
    http-after-response set-header apns-id %[var(txn.apns_id)] if { status 500 503 } !{ res.hdr(apns-id) -m found } { var(txn.apns_id) -m found }
    http-after-response set-header apns-id %[uuid(4)] if { status 500 503 } !{ res.hdr(apns-id) -m found }

# Channels and broadcasts reach every receiver's devices from any receiver.
frontend channels
    bind 127.0.0.1:$CHANNELS_PORT ssl crt $WORKDIR/front.pem alpn h2
    bind 127.0.0.1:$CHANNELS_H2C_PORT proto h2
    default_backend channels-any

frontend admin
    bind 127.0.0.1:$ADMIN_PORT
    use_backend admin%[path,field(4,/),lower,crc32,mod($SHARDS)] if { path_reg ^/v1/devices/[^/]+ }
    default_backend admin-any

backend apns-any
    balance roundrobin
    option httpchk
    http-check send meth GET uri /readyz ver HTTP/1.1 hdr host 127.0.0.1
EOF
    for i in $(seq 1 "$RECEIVERS"); do
        echo "    server r$i 127.0.0.1:$(port_of "$i" h2c) proto h2 check port $(port_of "$i" admin) check-proto h1 inter 1s fall 1 rise 1"
    done
    printf '\nbackend channels-any\n    balance roundrobin\n    option httpchk\n    http-check send meth GET uri /readyz ver HTTP/1.1 hdr host 127.0.0.1\n'
    for i in $(seq 1 "$RECEIVERS"); do
        echo "    server r$i 127.0.0.1:$(port_of "$i" channels-h2c) proto h2 check port $(port_of "$i" admin) check-proto h1 inter 1s fall 1 rise 1"
    done
    printf '\nbackend admin-any\n    balance roundrobin\n    errorfile 503 %s\n    errorfile 502 %s\n    errorfile 504 %s\n    option httpchk\n    http-check send meth GET uri /healthz ver HTTP/1.1 hdr host 127.0.0.1\n' \
        "$WORKDIR/503-admin.http" "$WORKDIR/502-admin.http" "$WORKDIR/504-admin.http"
    for i in $(seq 1 "$RECEIVERS"); do
        echo "    server r$i 127.0.0.1:$(port_of "$i" admin) check inter 1s fall 1 rise 1"
    done
    for shard in $(seq 0 $((SHARDS - 1))); do
        for kind in shard admin; do
            printf '\nbackend %s%s\n    option httpchk\n' "$kind" "$shard"
            [ "$kind" = shard ] || printf '    errorfile 503 %s\n    errorfile 502 %s\n    errorfile 504 %s\n' \
                "$WORKDIR/503-admin.http" "$WORKDIR/502-admin.http" "$WORKDIR/504-admin.http"
            printf '    http-check send meth GET uri /v1/cluster/shards/%s ver HTTP/1.1 hdr host 127.0.0.1\n' "$shard"
            for i in $(seq 1 "$RECEIVERS"); do
                admin=$(port_of "$i" admin)
                if [ "$kind" = shard ]; then
                    echo "    server r$i 127.0.0.1:$(port_of "$i" h2c) proto h2 check port $admin check-proto h1 inter 1s fall 1 rise 1"
                else
                    echo "    server r$i 127.0.0.1:$admin check inter 1s fall 1 rise 1"
                fi
            done
        done
    done
} >"$CONFIG"
haproxy -c -q -f "$CONFIG" || fail "HAProxy refused the generated configuration ($CONFIG)"
haproxy -db -f "$CONFIG" >"$WORKDIR/haproxy.log" 2>&1 &
HAPROXY=$!
PIDS+=("$HAPROXY")
sleep 0.3
kill -0 "$HAPROXY" 2>/dev/null || fail "HAProxy did not start: $(tail -1 "$WORKDIR/haproxy.log")"

# Up once HAProxy sees an owner up in every shard's backend.
shards_up() {
    python3 - "$WORKDIR/haproxy.sock" "$SHARDS" <<'PY' 2>/dev/null || echo 0
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(b"show stat\n")
data = b""
while chunk := s.recv(65536):
    data += chunk
# A server counts as up from HAProxy's start until its first check: a shard is served once
# exactly one of its servers (its owner) is up.
up = {}
for fields in (line.split(",") for line in data.decode().splitlines()):
    if len(fields) > 17 and fields[1] not in ("FRONTEND", "BACKEND") and fields[17] == "UP":
        up[fields[0]] = up.get(fields[0], 0) + 1
print(sum(up.get(f"shard{n}") == 1 for n in range(int(sys.argv[2]))))
PY
}
owned=0
for _ in $(seq 1 150); do
    owned=$(shards_up)
    [ "$owned" = "$SHARDS" ] && break
    sleep 0.2
done
# The store as logs and the ready file may show it: no password, in the user part or the query.
shown=$(printf '%s' "$URL" | sed -E 's#(://[^:/@]*):.*@#\1:***@#; s#(@[^?]*)\?.*#\1?…#; s#(://[^@?]*)\?.*#\1?…#')
if [ -n "${READY_FILE:-}" ]; then
    printf '{"tls":%s,"h2c":%s,"admin":%s,"channels":%s,"channelsH2c":%s,"receivers":%s,"workdir":"%s","store":"%s"}\n' \
        "$APNS_PORT" "$H2C_PORT" "$ADMIN_PORT" "$CHANNELS_PORT" "$CHANNELS_H2C_PORT" "$RECEIVERS" "$WORKDIR" "$shown" >"$READY_FILE.tmp"
    mv "$READY_FILE.tmp" "$READY_FILE"
fi
echo "SilentPush cluster: $RECEIVERS receivers, $SHARDS shards ($owned served), store $shown"
echo "  APNs: https://127.0.0.1:$APNS_PORT (h2c: $H2C_PORT)   admin: http://127.0.0.1:$ADMIN_PORT/v1/cluster"
echo "  channels: https://127.0.0.1:$CHANNELS_PORT (h2c: $CHANNELS_H2C_PORT)"
echo "  logs and configuration: $WORKDIR   (Ctrl-C stops it all)"
# A receiver may die (that is what the cluster is for); the proxy may not.
wait "$HAPROXY" || true
echo "cluster.sh: HAProxy stopped ($(tail -1 "$WORKDIR/haproxy.log")); stopping the rest" >&2
