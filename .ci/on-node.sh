#!/usr/bin/env bash
# Runs a command on another Node major than this machine's: `bash .ci/on-node.sh 24 npm test`.
#
# - Node comes from the npm registry (the official build published as `node-<os>-<arch>`, with its
#   headers), so CI needs no other download site; the newest release of the major is taken and
#   kept under node_modules/.cache/ci-node/ (gone with the next `npm ci`).
# - The native sqlite3 binding is rebuilt against that Node's headers, as the Docker build stage
#   does, and put back afterwards (also on failure): later steps and `npm test` on this machine's
#   Node find the binding `npm ci` built.
# - The command runs with that Node first on PATH, so `node`, npm's scripts and every child process
#   the tests start (the built CLI, the daemon) run on it.
set -euo pipefail
cd "$(dirname "$0")/.."

major="${1:?usage: .ci/on-node.sh <node major> <command...>}"
shift
[[ "$major" =~ ^[0-9]+$ ]] || { echo "on-node: '$major' is not a Node major version (e.g. 24)" >&2; exit 2; }
[[ $# -gt 0 ]] || { echo "on-node: no command to run on Node $major" >&2; exit 2; }

# --- Node <major> from the registry ------------------------------------------------------------
case "$(uname -s)" in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  *) echo "on-node: no registry build of Node for $(uname -s)" >&2; exit 2 ;;
esac
case "$(uname -m)" in
  x86_64 | amd64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "on-node: no registry build of Node for $(uname -m)" >&2; exit 2 ;;
esac
cache="node_modules/.cache/ci-node"
mkdir -p "$cache"
tarball="$(npm pack --silent --pack-destination "$cache" "node-$os-$arch@$major" | tail -n 1)"
nodedir="$cache/${tarball%.tgz}"
rm -rf "$nodedir" && mkdir -p "$nodedir"
tar -xzf "$cache/$tarball" -C "$nodedir" --strip-components=1
rm -f "$cache/$tarball"
nodedir="$(cd "$nodedir" && pwd)"
version="$("$nodedir/bin/node" --version)"
[[ "$version" == "v$major."* ]] || { echo "on-node: $tarball holds Node $version, not $major" >&2; exit 1; }
[[ -f "$nodedir/include/node/node_api.h" ]] || { echo "on-node: $tarball has no headers (include/node)" >&2; exit 1; }
export PATH="$nodedir/bin:$PATH"
echo "on-node: Node $version ($nodedir)"

# --- sqlite3 built for it, this machine's build restored on exit -----------------------------
sqlite3_dir="$(node -p 'require("node:path").dirname(require.resolve("sqlite3/package.json"))')"
saved="$(mktemp -d "$cache/sqlite3-build.XXXXXX")"
restore() {
  if [[ -d "$saved/build" ]]; then
    rm -rf "$sqlite3_dir/build"
    mv "$saved/build" "$sqlite3_dir/build"
  fi
  rm -rf "$saved"
}
trap restore EXIT
if [[ -d "$sqlite3_dir/build" ]]; then mv "$sqlite3_dir/build" "$saved/build"; fi
# nodedir: node-gyp compiles against these headers instead of downloading them (no other site needed).
npm_config_nodedir="$nodedir" npm rebuild sqlite3
node -e 'require("sqlite3")' || { echo "on-node: sqlite3 does not load on Node $version" >&2; exit 1; }

"$@"
