#!/usr/bin/env bash
# Runs the Kubernetes manifests of deploy/kubernetes with `podman kube play` on this machine and
# checks that two replicas answer and share one rate limit through the Redis of redis.yaml.
#
#   npm run test:container && npm run test:kube   (the first builds localhost/budget-api:test)
#
# What podman (4.3) does not do as Kubernetes does, and how this script stands in for it:
# - Services are not run: the pods (budget-api-pod-0 and -1, the Deployment's two replicas, and
#   redis-pod-0) reach each other by name on a podman network with DNS, and the script's client
#   container talks to each replica by its pod name;
# - every containerPort would be published on all the host's addresses: the copies played here
#   declare none;
# - DATA_URL: the ConfigMap given here serves the sample drop in the image instead, and sets
#   RATE_LIMIT=5 so that the shared limit shows in six requests;
# - images: budget-api:latest is the image of the container test; where no registry answers,
#   redis:7-bookworm is stood in for by Debian bookworm's redis-server on the local base image.
set -euo pipefail
cd "$(dirname "$0")/.."

skip() { echo "kube play test skipped: $*"; exit 0; }
command -v podman >/dev/null || skip "podman is not installed"
[ "$(id -u)" = 0 ] || skip "it needs root (rootful podman)"
work=$(mktemp -d)
# shellcheck source=../scripts/container/podman-env.sh
source scripts/container/podman-env.sh
podman image exists localhost/budget-api:test || skip "no image localhost/budget-api:test: run npm run test:container first"

net=budget-kube-$$
cleanup() {
  for f in "$work"/*.play.yaml; do [ -f "$f" ] && { podman kube down "$f" >/dev/null 2>&1 || true; }; done
  podman network rm -f "$net" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "kube play test FAILED: $*" >&2; exit 1; }

podman tag localhost/budget-api:test localhost/budget-api:latest
if ! podman image exists docker.io/library/redis:7-bookworm && ! timeout 60 podman pull -q docker.io/library/redis:7-bookworm >/dev/null 2>&1; then
  printf 'FROM docker.io/library/node:24-bookworm-slim\nRUN apt-get update -qq && apt-get install -y -qq --no-install-recommends redis-server >/dev/null && rm -rf /var/lib/apt/lists/*\nUSER redis\nENTRYPOINT ["redis-server", "--bind", "0.0.0.0", "--protected-mode", "no"]\n' >"$work/Containerfile.redis"
  podman build --pull=never -q -t docker.io/library/redis:7-bookworm -f "$work/Containerfile.redis" "$work" >/dev/null
fi

# Podman 4.3 publishes every containerPort on the host's every address, one host port for all
# replicas: the copies played here declare no ports (probes name the port by number) and leave
# out the Services, which podman does not run; the pods are reached on the podman network by name.
unpublish() { awk 'BEGIN { RS = "---\n"; ORS = "---\n" } !/kind: Service/' | sed -e '/^ *ports:$/d' -e '/^ *- name: http$/d' -e '/^ *- containerPort: [0-9]*$/d' -e '/^ *containerPort: [0-9]*$/d' -e 's/port: http }/port: 3000 }/'; }
# Redis's password: the Secret is not played; its value is written in, and the API's URL names
# the Redis pod, since podman runs no Service.
secret() { sed -e 's#valueFrom: { secretKeyRef: { name: budget-api-redis, key: password } }#value: kube-play-test#' -e 's#redis://:$(REDIS_PASSWORD)@redis:6379#redis://:kube-play-test@redis-pod-0:6379#'; }
sed 's#image: budget-api:latest#image: localhost/budget-api:latest#' deploy/kubernetes/budget-api.yaml | secret | unpublish >"$work/api.play.yaml"
secret <deploy/kubernetes/redis.yaml | unpublish >"$work/redis.play.yaml"

# A run cut short (its machine restarted under it) never ran its cleanup: its pods, named as
# these, and its network would make this run fail. Only one run plays these pods at a time.
for f in "$work"/*.play.yaml; do podman kube down "$f" >/dev/null 2>&1 || true; done
for stale in $(podman network ls --format '{{.Name}}' | grep '^budget-kube-' || true); do
  [ "$stale" = "$net" ] || podman network rm -f "$stale" >/dev/null 2>&1 || true
done

# The network's subnet is podman's choice (a fixed one may be taken, on the host or by another
# network); TRUST_PROXY names it, since the client below stands in for the ingress.
podman network create "$net" >/dev/null
subnet=$(podman network inspect "$net" --format '{{range .Subnets}}{{.Subnet}}{{end}}')
[[ "$subnet" =~ ^[0-9.]+/[0-9]+$ ]] || fail "podman gave the network $net no IPv4 subnet: '$subnet'"
cat >"$work/config.yaml" <<YAML
apiVersion: v1
kind: ConfigMap
metadata: { name: budget-api }
data:
  RATE_LIMIT: "5"
  TRUST_PROXY: "$subnet"
YAML

t0=$(date +%s%3N)
podman kube play --network "$net" "$work/redis.play.yaml" >/dev/null
podman kube play --network "$net" --configmap "$work/config.yaml" "$work/api.play.yaml" >/dev/null

# A client on the same network: node in the API's own image.
client() { podman run --rm --network "$net" --health-interval=disable localhost/budget-api:test node -e "$1"; }
answers=$(client '
const replicas = ["budget-api-pod-0", "budget-api-pod-1"];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
(async () => {
  for (const host of replicas) {
    for (let i = 0; ; i++) {
      try {
        const meta = await (await fetch(`http://${host}:3000/budget/api/meta/`, { headers: { "X-Forwarded-For": "198.51.100.1" } })).json();
        if (meta.rate_limit?.redis === "connected") break;
      } catch {}
      if (i > 600) throw new Error(`${host} never became ready with Redis connected`);
      await sleep(100);
    }
  }
  const out = [];
  for (let i = 0; i < 6; i++) {
    const host = replicas[i % 2];
    const res = await fetch(`http://${host}:3000/budget/api/totals/`, { headers: { "X-Forwarded-For": "203.0.113.7" } });
    out.push(`${host} ${res.status} ${res.headers.get("ratelimit")}`);
  }
  console.log(out.join("\n"));
})().catch((e) => { console.error(e.message); process.exit(1); });
') || fail "the replicas did not answer: $answers"
echo "$answers"
ready_ms=$(( $(date +%s%3N) - t0 ))
statuses=$(awk '{print $2}' <<<"$answers" | tr '\n' ' ')
[ "$statuses" = "200 200 200 200 200 429 " ] || fail "expected five 200s then a 429 across both replicas, got: $statuses"
echo "kube play test passed: redis + 2 API replicas up and sharing one limit ${ready_ms} ms after the first kube play"
