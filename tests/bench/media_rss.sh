#!/usr/bin/env bash
# Server memory while many clients download one large image at once: starts
# `deno task start` on a temporary database and port, uploads a BYTES-byte PNG,
# then runs PAR parallel curl downloads against loopback, sampling the server's
# VmRSS every 20 ms. Needs curl, pgrep and awk.
# usage: tests/bench/media_rss.sh [repository folder=.] [parallel=30] [bytes=10000000]
set -euo pipefail
ROOT=${1:-.}
PAR=${2:-30}
BYTES=${3:-10000000}
WORK=$(mktemp -d)
PORT=$((20000 + RANDOM % 20000))
BASE=http://127.0.0.1:$PORT
export RUST_BACKTRACE=0

# A PNG header (IHDR 4000x2500), then patterned bytes up to BYTES.
deno eval "
const head = [0x89,0x50,0x4e,0x47,0x0d,0x0a,0x1a,0x0a, 0,0,0,13, 0x49,0x48,0x44,0x52, 0,0,0x0f,0xa0, 0,0,0x09,0xc4, 8,2,0,0,0, 0,0,0,0];
const b = new Uint8Array($BYTES); b.set(head);
for (let i = head.length; i < b.length; i++) b[i] = (i * 31) & 0xff;
Deno.writeFileSync('$WORK/image.png', b);"

cd "$ROOT"
DATABASE_URL="file:$WORK/quando.db" PORT=$PORT HOST=127.0.0.1 BASE_URL=$BASE \
  ADMIN_EMAIL=admin@example.org ADMIN_PASSWORD='measure-rss-password' \
  MEDIA_MAX_BYTES=20000000 BODY_LIMIT=30000000 LOG_LEVEL=warning \
  deno task start >"$WORK/server.log" 2>&1 &
TASK=$!
trap 'kill "$SERVER" 2>/dev/null || true; wait "$TASK" 2>/dev/null || true; rm -rf "$WORK"' EXIT
for _ in $(seq 1 300); do
  curl -sf "$BASE/api/health" >/dev/null 2>&1 && break
  sleep 0.1
done
SERVER=$(pgrep -P "$TASK" | head -1)
rss() { awk '/VmRSS/ {print int($2/1024)}' "/proc/$SERVER/status"; }
STARTED=$(rss)
TOKEN=$(curl -sf -H 'content-type: application/json' \
  -d '{"email":"admin@example.org","password":"measure-rss-password"}' \
  "$BASE/api/login/token" | sed -E 's/.*"access_token":"([^"]+)".*/\1/')
NAME=$(curl -sf -H "authorization: Bearer $TOKEN" -F "file=@$WORK/image.png" \
  "$BASE/api/media" | sed -E 's/.*"url":"([^"]+)".*/\1/')
UPLOADED=$(rss)
# One warm-up download, then settle.
curl -sf -o /dev/null "$BASE/media/$NAME"
sleep 2
BEFORE=$(rss)
PEAK=$BEFORE
(
  while :; do rss >>"$WORK/samples"; sleep 0.02; done
) &
SAMPLER=$!
START=$(date +%s.%N)
PIDS=()
for i in $(seq 1 "$PAR"); do
  curl -sf -o "$WORK/out.$i" "$BASE/media/$NAME" &
  PIDS+=($!)
done
wait "${PIDS[@]}" || true
END=$(date +%s.%N)
sleep 0.5
kill "$SAMPLER"
PEAK=$(sort -n "$WORK/samples" | tail -1)
AFTER=$(rss)
OK=0
for i in $(seq 1 "$PAR"); do cmp -s "$WORK/out.$i" "$WORK/image.png" && OK=$((OK + 1)); done
echo "RSS at start $STARTED MB, after the upload $UPLOADED MB"
printf 'RSS before %s MB, peak during %s parallel downloads %s MB, after %s MB; %s/%s bodies intact; %.2f s\n' \
  "$BEFORE" "$PAR" "$PEAK" "$AFTER" "$OK" "$PAR" "$(awk "BEGIN {print $END - $START}")"
