#!/usr/bin/env bash
# Checks deploy/ with the tools its users run, offline: `docker-compose config` on both Compose
# files (with the example env files, so every variable resolves), `kubectl kustomize` on both
# Kubernetes variants, and `promtool check rules` and `promtool test rules` on the alerting rules.
# Missing tools come from Debian with apt-get (CI runs as root): docker-compose, prometheus (for
# promtool) and kubernetes-client (Debian's kubectl). No Docker engine and no cluster are needed:
# nothing here starts a container or contacts a server. (`kubectl apply --dry-run=client` is not
# used: it asks a server for the API's schema, and Debian has no offline schema validator.)
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v docker-compose >/dev/null || missing+=(docker-compose)
command -v promtool >/dev/null || missing+=(prometheus)
command -v kubectl >/dev/null || missing+=(kubernetes-client)
if ((${#missing[@]} > 0)); then
  echo "installing ${missing[*]} (apt-get)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# --- Compose: both files, with Debian's docker-compose (1.29) and Compose v2 when present --------
export RETENTION_SYNC_ENV_FILE=retention-sync.env.example POSTGRES_ENV_FILE=postgres.env.example
for file in deploy/compose/docker-compose.yaml deploy/compose/docker-compose.ha.yaml; do
  echo "docker-compose config: $file ($(docker-compose version --short))"
  docker-compose -f "$file" config -q
  if docker compose version >/dev/null 2>&1; then
    echo "docker compose config: $file ($(docker compose version --short))"
    docker compose -f "$file" config -q
  fi
done

# --- Kubernetes: render each variant; any warning (a deprecated field) fails too -----------------
# kubectl 1.20 (Debian 12's kubernetes-client) embeds kustomize 2.0.3, which reads a base folder
# only under `bases:` (kustomize 4 and later read it under `resources:`, and warn about `bases:`).
# With it, render a copy whose `resources: - ../base` entry is moved to `bases:`; nothing else
# changes.
minor=$(kubectl version --client -o json 2>/dev/null | sed -n 's/.*"minor": *"\([0-9]*\).*/\1/p' | head -n 1)
k8s=deploy/kubernetes
if [[ -n "$minor" && "$minor" -lt 21 ]]; then
  copy=$(mktemp -d)
  trap 'rm -rf "$copy"' EXIT
  cp -r deploy/kubernetes/. "$copy"
  for variant in sqlite ha; do
    sed -i '/^  - \.\.\/base$/d; s/^resources:$/bases:\n  - ..\/base\nresources:/' "$copy/$variant/kustomization.yaml"
  done
  k8s=$copy
  echo "kubectl 1.$minor embeds kustomize 2: rendering a copy with the base under bases:"
fi
for variant in sqlite ha; do
  echo "kubectl kustomize: deploy/kubernetes/$variant"
  warnings=$(kubectl kustomize "$k8s/$variant" 2>&1 >/dev/null) || { echo "$warnings"; exit 1; }
  if [[ -n "$warnings" ]]; then
    echo "$warnings"
    exit 1
  fi
done

# --- Prometheus: the rules load, and their unit tests pass ---------------------------------------
promtool check rules deploy/monitoring/rules.yaml
(cd deploy/monitoring && promtool test rules rules.test.yaml)
