#!/usr/bin/env bash
# Measures the server on synthetic drops: start-up (spawn -> /readyz 200), reload (SIGHUP ->
# /budget/api/meta/ shows the new version) and the server's peak RSS (VmHWM).
# Usage: npm run build && scripts/measure-reload.sh LINES [PORT]
# DATA_DIR sits below a symlink that is re-pointed (which the file watch does not see), so the
# reload measured is the SIGHUP one.
set -euo pipefail
cd "$(dirname "$0")/.."
lines=${1:?expense lines, e.g. 1000000}
port=${2:-3999}
work=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT
ms() { date +%s%3N; }
version() { curl -s "http://127.0.0.1:$port/budget/api/meta/" | grep -o '"version":"[^"]*"' | head -1 | cut -d'"' -f4; }
vm() { grep -E "^$1:" "/proc/$pid/status" | awk '{printf "%.0f MB", $2 / 1024}'; }

for seed in 1 2; do node dist/src/cli.js synth "$work/g$seed/drop" --lines "$lines" --seed "$seed" >/dev/null 2>&1; done
ln -s "$work/g1" "$work/gen"

t0=$(ms)
DATA_DIR="$work/gen/drop" RELEASES_DIR="$work/releases" PORT=$port HOST=127.0.0.1 RATE_LIMIT=0 node dist/src/server.js 2>"$work/log" &
pid=$!
until curl -sf "http://127.0.0.1:$port/readyz" >/dev/null; do sleep 0.02; done
echo "lines=$lines start-up: $(( $(ms) - t0 )) ms to /readyz 200; RSS $(vm VmRSS), peak $(vm VmHWM)"

for round in 1 2; do
  from=$(version)
  next=$([ "$round" = 1 ] && echo g2 || echo g1)
  ln -sfn "$work/$next" "$work/gen"
  t0=$(ms)
  kill -HUP "$pid"
  while [ "$(version)" = "$from" ]; do sleep 0.02; done
  echo "lines=$lines reload $round: $(( $(ms) - t0 )) ms from SIGHUP to /meta/ showing $(version); RSS $(vm VmRSS), peak $(vm VmHWM)"
done
grep -o '"msg":"data drop [a-z]*"[^}]*\|"ms":[0-9]*,"msg":"data drop [a-z]*"' "$work/log" | head -5 || true
