# Sourced by the container scripts. Podman's defaults that some hosts refuse: crun on hybrid
# cgroups, and raising the open-files limit past the host's own hard limit. runc and the host's
# limits work everywhere. A CONTAINERS_CONF already set is left alone. Expects $work (a scratch
# directory) to be set.
if [ -z "${CONTAINERS_CONF:-}" ]; then
  export CONTAINERS_CONF="$work/containers.conf"
  nofile=$(ulimit -Hn)
  runtime=""
  command -v runc >/dev/null && runtime='runtime = "runc"'
  printf '[containers]\ndefault_ulimits = ["nofile=%s:%s", "nproc=4096:4096"]\n[engine]\n%s\n' "$nofile" "$nofile" "$runtime" >"$CONTAINERS_CONF"
fi
# Without systemd, podman 4 logs an error for each health-check timer it cannot make or remove;
# they are harmless (checks are run by hand), so they are kept out of the output, as is its
# complaint that a machine without syslog has none.
podman() { command podman "$@" 2> >(grep -v -e 'unable to get systemd connection' -e 'failed to connect to syslog' >&2); }
