#!/usr/bin/env bash
# Agent-loop benchmark: a scripted 60-turn session (each turn reads one file
# and edits it, a bash call every tenth turn) run by pi and by the
# established TypeScript harness (the "peer") against the same loopback
# model, on fresh copies of the same project. Prints one table: figure |
# ours (median) | peer (median) | ratio.
#
#   bench/agent.sh [-n RUNS] [--turns N] [--no-build] [--keep]
#
# The peer is installed into $PI_BENCH_CACHE (default <repo>/.cache/bench)
# on first use by bench/peer/install.sh. Both harnesses write their session
# file, as a person's run would; pi runs bash in its default sandbox.
set -euo pipefail

runs=${BENCH_RUNS:-5}
turns=60
build=1
keep=0
while [ $# -gt 0 ]; do
	case $1 in
	-n) runs=$2; shift 2 ;;
	--turns) turns=$2; shift 2 ;;
	--no-build) build=0; shift ;;
	--keep) keep=1; shift ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "agent.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
	esac
done

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
cache=${PI_BENCH_CACHE:-$repo/.cache/bench}
mkdir -p "$cache/bin"
cache=$(cd "$cache" && pwd)
say() { echo "agent.sh: $*" >&2; }

if [ "$build" = 1 ]; then
	say "make build"
	make build >&2
fi
go build -o "$cache/bin/mockmodel" ./bench/mockmodel
go build -o "$cache/bin/timeit" ./bench/timeit
eval "$(bench/peer/install.sh "$cache" | tail -n 2)"

work=$(mktemp -d)
[ "$keep" = 1 ] && say "scratch: $work" || trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT

# The project: one file per turn, twenty lines each.
mkdir -p "$work/template"
for i in $(seq -w 1 "$turns"); do
	for l in $(seq 1 20); do echo "line $l of file $i: some ordinary text"; done > "$work/template/f$i.txt"
done
# The script: turn i reads f<i> and edits its first line; every tenth turn
# also runs a command; then a closing reply.
python3 - "$turns" > "$work/script.json" <<'PY'
import json, sys
n = int(sys.argv[1]); w = len(str(n)); out = []
for i in range(1, n + 1):
    f = "f%0*d.txt" % (w, i)
    calls = [{"id": "r%d" % i, "name": "read", "args": {"path": f}},
             {"id": "e%d" % i, "name": "edit", "args": {"path": f, "edits": [{"oldText": "line 1 of", "newText": "LINE 1 of"}]}}]
    if i % 10 == 0:
        calls.append({"id": "b%d" % i, "name": "bash", "args": {"command": "grep -c LINE f*.txt | tail -n 1"}})
    out.append({"text": "Turn %d: reading and fixing %s." % (i, f), "calls": calls})
out.append({"text": "All %d files are fixed." % n})
json.dump(out, sys.stdout)
PY

"$cache/bin/mockmodel" -addr 127.0.0.1:0 -script "$work/script.json" > "$work/addr" &
for _ in $(seq 50); do [ -s "$work/addr" ] && break; sleep 0.1; done
addr=$(head -n 1 "$work/addr")
for who in ours peer; do
	mkdir -p "$work/agent-$who"
	echo "{\"providers\":{\"mock\":{\"baseUrl\":\"http://$addr/v1\",\"api\":\"openai-completions\",\"apiKey\":\"k\",\"models\":[{\"id\":\"mock-1\"}]}}}" > "$work/agent-$who/models.json"
done
prep="rm -rf $work/proj && cp -R $work/template $work/proj"
msg="Fix the first line of every file."

measure() { # who, command...
	local who=$1; shift
	(cd "$work" && PI_CODING_AGENT_DIR="$work/agent-$who" "$cache/bin/timeit" -n "$runs" -warmup 1 -prepare "$prep" -- \
		sh -c 'cd '"$work"'/proj && exec "$@"' sh "$@") 2> "$work/err-$who" || { say "$who failed: $(tail -n 5 "$work/err-$who")"; echo "median_ms=nan maxrss_kb=nan"; }
}
ours=$(measure ours "$repo/bin/pi" -p --model mock/mock-1 "$msg")
peer=$(measure peer "$PEER_NODE" "$PEER_CLI" -p --model mock/mock-1 "$msg")
# The last run must have done the whole task.
count=$(grep -l "^LINE 1 of" "$work"/proj/f*.txt 2>/dev/null | wc -l)
[ "$count" = "$turns" ] || say "warning: the last run fixed $count of $turns files"

get() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
row() { # label, ours, peer, unit
	awk -v l="$1" -v o="$2" -v p="$3" -v u="$4" 'BEGIN { r = (o > 0 && p > 0) ? sprintf("%.1f×", p / o) : "n/a"; printf "| %s | %s %s | %s %s | %s |\n", l, o, u, p, u, r }'
}
echo "| figure ($turns turns, $runs runs, medians) | pi | peer | peer/pi |"
echo "|---|---|---|---|"
row "wall time" "$(get "$ours" median_ms)" "$(get "$peer" median_ms)" ms
row "peak RSS" "$(( $(get "$ours" maxrss_kb) / 1024 ))" "$(( $(get "$peer" maxrss_kb) / 1024 ))" MiB
