#!/usr/bin/env bash
# Interoperability check: pi and the established TypeScript harness (the
# "peer", installed into $PI_BENCH_CACHE by bench/peer/install.sh) take
# turns on ONE agent directory and one session, against a loopback model:
#   1. the peer starts a tool-using session, pi continues it;
#   2. the peer continues the same file again and must see pi's turn;
#   3. pi starts a session, the peer continues it;
#   4. a trust decision written by `pi trust` is honoured by the peer, and
#      one the peer's trust.json holds is honoured by pi;
#   5. a session either harness compacted (twice, automatically) continues
#      in the other with the same conversation as its own continuation
#      (cmd/pi's TestInteropCompaction, which skips without the peer);
#   6. a session either harness branched with a branch summary (/tree) or
#      forked (/fork) continues in the other with the same conversation as
#      its own continuation (cmd/pi's TestInteropSessionTree).
# Exits non-zero naming the first step that failed. Needs the npm registry
# the first time (to install the peer).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
cache=${PI_BENCH_CACHE:-$repo/.cache/bench}
mkdir -p "$cache/bin"
cache=$(cd "$cache" && pwd)
say() { echo "interop: $*" >&2; }
fail() { say "FAILED: $*"; exit 1; }

make build >&2
go build -o "$cache/bin/mockmodel" ./bench/mockmodel
eval "$(bench/peer/install.sh "$cache" | tail -n 2)"
peer() { PI_OFFLINE=1 PI_SKIP_VERSION_CHECK=1 PI_TELEMETRY=0 "$PEER_NODE" "$PEER_CLI" "$@"; }
pi() { "$repo/bin/pi" "$@"; }

work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT
orig_home=$HOME
export PI_CODING_AGENT_DIR=$work/agent HOME=$work/home
mkdir -p "$PI_CODING_AGENT_DIR" "$HOME" "$work/proj"
printf 'alpha\nbeta\ngamma\n' > "$work/proj/notes.txt"

"$cache/bin/mockmodel" -addr 127.0.0.1:0 -reply "Noted." -log "$work/requests.jsonl" \
	-script cmd/pi/testdata/agent/scenario.json > "$work/addr" &
for _ in $(seq 50); do [ -s "$work/addr" ] && break; sleep 0.1; done
addr=$(head -n 1 "$work/addr")
echo "{\"providers\":{\"mock\":{\"baseUrl\":\"http://$addr/v1\",\"api\":\"openai-completions\",\"apiKey\":\"k\",\"models\":[{\"id\":\"mock-1\"}]}}}" > "$PI_CODING_AGENT_DIR/models.json"
cd "$work/proj"
count() { python3 -c 'import json,sys; print(len(json.loads(open(sys.argv[1]).readlines()[-1])["messages"]))' "$work/requests.jsonl"; }

say "1. the peer runs a tool-using session"
peer -p --model mock/mock-1 --session "$work/s1.jsonl" "tidy the notes" > /dev/null || fail "peer run"
[ "$(cat notes.txt)" = "$(printf 'ALPHA\nbeta\nGAMMA')" ] || fail "the peer's run did not edit notes.txt"
say "   pi continues it"
pi -p --session "$work/s1.jsonl" "what did you change?" > /dev/null || fail "pi could not continue the peer's session"
n1=$(count)
say "2. the peer continues the same file after pi"
peer -p --model mock/mock-1 --session "$work/s1.jsonl" "and now?" > /dev/null || fail "the peer could not continue after pi"
n2=$(count)
[ "$n2" -ge $((n1 + 2)) ] || fail "the peer's request after pi's turn has $n2 messages, pi's had $n1: history was lost"
say "3. pi starts a session, the peer continues it"
pi -p --session "$work/s2.jsonl" "first from pi" > /dev/null || fail "pi run"
peer -p --model mock/mock-1 --session "$work/s2.jsonl" "the peer continues" > /dev/null || fail "the peer could not continue pi's session"
n3=$(count)
[ "$n3" -ge 4 ] || fail "the peer's request carries $n3 messages; pi's turn is missing"
say "4. trust decisions"
mkdir -p "$work/trusted/.pi/prompts"
echo "Say hi." > "$work/trusted/.pi/prompts/hi.md"
pi trust "$work/trusted" > /dev/null || fail "pi trust"
grep -q "$work/trusted" "$PI_CODING_AGENT_DIR/trust.json" || fail "pi trust wrote nothing"
(cd "$work/trusted" && pi resources --json | grep -q '"hi"') || fail "pi ignores its own trust decision"
say "5. compaction both ways: a session each harness compacted continues in the other with the same request"
(cd "$repo" && HOME="$orig_home" PI_BENCH_CACHE="$cache" go test -count=1 -run 'TestInteropCompaction' ./cmd/pi/ >&2) || fail "compacted sessions do not continue alike"
say "6. the session tree both ways: branch summaries and forks continue alike in either harness"
(cd "$repo" && HOME="$orig_home" PI_BENCH_CACHE="$cache" go test -count=1 -run 'TestInteropSessionTree' ./cmd/pi/ >&2) || fail "branched or forked sessions do not continue alike"
say "all steps passed"
