# The onboarding service and its script in one small image: build with the dev tools, run with production packages only.
# docker build -t open-onboarding . && docker run -p 3100:3100 -v "$PWD/flows:/flows:ro" -e ONBOARDING_DATABASE=postgres://… open-onboarding
# npm test replays these stages without a Docker engine (test/server/dockerfile.test.ts): keep to FROM … AS, WORKDIR,
# ENV, COPY (--from= only), RUN, USER, EXPOSE, VOLUME, HEALTHCHECK and CMD.

# Packages are installed with --ignore-scripts: the package's own prepare script is the build, which needs the sources
# copied after them (and no dependency needs an install script; esbuild finds its binary without one).
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN npm run build

# Production packages in a stage of their own, so npm's cache stays out of the image.
FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production \
    ONBOARDING_HOST=0.0.0.0 \
    ONBOARDING_PORT=3100 \
    ONBOARDING_FLOWS=/flows \
    ONBOARDING_DATABASE=/data
WORKDIR /app
COPY package.json ./
COPY --from=deps /app/node_modules /app/node_modules
COPY --from=build /app/dist /app/dist
# The embedded store's data directory (when no postgres:// URL is given) and the flow folder, owned by the unprivileged user.
RUN mkdir -p /data /flows && chown node:node /data /flows
USER node
EXPOSE 3100
VOLUME ["/data"]
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.ONBOARDING_PORT||3100)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "dist/server.mjs"]
