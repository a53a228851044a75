# The API, its worker and its migrations in one image: `docker build -t slotwise .`
# Node 24 runs the TypeScript sources as they are (type stripping), so nothing is compiled and the
# runtime needs no dev dependencies.
FROM node:24-bookworm-slim

# Even on its embedded database the image takes no free payments for live businesses: the
# simulated processor's test pages serve sandbox businesses only (SIMULATED_PAYMENTS).
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    DATA_DIR=/app/data \
    SIMULATED_PAYMENTS=false

WORKDIR /app

COPY package.json package-lock.json ./
# The SDK is a workspace of the lockfile: npm ci links it.
COPY packages ./packages
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

COPY migrations ./migrations
# The database's functions and triggers, applied after the migrations.
COPY db ./db
COPY src ./src
# The booking widget's source, bundled by the server when first served.
COPY widget ./widget
COPY dashboard ./dashboard

# The embedded database (without DATABASE_URL) keeps its files here; the process runs as `node`.
RUN mkdir -p /app/data && chown node:node /app/data
USER node

EXPOSE 8080

# Liveness: the process answers HTTP. Readiness (the database) is /readyz, for load balancers.
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/healthz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

# The image's own Node 24, not the `node` dev dependency `npm start` uses. `worker` and `migrate`
# are the other commands (compose.yaml runs each). The heap flags are `npm start`'s: V8's young
# generation and old-generation growth sized for a live heap of tens of MB (docs/benchmarks.md).
CMD ["node", "--max-semi-space-size=16", "--max-old-space-size=1024", "--import", "./src/tracing.ts", "src/main.ts", "serve"]
