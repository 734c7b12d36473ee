#!/usr/bin/env bash
# `make install` / `make uninstall`: the two tools, their man pages and shell completions, and
# the development material (CA, receiver certificate, dev provider key, sample payloads) under
# PREFIX/share/silentpush, where both binaries look for it next to their own install.
#   scripts/install.sh PREFIX BUILD_DIR MANUAL_DIR     install (after a build)
#   scripts/install.sh --uninstall PREFIX              remove all of it
set -euo pipefail
cd "$(dirname "$0")/.."

tools=(silentpushd pushsend)
# Not the CA's private key (a user's machine should not mint certificates the dev CA signs),
# nor the test-only "other" CA.
certs=(README.md ca.pem server.pem server-key.pem client.pem client-key.pem client-production.pem
  AuthKey_DEVKEY0001.p8 AuthKey_DEVKEY0001.pub.pem)

files() {  # prefix -> every path install writes, one a line
  local prefix=$1
  for tool in "${tools[@]}"; do
    echo "$prefix/bin/$tool"
    echo "$prefix/share/man/man1/$tool.1"
    echo "$prefix/share/bash-completion/completions/$tool"
    echo "$prefix/share/zsh/site-functions/_$tool"
    echo "$prefix/share/fish/vendor_completions.d/$tool.fish"
  done
}

if [ "${1:-}" = "--uninstall" ]; then
  prefix=${2:?usage: scripts/install.sh --uninstall PREFIX}
  files "$prefix" | while read -r path; do rm -f "$path"; done
  rm -rf "$prefix/share/silentpush"
  echo "removed silentpushd, pushsend and $prefix/share/silentpush" >&2
  exit 0
fi

prefix=${1:?usage: scripts/install.sh PREFIX BUILD_DIR MANUAL_DIR} build=${2:?} manuals=${3:?}
share="$prefix/share/silentpush"
install -d "$prefix/bin" "$prefix/share/man/man1" "$prefix/share/bash-completion/completions" \
  "$prefix/share/zsh/site-functions" "$prefix/share/fish/vendor_completions.d" "$share/certs" "$share/payloads"
for tool in "${tools[@]}"; do
  install -m 755 "$build/$tool" "$prefix/bin/$tool"
  install -m 644 "$manuals/$tool/$tool.1" "$prefix/share/man/man1/$tool.1"
  "$build/$tool" --generate-completion-script bash > "$prefix/share/bash-completion/completions/$tool"
  "$build/$tool" --generate-completion-script zsh > "$prefix/share/zsh/site-functions/_$tool"
  "$build/$tool" --generate-completion-script fish > "$prefix/share/fish/vendor_completions.d/$tool.fish"
done
for file in "${certs[@]}"; do install -m 644 "certs/$file" "$share/certs/$file"; done
chmod 600 "$share/certs/server-key.pem" "$share/certs/client-key.pem" "$share/certs/AuthKey_DEVKEY0001.p8"
install -m 644 payloads/*.json payloads/README.md "$share/payloads/"
echo "installed $("$prefix/bin/silentpushd" --version) and $("$prefix/bin/pushsend" --version) under $prefix" >&2
