#!/usr/bin/env bash
# `make test`, last step: SilentPush as another package depends on it, by version.
# Publishes this checkout (tracked files and new ones not ignored) as a commit of a git
# repository at .build-consumer/SilentPush, tagged 0.1.<seconds since the epoch> when it
# changed, then builds and tests Examples/ConsumerPackage, which depends on that URL
# `from: "0.1.0"`. SwiftPM refuses a versioned dependency with unsafe flags: this is where
# that would show.
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
origin=.build-consumer/SilentPush
consumer=Examples/ConsumerPackage

mkdir -p "$origin"
[ -d "$origin/.git" ] || git -C "$origin" init -q -b main
find "$origin" -mindepth 1 -maxdepth 1 ! -name .git -exec rm -rf {} +
git ls-files -z --cached --others --exclude-standard \
  | grep -zv "^$consumer/" \
  | while IFS= read -r -d '' file; do [ -e "$file" ] && printf '%s\0' "$file"; done \
  | tar --null -T - -cf - | tar -xf - -C "$origin"
git -C "$origin" add -A
if ! git -C "$origin" diff --cached --quiet || ! git -C "$origin" rev-parse -q --verify HEAD >/dev/null; then
  git -C "$origin" -c user.name=SilentPush -c user.email=silentpush@localhost commit -q -m "SilentPush as of $(date -u +%FT%TZ)"
  git -C "$origin" tag "0.1.$(date +%s)"
fi
echo "consumer package: SilentPush $(git -C "$origin" describe --tags) from $origin" >&2

# The newest tag: a fresh resolution, as a new user's first build. In this package's build
# folder, so that the dependencies both resolve to are built once (docs/benchmarks.md, CI's
# build steps); SilentPush's modules compile again as a dependency, and again as this
# package's own at its next build.
rm -f "$consumer/Package.resolved"
"$SWIFT" package --package-path "$consumer" --scratch-path .build update
"$SWIFT" build --package-path "$consumer" --scratch-path .build --build-tests
"$SWIFT" test --package-path "$consumer" --scratch-path .build --skip-build
