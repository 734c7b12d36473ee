#!/usr/bin/env bash
# Makes SilentPush's development TLS and provider-token material with the openssl CLI.
#
# FOR LOCAL TESTING ONLY. Every private key here is public (it is committed to the
# repository): never trust this CA outside a test, never use these keys for real pushes.
#
# Usage: certs/make-dev-certs.sh [DIR]   (default: the directory of this script)
set -euo pipefail
dir=${1:-$(cd "$(dirname "$0")" && pwd)}
cd "$dir"
days=3650
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ec_key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }

# A CA for the receiver's server certificate and for client certificates.
ec_key ca-key.pem
openssl req -x509 -new -key ca-key.pem -sha256 -days $days -out ca.pem \
  -subj "/O=SilentPush Dev (TESTING ONLY)/CN=SilentPush Dev CA" \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign"

# The server certificate: localhost, 127.0.0.1 and ::1.
ec_key server-key.pem
cat > "$tmp/server.cnf" <<'CNF'
[ext]
basicConstraints = CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = DNS:localhost, IP:127.0.0.1, IP:::1
CNF
openssl req -new -key server-key.pem -subj "/O=SilentPush Dev (TESTING ONLY)/CN=localhost" -out "$tmp/server.csr"
openssl x509 -req -in "$tmp/server.csr" -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days $days -sha256 \
  -extfile "$tmp/server.cnf" -extensions ext -out server.pem 2>/dev/null

# A provider client certificate, as Apple issues them: subject UID = the bundle id, and the
# Apple topic extension (1.2.840.113635.100.6.3.6) listing each topic with its push types.
cat > "$tmp/client.cnf" <<'CNF'
[ext]
basicConstraints = CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = clientAuth
1.2.840.113635.100.6.3.6 = ASN1:SEQUENCE:apple_topics
[apple_topics]
topic0 = UTF8:com.example.app
types0 = SEQUENCE:types_app
topic1 = UTF8:com.example.app.voip
types1 = SEQUENCE:types_voip
topic2 = UTF8:com.example.app.complication
types2 = SEQUENCE:types_complication
[types_app]
type0 = UTF8:app
[types_voip]
type0 = UTF8:voip
[types_complication]
type0 = UTF8:complication
CNF
client_subject="/UID=com.example.app/CN=Apple Push Services: com.example.app/OU=DEVTEAM001/O=SilentPush Dev (TESTING ONLY)/C=US"
ec_key client-key.pem
openssl req -new -key client-key.pem -subj "$client_subject" -out "$tmp/client.csr"
openssl x509 -req -in "$tmp/client.csr" -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days $days -sha256 \
  -extfile "$tmp/client.cnf" -extensions ext -out client.pem 2>/dev/null

# The same client marked as a production certificate (Apple's extension 1.2.840.113635.100.6.3.2):
# a sandbox receiver answers it 403 BadCertificateEnvironment.
make_production_client() {
  cat "$tmp/client.cnf" > "$tmp/client-production.cnf"
  sed -i 's/^extendedKeyUsage = clientAuth$/extendedKeyUsage = clientAuth\n1.2.840.113635.100.6.3.2 = ASN1:NULL/' "$tmp/client-production.cnf"
  openssl req -new -key client-key.pem -subj "$client_subject" -out "$tmp/client-production.csr"
  openssl x509 -req -in "$tmp/client-production.csr" -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days $days -sha256 \
    -extfile "$tmp/client-production.cnf" -extensions ext -out client-production.pem 2>/dev/null
}
make_production_client

# Another CA and a client certificate from it: what a receiver with --client-ca ca.pem refuses.
ec_key other-ca-key.pem
openssl req -x509 -new -key other-ca-key.pem -sha256 -days $days -out other-ca.pem \
  -subj "/O=SilentPush Dev (TESTING ONLY)/CN=SilentPush Other CA" \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign"
ec_key other-client-key.pem
openssl req -new -key other-client-key.pem -subj "$client_subject" -out "$tmp/other.csr"
openssl x509 -req -in "$tmp/other.csr" -CA other-ca.pem -CAkey other-ca-key.pem -CAcreateserial -days $days -sha256 \
  -extfile "$tmp/client.cnf" -extensions ext -out other-client.pem 2>/dev/null

# An intermediate CA under the dev CA, and the same client issued by it (as Apple's WWDR
# intermediate issues push certificates): a receiver given only the intermediate as
# --client-ca trusts it.
ec_key intermediate-ca-key.pem
openssl req -new -key intermediate-ca-key.pem -subj "/O=SilentPush Dev (TESTING ONLY)/CN=SilentPush Dev Intermediate CA" \
  -out "$tmp/intermediate.csr"
printf '[ext]\nbasicConstraints = critical, CA:TRUE, pathlen:0\nkeyUsage = critical, keyCertSign, cRLSign\n' > "$tmp/intermediate.cnf"
openssl x509 -req -in "$tmp/intermediate.csr" -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days $days -sha256 \
  -extfile "$tmp/intermediate.cnf" -extensions ext -out intermediate-ca.pem 2>/dev/null
openssl req -new -key client-key.pem -subj "$client_subject" -out "$tmp/intermediate-client.csr"
openssl x509 -req -in "$tmp/intermediate-client.csr" -CA intermediate-ca.pem -CAkey intermediate-ca-key.pem -CAcreateserial \
  -days $days -sha256 -extfile "$tmp/client.cnf" -extensions ext -out intermediate-client.pem 2>/dev/null

# The provider-token signing key, as Apple hands it out: PKCS#8 PEM, EC P-256.
# Key id DEVKEY0001, team id DEVTEAM001.
ec_key AuthKey_DEVKEY0001.p8
openssl pkey -in AuthKey_DEVKEY0001.p8 -pubout -out AuthKey_DEVKEY0001.pub.pem

rm -f ./*.srl
echo "development material written to $dir (TESTING ONLY)"
