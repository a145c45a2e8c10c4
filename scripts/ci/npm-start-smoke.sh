#!/usr/bin/env bash
# The README's run command on its embedded default, as a newcomer runs it: `npm start` with no
# DATABASE_URL and no REDIS_URL, a fresh data directory and a free port. Passes when the printed
# demo key reads /api/v1/workspace and SIGTERM then ends npm start with exit 0 and the embedded
# PostgreSQL stopped. Whatever happens, nothing it started outlives it.
set -euo pipefail
cd "$(dirname "$0")/../.."

START_DEADLINE_S=${START_DEADLINE_S:-300} # build check, initdb, migrations and the demo seed
STOP_DEADLINE_S=${STOP_DEADLINE_S:-40}    # SHUTDOWN_TIMEOUT_MS (25 s) plus closing the pool and PostgreSQL

dir=$(mktemp -d)
# mktemp makes it 0700; as root the embedded server runs as `postgres`, which must reach data/.
chmod 711 "$dir"
out="$dir/npm-start.log"
pid=""
cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
  fi
  # A server left behind by a failed start must not outlive the run.
  if [ -f "$dir/data/postgres/postmaster.pid" ]; then
    kill -INT "$(head -n1 "$dir/data/postgres/postmaster.pid")" 2>/dev/null || true
    sleep 1
  fi
  rm -rf "$dir"
}
trap cleanup EXIT
fail() { echo "$1"; tail -n 40 "$out"; exit 1; }

# Its own process group (setsid), so that cleanup after a failure reaches npm and its children.
env -u DATABASE_URL -u REDIS_URL OFFERDESK_DATA_DIR="$dir/data" PORT=0 setsid npm start >"$out" 2>&1 &
pid=$!
deadline=$((SECONDS + START_DEADLINE_S))
key="" base=""
while [ -z "$key" ] || [ -z "$base" ]; do
  kill -0 "$pid" 2>/dev/null || fail "npm start exited before it was ready:"
  [ $SECONDS -le $deadline ] || fail "npm start printed no demo key within ${START_DEADLINE_S}s:"
  sleep 0.2
  key=$(sed -n -E 's/^ *demo API key: (odk_live_[0-9A-Za-z]+).*/\1/p' "$out" | head -n1)
  base=$(sed -n -E 's#^Offerdesk API listening on (http://[^ ]+/api/v1).*#\1#p' "$out" | head -n1)
done
echo "npm start is up: $base (demo key ${key:0:13}...)"
grep -E '^ *curl ' "$out" || fail "no curl line printed"

status=$(curl -sS -o "$dir/workspace.json" -w '%{http_code}' -H "Authorization: Bearer $key" "$base/workspace")
echo "GET $base/workspace -> $status $(cat "$dir/workspace.json")"
[ "$status" = 200 ] || fail "not 200:"
node -e '
  const body = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  if (typeof body?.data?.id !== "string") { console.error("no data.id in the body"); process.exit(1); }
' "$dir/workspace.json"

kill -TERM "$pid"
deadline=$((SECONDS + STOP_DEADLINE_S))
while kill -0 "$pid" 2>/dev/null; do
  [ $SECONDS -le $deadline ] || fail "npm start did not exit within ${STOP_DEADLINE_S}s of SIGTERM:"
  sleep 0.1
done
rc=0
wait "$pid" || rc=$?
pid=""
echo "npm start exited with $rc after SIGTERM"
[ "$rc" = 0 ] || fail "not 0:"
[ ! -f "$dir/data/postgres/postmaster.pid" ] || fail "the embedded PostgreSQL is still running after shutdown"
