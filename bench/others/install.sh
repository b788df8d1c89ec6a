#!/usr/bin/env bash
# Installs the other harnesses the side-by-side table compares against into
# a cache directory, once, from the npm registry: OpenAI's Codex CLI (a
# native binary) and Claude Code (a native binary). Safe to run again.
#
#   bench/others/install.sh [CACHE_DIR]
#
# CACHE_DIR defaults to $PI_BENCH_CACHE, then <repo>/.cache/bench. The last
# lines on stdout are shell assignments, empty for a harness that could not
# be installed:
#   CODEX_BIN=<path to the codex binary>
#   CLAUDE_BIN=<path to the claude binary>
# Progress goes to stderr.
set -euo pipefail

CODEX_VERSION=0.171.0
CLAUDE_VERSION=2.1.197

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=${1:-${PI_BENCH_CACHE:-$repo/.cache/bench}}
dir=$cache/others
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
mods=$dir/node_modules
say() { echo "others: $*" >&2; }

version() { sed -n 's/^[[:space:]]*"version":[[:space:]]*"\([^"]*\)".*/\1/p' "$1/package.json" 2>/dev/null | head -n 1; }

install() { # PACKAGE VERSION
	[ "$(version "$mods/$1")" = "$2" ] && return 0
	command -v npm >/dev/null || { say "npm is needed to install $1"; return 1; }
	say "installing $1@$2 into $dir"
	npm install --prefix "$dir" --save-exact --no-audit --no-fund --loglevel=error "$1@$2" >&2
}

codex=""
if install @openai/codex "$CODEX_VERSION"; then
	# The npm package is a node wrapper around a native binary; time the binary.
	codex=$(find "$mods/@openai" -path '*/vendor/*' -type f -name codex -perm -u+x 2>/dev/null | head -n 1)
	[ -n "$codex" ] || say "no native codex binary for this platform under $mods/@openai"
else
	say "Codex CLI could not be installed"
fi
claude=""
if install @anthropic-ai/claude-code "$CLAUDE_VERSION"; then
	claude=$(find "$mods/@anthropic-ai" -maxdepth 2 -type f -name claude -perm -u+x 2>/dev/null | head -n 1)
	[ -n "$claude" ] || claude=$(find "$mods/@anthropic-ai/claude-code/bin" -type f -perm -u+x 2>/dev/null | head -n 1)
	[ -n "$claude" ] || say "no claude binary under $mods/@anthropic-ai"
else
	say "Claude Code could not be installed"
fi
[ -n "$codex" ] && say "ready: codex $CODEX_VERSION"
[ -n "$claude" ] && say "ready: claude $CLAUDE_VERSION"
echo "CODEX_BIN=$codex"
echo "CLAUDE_BIN=$claude"
