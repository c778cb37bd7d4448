# The API as one container: Node.js 24 LTS on Debian bookworm (DuckDB's prebuilt binding needs
# glibc: use a Debian-based image, not Alpine).
#
# Build: docker build -t budget-api .        (or: podman build --format docker -t budget-api .)
# Run, serving the sample drop shipped in the image:
#   docker run --rm -p 127.0.0.1:3000:3000 budget-api
# Run, serving drops published under /srv/drops, where `current` is a relative symlink
# (ln -sfn 2026-03 /srv/drops/current). Mount the parent directory, not the link: a bind mount of
# the link itself would pin its target of the moment, and the next flip would never be seen.
#   docker run --rm -p 127.0.0.1:3000:3000 -v /srv/drops:/drops:ro -e DATA_DIR=/drops/current budget-api
# Run, serving the drop published in object storage (see docs/deploying.md):
#   docker run --rm -p 127.0.0.1:3000:3000 -e DATA_URL=s3://bucket/budget/ -e AWS_REGION=eu-west-3 \
#     -e AWS_ACCESS_KEY_ID -e AWS_SECRET_ACCESS_KEY budget-api
# The analysts' tool is on the PATH:
#   docker run --rm -v /srv/drops:/drops:ro budget-api budget-data validate /drops/current
#
# The base image by tag, or pinned by digest (docs/deploying.md#the-base-image): a tag moves with
# every Node and Debian patch, a digest builds the same bytes until it is changed on purpose.
#   docker build --build-arg NODE_IMAGE=node:24-bookworm-slim@sha256:<digest> -t budget-api .
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# No install scripts: none is needed (DuckDB's and esbuild's binaries come as prebuilt optional
# packages), and swagger-ui-dist's dependency @scarf/scarf would otherwise run its telemetry one.
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json ./
COPY src ./src
COPY scripts ./scripts
COPY web ./web
# The service, its CLI and the explorer page; then no bench or build scripts, no source maps or
# type declarations, here or in the dependencies.
RUN npx tsc -p tsconfig.json --sourceMap false \
    && node dist/scripts/build-explorer.js \
    && rm -rf dist/scripts \
    && chmod +x dist/src/cli.js \
    && npm prune --omit=dev --no-audit --no-fund \
    && find node_modules \( -name '*.map' -o -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' \) -type f -delete

FROM ${NODE_IMAGE}
ENV NODE_ENV=production PORT=3000 HOST=0.0.0.0 DATA_DIR=/app/data
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist/src ./dist/src
COPY --from=build /app/dist/explorer ./dist/explorer
COPY package.json CHANGELOG.md ./
COPY sql ./sql
# The sample drop, without the source CSVs it was built from.
COPY data/*.parquet data/drop.json data/SOURCES.md ./data/
RUN ln -s /app/dist/src/cli.js /usr/local/bin/budget-data \
    && mkdir /app/releases && chown node:0 /app/releases && chmod 0770 /app/releases
# Every drop served is kept here as a release (docs/deploying.md#releases): mount a volume, so
# that permalinks outlive the container; without one, Docker makes an anonymous volume.
ENV RELEASES_DIR=/app/releases
VOLUME /app/releases
USER node
EXPOSE 3000
STOPSIGNAL SIGTERM
# Probes /readyz on the configured PORT (and HOST, when it is not a wildcard address).
HEALTHCHECK --start-period=30s --interval=30s --timeout=3s --retries=3 CMD ["node", "dist/src/healthcheck.js"]
CMD ["node", "dist/src/server.js"]
