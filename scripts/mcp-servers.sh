#!/usr/bin/env sh
# Installs the MCP reference servers the tests run (published on the npm
# registry, written by the MCP project, not here) into a git-ignored cache.
# Pinned versions, so a test run does not change under us; a second run
# with everything in place does nothing. Without npm or the registry it says so in one line and exits 0:
# the tests that need the servers then skip with that message.
set -eu
dir=${1:-.cache/mcp-servers}
everything=2026.8.31
filesystem=2026.8.31
stamp="$dir/.installed-$everything-$filesystem"
if [ -f "$stamp" ]; then exit 0; fi
if ! command -v npm >/dev/null 2>&1; then
	echo "mcp-servers: npm is not installed; the tests against the MCP reference servers will skip" >&2
	exit 0
fi
mkdir -p "$dir"
cd "$dir"
[ -f package.json ] || echo '{"private":true}' > package.json
log=$(mktemp)
if ! npm install --no-audit --no-fund --loglevel=error --fetch-retries=1 --fetch-retry-mintimeout=2000 --fetch-retry-maxtimeout=5000 \
	"@modelcontextprotocol/server-everything@$everything" \
	"@modelcontextprotocol/server-filesystem@$filesystem" >"$log" 2>&1; then
	echo "skipped: the MCP reference servers (npm install failed: $(grep -m1 -i 'err' "$log" | cut -c1-100)); the tests against them will skip; run make mcp-servers when the npm registry is reachable" >&2
	rm -f "$log"
	exit 0
fi
rm -f "$log"
touch "$(basename "$stamp")"
