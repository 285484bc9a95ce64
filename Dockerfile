# retention-sync: one container, one API key, one company.
# Build:  docker build -t retention-sync .
# Run:    see README.md ("Deployment").
#
# Base image: the official node:24-slim (Node 24 LTS on Debian 12 bookworm), pinned by the digest of
# its multi-arch index as published on 2026-10-06 (Node 24.21.0). A tag moves; a digest names one
# image, so every build starts from the same base until the pin changes. Both stages use the same
# reference, so the native sqlite3 binding is compiled for the Node that runs it. Keep it current with
# Renovate or Dependabot (docker ecosystem): their digest updates bump both FROM lines together. A new
# Node major also changes engines.node (package.json) and the Node line .ci/run tests (.ci/on-node.sh).

# --- build stage: bundle the TypeScript (rolldown) and compile the native sqlite3 binding -------------------------
FROM node:24-slim@sha256:d6aa754f16b3197301076f047b5def2f02ea1dbbc2ca920407d46d7ec7f87b20 AS build
WORKDIR /app
# sqlite3 (under @keyv/sqlite) compiles from source when no prebuilt binary matches.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
# The lock file is the workspace's (packages/emulator is a workspace), so the emulator's
# package.json comes along: `npm ci` then installs exactly the lock file and links the workspace.
# (npm 10 and 11 skip a workspace whose folder is absent without a word, which would also work
# here, but `npm run build` builds the emulator package first, for the demo of a checkout.) Only the
# runtime stage is kept: it gets no packages/.
COPY package.json package-lock.json ./
COPY packages/emulator/package.json ./packages/emulator/
# --ignore-scripts: the "prepare" script would build before the sources are copied.
RUN npm ci --ignore-scripts && npm rebuild sqlite3
COPY tsconfig.json rolldown.config.ts ./
COPY packages/emulator/tsconfig.json packages/emulator/tsconfig.build.json ./packages/emulator/
COPY packages/emulator/src ./packages/emulator/src
COPY src ./src
# The image holds the daemon only: after pruning the dev dependencies, drop the workspace link
# node_modules/@retention-sync/emulator (npm prune keeps workspace links), so `emulator` and `demo`
# say that the emulator is a development tool instead of finding a dangling link.
RUN npm run build && npm prune --omit=dev && rm -rf node_modules/@retention-sync

# --- runtime stage: production dependencies and the daemon's dist/ only, non-root -------------
FROM node:24-slim@sha256:d6aa754f16b3197301076f047b5def2f02ea1dbbc2ca920407d46d7ec7f87b20
ENV NODE_ENV=production \
    RETENTION_SYNC_STATE=/var/lib/retention-sync/state.sqlite \
    OPS_PORT=9400
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY config ./config
RUN mkdir -p /var/lib/retention-sync && chown node:node /var/lib/retention-sync && chmod 700 /var/lib/retention-sync
# the "node" user (uid 1000) ships with the official image
USER node
VOLUME /var/lib/retention-sync
EXPOSE 9400
# /livez only says the process is alive; readiness (/readyz) is for orchestrators. The port follows
# OPS_PORT, as the daemon does (`docker run -e OPS_PORT=9500` moves both).
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.OPS_PORT || 9400) + '/livez').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/cli.js", "run"]
