#!/bin/sh
# A fetch handler for `silentpushd --fetch-exec`: a wake hands the payload's "download" URL to
# the background session "downloads" (discretionary when the payload says
# "discretionary":true); relaunched for the session's events, it moves each file it got to
# $SILENTPUSH_KEEP (default ${TMPDIR:-/tmp}/silentpush-kept) and exits 0, which calls the
# completion handler. A file it left would be deleted when the relaunch ends.
KEEP=${SILENTPUSH_KEEP:-${TMPDIR:-/tmp}/silentpush-kept}
PAYLOAD=$(cat)
if [ "$SILENTPUSH_TASK_KIND" = urlSession ]; then
  mkdir -p "$KEEP"
  printf '%s\n' "$SILENTPUSH_FILES" | while read -r file; do
    [ -n "$file" ] && mv "$file" "$KEEP/"
  done
  exit 0
fi
URL=$(printf '%s' "$PAYLOAD" | sed -n 's/.*"download":"\([^"]*\)".*/\1/p')
DISCRETIONARY=false
case $PAYLOAD in *'"discretionary":true'*) DISCRETIONARY=true ;; esac
if [ -n "$URL" ]; then
  echo "transfer {\"session\":\"downloads\",\"url\":\"$URL\",\"discretionary\":$DISCRETIONARY}"
  echo newData
else
  echo noData
fi
