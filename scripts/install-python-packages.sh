#!/usr/bin/env bash
# Installs the named PyPI packages (the live tests' third-party APNs clients) when python3
# cannot import them yet. Arguments: MODULE=PACKAGE pairs, e.g. aioapns=aioapns.
set -euo pipefail
command -v python3 >/dev/null || "$(dirname "$0")/install-debian-packages.sh" python3
missing=()
for pair in "$@"; do
  python3 -c "import ${pair%%=*}" 2>/dev/null || missing+=("${pair#*=}")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing Python packages: ${missing[*]}" >&2
if ! python3 -m pip --version >/dev/null 2>&1; then
  "$(dirname "$0")/install-debian-packages.sh" python3-pip
fi
# Debian's own python3 refuses system-wide pip installs unless told (PEP 668).
python3 -m pip install --quiet --disable-pip-version-check "${missing[@]}" 2>/dev/null \
  || python3 -m pip install --quiet --disable-pip-version-check --break-system-packages "${missing[@]}"
