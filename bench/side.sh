#!/usr/bin/env bash
# The side-by-side table: pi against the established TypeScript harness (the
# "peer") and, when they can be installed, OpenAI's Codex CLI and Claude
# Code, doing the same scripted work against a fast loopback model
# (bench/mockmodel), runs alternating A B A B … (bench/timeit). Prints one
# Markdown table: median wall time, median user+sys CPU and peak RSS per
# harness, the ratios against pi, and the load average each figure was
# taken at. A ratio taken at a load average above 2 is printed as such and
# is not a figure.
#
#   bench/side.sh [-n RUNS] [--long N] [--long-runs N] [--others] [--no-build] [--keep]
#
#   -n RUNS        timed runs per case and harness (default 5; one warm-up on top)
#   --long N       turns of the long session whose turn N is timed (default 600)
#   --long-runs N  runs of the long session per harness (default 1)
#   --long-only L  run the long session only for the harnesses in the comma-separated
#                  list L (default: all); Codex CLI and Claude Code take most of
#                  the run's time there, their turns growing with the history
#   --others       also install and run Codex CLI and Claude Code (bench/others/install.sh)
#   --no-build     skip `make build plugins`
#   --keep         keep the scratch directory
#
# Cases:
#   hello     `-p hello`: start-up, one streamed request, the session file.
#   guests    `-p hello` with the four example extensions (team-section,
#             policy-guard, yes-no, git-branch): pi with --no-memo, so every
#             guest whose hook applies starts and runs; the peer with the
#             same extensions in TypeScript (bench/peer/extensions). pi and
#             the peer only.
#   session   a 60-turn scripted session. Turn 1 reads f01; turn i edits the
#             file read the turn before and reads the next one, so no reply
#             reads a file it also edits (the peer answers such a read "(no
#             tool output)", which would shrink its history); turns 5, 15, 25,
#             … also run `grep -c LINE f*.txt | tail -n 1` in bash; a last
#             turn edits f60 and a closing reply ends the run.
#   turn 60   the harness's time between two model requests at turns 56–60
#             of those sessions (arrival of request k+1 minus the end of reply
#             k, from the mock's log; a read and an edit each): the model's
#             time is left out.
#   turn N    the same at turns N-4..N of one N-turn session (--long).
#   bash      a sandboxed bash call's own cost: sessions of 10 turns that each
#             run `true` in bash against the same sessions reading a small
#             file instead, per call; and pi's confining helper on its own
#             (`pi __sandbox-exec SPEC -- true` against `true`, SPEC as
#             `pi __sandbox-spec /tmp` prints it).
#
# Everything downloaded or built lives in $PI_BENCH_CACHE (default
# <repo>/.cache/bench). PI_BIN times another pi binary instead of bin/pi.
set -euo pipefail

runs=${BENCH_RUNS:-5}
long=600
long_runs=1
long_only=""
others=0
build=1
keep=0
while [ $# -gt 0 ]; do
	case $1 in
	-n) runs=$2; shift 2 ;;
	--long) long=$2; shift 2 ;;
	--long-runs) long_runs=$2; shift 2 ;;
	--long-only) long_only=$2; shift 2 ;;
	--others) others=1; shift ;;
	--no-build) build=0; shift ;;
	--keep) keep=1; shift ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "side.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
	esac
done

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
cache=${PI_BENCH_CACHE:-$repo/.cache/bench}
mkdir -p "$cache/bin"
cache=$(cd "$cache" && pwd)
say() { echo "side.sh: $*" >&2; }

if [ "$build" = 1 ]; then
	say "make build plugins"
	make build plugins >&2
fi
go build -o "$cache/bin/mockmodel" ./bench/mockmodel
go build -o "$cache/bin/timeit" ./bench/timeit
timeit=$cache/bin/timeit
eval "$(bench/peer/install.sh "$cache" | grep -E '^PEER_(NODE|CLI)=')"

# Codex CLI and Claude Code, when asked for and installable.
harnesses=(pi peer)
if [ "$others" = 1 ]; then
	if out=$(bench/others/install.sh "$cache"); then
		eval "$(printf '%s\n' "$out" | grep -E '^(CODEX|CLAUDE)_BIN=')"
		export CODEX_BIN CLAUDE_BIN
		[ -n "${CODEX_BIN:-}" ] && harnesses+=(codex)
		[ -n "${CLAUDE_BIN:-}" ] && harnesses+=(claude)
	else
		say "Codex CLI / Claude Code could not be installed: their columns are left out"
	fi
fi

work=$(mktemp -d "$cache/side.XXXXXX")
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	if [ "$keep" = 1 ]; then say "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

# pi and its helper are copied (as an installer would) before they are
# timed: how the linker wrote the file decides how the page cache holds it,
# and with it how much of the binary a run maps in (peak RSS).
src=${PI_BIN:-$repo/bin/pi}
mkdir -p "$work/bin"
cp "$src" "$work/bin/pi"
[ -x "$(dirname "$src")/pi-sandbox" ] && cp "$(dirname "$src")/pi-sandbox" "$work/bin/pi-sandbox"
pi=$work/bin/pi

# script KIND TURNS HARNESS: the scripted replies, in the tool names and
# arguments of HARNESS (pi and the peer share theirs).
script() {
	python3 - "$@" <<'PY'
import json, sys
kind, n, who = sys.argv[1], int(sys.argv[2]), sys.argv[3]
w = max(2, len(str(n)))
f = lambda i: "f%0*d.txt" % (w, i)
def read(i, p):
    if who == "claude":
        return {"id": "r%d" % i, "name": "Read", "args": {"file_path": "PROJ/" + p}}
    if who == "codex":  # exec_command is the tool codex offers a model it has no metadata for
        return {"id": "r%d" % i, "name": "exec_command", "args": {"cmd": "cat " + p}}
    return {"id": "r%d" % i, "name": "read", "args": {"path": p}}
def edit(i, p):
    if who == "claude":
        return {"id": "e%d" % i, "name": "Edit", "args": {"file_path": "PROJ/" + p, "old_string": "line 1 of", "new_string": "LINE 1 of"}}
    if who == "codex":  # and no apply_patch: it edits through the shell
        return {"id": "e%d" % i, "name": "exec_command", "args": {"cmd": "sed -i '1s/line 1 of/LINE 1 of/' " + p}}
    return {"id": "e%d" % i, "name": "edit", "args": {"path": p, "edits": [{"oldText": "line 1 of", "newText": "LINE 1 of"}]}}
def bash(i, cmd):
    if who == "claude":
        return {"id": "b%d" % i, "name": "Bash", "args": {"command": cmd}}
    if who == "codex":
        return {"id": "b%d" % i, "name": "exec_command", "args": {"cmd": cmd}}
    return {"id": "b%d" % i, "name": "bash", "args": {"command": cmd}}
out = []
if kind == "session":
    for i in range(1, n + 2):
        calls = []
        if i > 1:
            calls.append(edit(i, f(i - 1)))
        if i <= n:
            calls.append(read(i, f(i)))
        if i % 10 == 5:
            calls.append(bash(i, "grep -c LINE f*.txt | tail -n 1"))
        out.append({"text": "Turn %d." % i, "calls": calls})
    out.append({"text": "All %d files are fixed." % n})
elif kind in ("bash", "read"):
    for i in range(1, n + 1):
        out.append({"text": "Turn %d." % i, "calls": [bash(i, "true") if kind == "bash" else read(i, f(1))]})
    out.append({"text": "Done."})
json.dump(out, sys.stdout)
PY
}

# project DIR TURNS: one twenty-line file per turn.
project() {
	mkdir -p "$1"
	python3 - "$1" "$2" <<'PY'
import sys
d, n = sys.argv[1], int(sys.argv[2])
w = max(2, len(str(n)))
for i in range(1, n + 1):
    name = "%0*d" % (w, i)
    with open("%s/f%s.txt" % (d, name), "w") as fh:
        fh.write("".join("line %d of %s: some ordinary text\n" % (l, name) for l in range(1, 21)))
PY
}

# mock NAME SCRIPT: a scripted mock model logging request times to
# $work/NAME.times; sets addr.
mock() {
	local out=$work/$1.addr
	"$cache/bin/mockmodel" -addr 127.0.0.1:0 -script "$2" -times "$work/$1.times" > "$out" &
	pids+=($!)
	for _ in $(seq 100); do [ -s "$out" ] && break; sleep 0.05; done
	addr=$(head -n 1 "$out")
	[ -n "$addr" ] || { say "mock model $1 did not start"; exit 1; }
}

# setup NAME KIND TURNS: a mock with that script for each harness, an agent
# dir per harness pointing at it, and the project template.
setup() {
	local name=$1 kind=$2 n=$3
	project "$work/$name-template" "$n"
	for h in "${harnesses[@]}"; do
		script "$kind" "$n" "$h" | sed "s|PROJ/|$work/$name-$h/|g" > "$work/$name-$h.json"
		mock "$name-$h" "$work/$name-$h.json"
		case $h in
		pi | peer) agent_dir "$work/agent-$name-$h" "$addr" ;;
		*) bench/others/config.sh "$h" "$work/agent-$name-$h" "$addr" ;;
		esac
	done
}

# agent_dir DIR ADDR: models.json for pi and the peer.
agent_dir() {
	mkdir -p "$1"
	echo "{\"providers\":{\"mock\":{\"baseUrl\":\"http://$2/v1\",\"api\":\"openai-completions\",\"apiKey\":\"mock-key\",\"models\":[{\"id\":\"mock-1\"}]}}}" > "$1/models.json"
}

# cmd NAME HARNESS PROMPT: the command line that runs HARNESS on the
# project copy $work/NAME-HARNESS with the agent dir of NAME.
cmd() {
	local name=$1 h=$2 p=$3 dir=$work/$1-$2 agent=$work/agent-$1-$2
	case $h in
	pi) echo "cd $dir && PI_CODING_AGENT_DIR=$agent HOME=$work/home exec $pi -p --model mock/mock-1 --no-extensions '$p'" ;;
	peer) echo "cd $dir && PI_CODING_AGENT_DIR=$agent HOME=$work/home TMPDIR=$work/tmp PI_OFFLINE=1 PI_SKIP_VERSION_CHECK=1 PI_TELEMETRY=0 exec $PEER_NODE $PEER_CLI --no-extensions -p --model mock/mock-1 '$p'" ;;
	*) bench/others/command.sh "$h" "$dir" "$agent" "$p" ;;
	esac
}
mkdir -p "$work/home" "$work/tmp"

# paired NAME PROMPT: alternating runs of every harness on fresh project
# copies; prints timeit's JSON.
paired() {
	local name=$1 p=$2 args=() i=0 prep=""
	for h in "${harnesses[@]}"; do
		[ $i -gt 0 ] && args+=(":::")
		args+=(sh -c "$(cmd "$name" "$h" "$p")")
		prep="$prep [ \$TIMEIT_INDEX = $i ] && { rm -rf $work/$name-$h && cp -R $work/$name-template $work/$name-$h; };"
		i=$((i + 1))
	done
	"$timeit" -json -n "$runs" -warmup 1 -prepare "$prep true" -- "${args[@]}"
}

results=$work/results.jsonl
record() { # CASE JSON
	python3 -c 'import json,sys; r=json.loads(sys.argv[2]); r["case"]=sys.argv[1]; print(json.dumps(r))' "$1" "$2" >> "$results"
}

say "case hello"
setup hello reply 1
record hello "$(paired hello hello)"

# Guest start-up (issue 22): `-p hello` with the four example extensions,
# pi with --no-memo so that every guest must run (its compile cache warm
# from the warm-up run), the peer with the same extensions in TypeScript
# (bench/peer/extensions; its jiti cache warm the same way). pi and the peer
# only: the others have no such extensions.
exts=(team-section policy-guard yes-no git-branch)
guest_args=() peer_args=() missing=""
for e in "${exts[@]}"; do
	[ -f "plugins/examples/$e/$e.wasm" ] || missing="$missing $e"
	guest_args+=(-e "$repo/plugins/examples/$e")
	[ "$e" = git-branch ] && guest_args+=(--grant git-branch)
	peer_args+=(-e "$repo/bench/peer/extensions/$e.ts")
done
if [ -n "$missing" ]; then
	say "case guests left out: no module for$missing (make plugins)"
else
	say "case guests (-p hello, ${#exts[@]} extensions, every guest runs)"
	mkdir -p "$work/guests/.git"
	echo "ref: refs/heads/main" > "$work/guests/.git/HEAD"
	printf '# Demo project\n\nRun the tests before proposing a change.\n' > "$work/guests/AGENTS.md"
	mock guests-pi "$work/hello-pi.json"
	agent_dir "$work/agent-guests-pi" "$addr"
	mock guests-peer "$work/hello-peer.json"
	agent_dir "$work/agent-guests-peer" "$addr"
	record guests "$("$timeit" -json -n "$runs" -warmup 1 -- \
		sh -c "cd $work/guests && PI_CODING_AGENT_DIR=$work/agent-guests-pi HOME=$work/home exec $pi -p --model mock/mock-1 --no-extensions --no-memo ${guest_args[*]} hello" ::: \
		sh -c "cd $work/guests && PI_CODING_AGENT_DIR=$work/agent-guests-peer HOME=$work/home TMPDIR=$work/tmp PI_OFFLINE=1 PI_SKIP_VERSION_CHECK=1 PI_TELEMETRY=0 exec $PEER_NODE $PEER_CLI --no-extensions ${peer_args[*]} -p --model mock/mock-1 hello")"
fi

say "case session (60 turns)"
setup session session 60
for h in "${harnesses[@]}"; do : > "$work/session-$h.times"; done
record session "$(paired session 'Fix the first line of every file.')"
# Every run must have done the whole task.
for h in "${harnesses[@]}"; do
	c=$(grep -l "^LINE 1 of" "$work/session-$h"/f*.txt 2>/dev/null | wc -l)
	[ "$c" = 60 ] || say "warning: $h's last session run fixed $c of 60 files"
done

# gaps NAME TURNS FIRST LAST: the harness's time between requests k and k+1
# for k in FIRST..LAST of every run in NAME's times log (the warm-up run
# left out when there are several), as JSON per harness.
gaps() {
	python3 - "$work" "$1" "$2" "$3" "$4" "${harnesses[@]}" <<'PY'
import json, statistics, sys
work, name, n, first, last = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
out = {}
per_run = n + 2  # the session's requests
for h in sys.argv[6:]:
    rows = [list(map(int, l.split())) for l in open("%s/%s-%s.times" % (work, name, h)) if l.strip()]
    ms = []
    skip = per_run if len(rows) >= 2 * per_run else 0
    for start in range(skip, len(rows) - per_run + 1, per_run):
        run = rows[start:start + per_run]
        for k in range(first, last + 1):
            ms.append((run[k][1] - run[k - 1][2]) / 1e6)  # arrival of k+1 minus end of reply k
    out[h] = round(statistics.median(ms), 2) if ms else None
print(json.dumps(out))
PY
}
load() { cut -d' ' -f1 /proc/loadavg; }
l0=$(load)
turn60=$(gaps session 60 56 60)
record turn60 "{\"load_start\":$l0,\"load_end\":$(load),\"gaps\":$turn60}"

say "case turn $long (one $long-turn session per harness and run)"
setup long session "$long"
l0=$(load)
for _ in $(seq "$long_runs"); do
	for h in "${harnesses[@]}"; do
		case ",${long_only:-$h}," in *",$h,"*) ;; *) : > "$work/long-$h.times"; continue ;; esac
		rm -rf "$work/long-$h" && cp -R "$work/long-template" "$work/long-$h"
		sh -c "$(cmd long "$h" 'Fix the first line of every file.')" > /dev/null 2>&1 || say "$h: the $long-turn session failed"
	done
done
record "turn$long" "{\"load_start\":$l0,\"load_end\":$(load),\"gaps\":$(gaps long "$long" $((long - 4)) "$long")}"

say "case bash"
setup bash bash 10
setup read read 10
record bash "$(paired bash 'Run it.')"
record read "$(paired read 'Read it.')"
# The helper on its own, as pi starts it (bin/pi-sandbox, made with pi) and
# as pi itself re-executed, against `true` alone.
helper=$(dirname "$pi")/pi-sandbox
if [ -x "$helper" ]; then
	spec=$("$pi" __sandbox-spec /tmp) # writes /tmp, network on: no namespaces
	record helper "$("$timeit" -json -n $((runs * 4)) -warmup 2 -- "$helper" __sandbox-exec "$spec" -- true ::: "$pi" __sandbox-exec "$spec" -- true ::: true)"
else
	say "no $helper (build with make build): the helper figures are left out"
fi

python3 - "$results" "$long" "${harnesses[@]}" <<'PY'
import json, sys
path, long, hs = sys.argv[1], sys.argv[2], sys.argv[3:]
rows = {}
for l in open(path):
    r = json.loads(l)
    rows[r["case"]] = r
def loadtxt(r):
    return "%.2f→%.2f" % (r["load_start"], r["load_end"])
def quiet(r):
    return max(r["load_start"], r["load_end"]) <= 2
def ratio(p, o, r):
    if not p or not o:
        return "n/a"
    x = "%.1f×" % (o / p)
    return x if quiet(r) else "(%s at load %.1f: not a figure)" % (x, max(r["load_start"], r["load_end"]))
others = hs[1:]
head = "| case | figure | " + " | ".join(hs) + " | " + " | ".join("%s/pi" % h for h in others) + " | load |"
print(head)
print("|" + "---|" * (head.count("|") - 1))
def line(case, fig, vals, r, unit):
    cells = ["%s %s" % (("%.1f" % v) if isinstance(v, float) else v, unit) if v not in (None, 0) else "n/a" for v in vals]
    print("| %s | %s | %s | %s | %s |" % (case, fig, " | ".join(cells), " | ".join(ratio(vals[0], v, r) for v in vals[1:]), loadtxt(r)))
for case, label in (("hello", "`-p hello`"), ("session", "60-turn session")):
    r = rows.get(case)
    if not r:
        continue
    res = r["results"]
    line(label, "wall (median)", [x["median_ms"] for x in res], r, "ms")
    line(label, "user+sys CPU (median)", [x["cpu_ms"] for x in res], r, "ms")
    line(label, "peak RSS", [x["maxrss_kb"] / 1024 for x in res], r, "MiB")
r = rows.get("guests")
if r:
    # pi and the peer only: the other columns are empty.
    res = r["results"] + [{"median_ms": None, "cpu_ms": None, "maxrss_kb": 0}] * (len(hs) - 2)
    label = "`-p hello`, 4 extensions, every guest runs"
    line(label, "wall (median)", [x["median_ms"] for x in res], r, "ms")
    line(label, "user+sys CPU (median)", [x["cpu_ms"] for x in res], r, "ms")
    line(label, "peak RSS", [x["maxrss_kb"] / 1024 for x in res], r, "MiB")
for case in ("turn60", "turn" + long):
    r = rows.get(case)
    if r:
        line("turn %s (read + edit)" % case[4:], "time between two model requests", [r["gaps"].get(h) for h in hs], r, "ms")
b, rd = rows.get("bash"), rows.get("read")
if b and rd:
    r = {"load_start": min(b["load_start"], rd["load_start"]), "load_end": max(b["load_end"], rd["load_end"])}
    per = lambda k, i: (b["results"][i][k] - rd["results"][i][k]) / 10
    line("bash call", "wall per call, beyond a read", [per("median_ms", i) for i in range(len(hs))], r, "ms")
    line("bash call", "CPU per call, beyond a read", [per("cpu_ms", i) for i in range(len(hs))], r, "ms")
h = rows.get("helper")
if h:
    res = h["results"]
    pad = " | " * (2 * len(hs) - 2)
    for i, what in ((0, "`pi-sandbox`"), (1, "pi re-executed")):
        print("| sandbox helper | %s minus `true`: wall / CPU / peak RSS | %.2f ms / %.2f ms / %.1f MiB%s | %s |" % (
            what, res[i]["median_ms"] - res[2]["median_ms"], res[i]["cpu_ms"] - res[2]["cpu_ms"], res[i]["maxrss_kb"] / 1024, pad, loadtxt(h)))
PY
