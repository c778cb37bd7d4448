#!/usr/bin/env bash
# npm run test:container — builds the Dockerfile and proves the image: it serves every endpoint
# family, passes its HEALTHCHECK, runs `budget-data validate`, picks up a drop flipped by a
# symlink in a mounted directory, and exits 0 on SIGTERM. Prints build time, image size and time
# to ready. Needs root and podman (`apt-get install podman runc`); elsewhere it skips, saying why.
# Where no registry can be reached, the base image is made locally (scripts/container/stand-in-base.sh,
# which needs mmdebstrap).
set -euo pipefail
cd "$(dirname "$0")/.."

skip() { echo "container test skipped: $*"; exit 0; }
command -v podman >/dev/null || skip "podman is not installed"
[ "$(id -u)" = 0 ] || skip "it needs root (rootful podman)"

base=docker.io/library/node:24-bookworm-slim
image=localhost/budget-api:test
name=budget-api-test-$$
work=$(mktemp -d)
cleanup() {
  podman rm -f -t 0 "$name" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "container test FAILED: $*" >&2; podman logs --tail 20 "$name" >&2 2>/dev/null || true; exit 1; }
ms() { date +%s%3N; }
# shellcheck source=container/podman-env.sh
source scripts/container/podman-env.sh
podman info >/dev/null 2>&1 || skip "podman cannot run here: $(podman info 2>&1 | tail -n 1)"

# The base image: the registry's, else a local stand-in.
if ! podman image exists "$base"; then
  if ! timeout 120 podman pull -q "$base" >/dev/null 2>&1; then
    command -v mmdebstrap >/dev/null || skip "$base cannot be pulled and mmdebstrap (to make a stand-in) is not installed"
    echo "$base cannot be pulled: making a local stand-in"
    scripts/container/stand-in-base.sh "$base"
  fi
fi

# npm ci in the build must trust the same CAs as this host (a TLS-inspecting proxy's, for one).
build_mounts=()
if [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -f "$NODE_EXTRA_CA_CERTS" ]; then
  printf 'cafile=/etc/ssl/certs/ca-certificates.crt\n' >"$work/npmrc"
  build_mounts=(-v "$NODE_EXTRA_CA_CERTS:/etc/ssl/certs/ca-certificates.crt:ro" -v "$work/npmrc:/usr/local/etc/npmrc:ro")
fi
t0=$(ms)
podman build --pull=never --format docker -q "${build_mounts[@]}" -t "$image" . >"$work/build.log" 2>&1 || { tail -n 30 "$work/build.log"; fail "the image did not build"; }
build_ms=$(( $(ms) - t0 ))
size_mb=$(( $(podman image inspect --format '{{.Size}}' "$image") / 1000000 ))

# What the image must not carry.
leftovers=$(podman run --rm --health-interval=disable "$image" sh -c 'ls -d dist/scripts data/sources 2>/dev/null; find dist -name "*.map" | head -n 3') || fail "the image does not run"
[ -z "$leftovers" ] || fail "the image carries files it does not need: $leftovers"

# Two drops in one mounted directory, `current` a relative symlink to the first.
mkdir -p "$work/drops"
cp -r data "$work/drops/g1"
rm -rf "$work/drops/g1/sources"
cp -r "$work/drops/g1" "$work/drops/g2"
sed -i 's/"version": *"[^"]*"/"version": "container-test-g2"/' "$work/drops/g2/drop.json"
ln -s g1 "$work/drops/current"
chmod -R a+rX "$work"

port=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
t0=$(ms)
# Periodic health checks need systemd's timers, which a CI machine may not have; the check itself
# is run below with `podman healthcheck run`.
podman run -d --name "$name" --health-interval=disable -p "127.0.0.1:$port:3000" -v "$work/drops:/drops:ro" -e DATA_DIR=/drops/current "$image" >/dev/null
base_url="http://127.0.0.1:$port"
for _ in $(seq 600); do curl -sf "$base_url/readyz" >/dev/null && break; sleep 0.05; done
curl -sf "$base_url/readyz" >/dev/null || fail "/readyz did not answer 200 within 30 s"
ready_ms=$(( $(ms) - t0 ))

# One answer of every endpoint family.
expect() { # PATH TEXT: the answer to PATH is a 200 that contains TEXT
  local body
  body=$(curl -sf "$base_url$1") || fail "GET $1 did not answer 200"
  grep -qF -- "$2" <<<"$body" || fail "GET $1 does not contain $2: ${body:0:200}"
}
expect /healthz '"status":"ok"'
expect / '<html'
expect /budget/api/ '"endpoints"'
expect '/budget/api/totals/?year=2025' '"year":2025'
expect '/budget/api/budget-categories/?year=2025&type=expense' '"type":"expense"'
expect '/budget/api/expenses/?year=2025&limit=1' '"count":'
expect '/budget/api/expenses/?year=2025&hierarchy=true&limit=1' '"children":'
expect '/budget/api/resources/?year=2025&limit=1' '"source":'
expect '/budget/api/organization/?limit=1' '"budget":'
expect '/budget/api/organization/stats/?year=2025' '"organization_id":'
expect '/budget/api/debt/?parent=null' '"debt_origin":'
expect '/budget/api/outstanding-debt/?year=last' '"outstanding_debt":'
expect /budget/api/deficit/ '"percent":'
expect '/budget/api/totals/?format=csv' 'year,total_expenses,total_resources,balance'
expect /budget/api/openapi.json '"openapi":"3.1'
expect /budget/api/docs/ '<html'
expect /budget/api/meta/ '"version":'

podman healthcheck run "$name" >/dev/null || fail "the HEALTHCHECK does not pass"
validated=$(podman exec "$name" budget-data validate /drops/current) || fail "budget-data validate failed in the image: $validated"
grep -q '^valid: ' <<<"$validated" || fail "budget-data validate said: $validated"

# The flip of the mounted symlink is seen by the file watch, with no signal.
ln -sfn g2 "$work/drops/current"
t0=$(ms)
for _ in $(seq 300); do curl -sf "$base_url/budget/api/meta/" | grep -q '"version":"container-test-g2"' && break; sleep 0.1; done
curl -sf "$base_url/budget/api/meta/" | grep -q '"version":"container-test-g2"' || fail "the symlink flip was not picked up within 30 s"
flip_ms=$(( $(ms) - t0 ))

t0=$(ms)
podman stop -t 15 "$name" >/dev/null
stop_ms=$(( $(ms) - t0 ))
code=$(podman inspect --format '{{.State.ExitCode}}' "$name")
[ "$code" = 0 ] || fail "exit code $code after SIGTERM"

echo "container test passed: $(podman run --rm --health-interval=disable "$image" node --version) in $image"
echo "  build ${build_ms} ms, image ${size_mb} MB, /readyz 200 ${ready_ms} ms after podman run,"
echo "  symlink flip served ${flip_ms} ms after ln -sfn, exit 0 ${stop_ms} ms after SIGTERM"
