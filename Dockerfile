# syntax=docker/dockerfile:1
# Multi-stage build: compile TypeScript with the dev toolchain, ship only compiled JS and production
# dependencies on Node 24, running as the unprivileged `node` user.
#   docker build -t sor-loan-limits:1.0.0 .
#   docker run -p 8080:8080 sor-loan-limits:1.0.0                                   # the API (no Redis)
#   docker run -e REDIS_URL=redis://redis:6379 -e QUEUE_SIGNING_KEY="$KEY" sor-loan-limits:1.0.0 \
#     node dist/workers/queue.worker.js                                             # a worker
# With REDIS_URL, the API and every worker need the same QUEUE_SIGNING_KEY (KEY=$(openssl rand -hex 32)).

ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: the image already has Node 24 (the `node` devDependency would download another one).
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json tsconfig.web.json ./
COPY src ./src
COPY workers ./workers
COPY scripts ./scripts
# The service, then the page (src/web → dist/web, served at GET /).
RUN npx tsc -p tsconfig.build.json \
 && node scripts/build-web.ts \
 && npm prune --omit=dev --ignore-scripts --no-audit --no-fund

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080
WORKDIR /app
COPY --from=build --chown=root:root /app/package.json ./package.json
COPY --from=build --chown=root:root /app/node_modules ./node_modules
COPY --from=build --chown=root:root /app/dist ./dist
# Files are owned by root and read-only for the runtime user; uploads spool to the writable /tmp.
# The async jobs' folder (JOBS_DIR in docker-compose.yml): a volume mounted here keeps the user's ownership.
RUN mkdir -p /var/lib/sor/jobs && chown node:node /var/lib/sor/jobs
USER node
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# The API; workers override the command with: node dist/workers/queue.worker.js
CMD ["node", "--max-semi-space-size=2", "dist/src/server.js"]
