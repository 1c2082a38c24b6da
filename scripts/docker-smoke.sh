#!/usr/bin/env bash
# Builds the image and checks that a container answers /readyz, on the embedded store. Needs a running Docker engine.
# Usage: npm run docker:test
set -euo pipefail
cd "$(dirname "$0")/.."
if ! docker info >/dev/null 2>&1; then
  echo "No Docker engine answers here (docker info failed): the image cannot be built on this machine." >&2
  exit 2
fi
image=open-onboarding:smoke
docker build -t "$image" .
container=$(docker run -d -p 127.0.0.1::3100 -v "$PWD/demo/flows:/flows:ro" -e ONBOARDING_PUBLIC_KEYS=pk_smoke "$image")
trap 'docker rm -f "$container" >/dev/null' EXIT
port=$(docker port "$container" 3100/tcp | head -n 1 | sed 's/.*://')
for _ in $(seq 1 60); do
  if curl -fsS "http://127.0.0.1:${port}/readyz"; then
    echo
    curl -fsS -o /dev/null "http://127.0.0.1:${port}/onboarding.js" && echo "the script is served"
    echo "The image builds and answers /readyz."
    exit 0
  fi
  sleep 1
done
docker logs "$container" >&2
echo "The container did not become ready within a minute." >&2
exit 1
