#!/usr/bin/env bash
# Runs a command on another Node major than this machine's: `bash .ci/on-node.sh 24 npm test`.
#
# - Node comes from the npm registry (the official build published as `node-<os>-<arch>`),
#   so CI needs no other download site; the newest release of the major is taken and
#   kept under node_modules/.cache/ci-node/ (gone with the next `npm ci`).
# - The native sqlite3 binding is the one `npm ci` built (Node-API: one binary for every line); it
#   is checked to load and answer a query before the command runs.
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
export PATH="$nodedir/bin:$PATH"
echo "on-node: Node $version ($nodedir)"

# --- sqlite3 as `npm ci` built it ----------------------------------------------------------------
# sqlite3 is a Node-API addon (package.json `binary.napi_versions`): its binary is ABI-stable across
# Node majors, so the one `npm ci` built on this machine's Node loads on any later line. Compiling
# it again for each line cost about 90 s of CI and tested the compiler, not this program.
node -e 'const s = require("sqlite3"); const db = new s.Database(":memory:"); db.all("SELECT 1", (e) => { if (e) throw e; db.close(); })' \
  || { echo "on-node: the sqlite3 binding does not load on Node $version" >&2; exit 1; }

"$@"
