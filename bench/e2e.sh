#!/usr/bin/env bash
# End-to-end benchmark: pi against the established TypeScript harness (the
# "peer"), both talking to the same loopback mock model, in the same demo
# project. Prints one table: figure | ours (median) | peer (median) | ratio.
#
#   bench/e2e.sh [-n RUNS] [--compile-runs RUNS] [--exts a,b,c,d] [--timer auto|hyperfine|go]
#                [--no-build] [--keep]
#
#   -n RUNS           timed runs per figure (default 15; warm-up runs come on top)
#   --compile-runs N  runs of the first-compile figure, which clears the cache each time (default 5)
#   --exts LIST       example extensions to load (default team-section,policy-guard,yes-no,git-branch)
#   --timer T         hyperfine when installed (auto), or the Go timer in bench/timeit
#   --no-build        skip `make build plugins`
#   --keep            keep the scratch directory (agent dirs, project, request logs)
#
# Everything downloaded or built here lives in $PI_BENCH_CACHE (default
# <repo>/.cache/bench). The peer is installed there on first use by
# bench/peer/install.sh. PI_BIN times another pi binary instead of bin/pi;
# BENCH_RUNS sets the default of -n. Progress goes to stderr, the table to
# stdout. A figure whose command fails prints n/a, and the reason is shown on
# stderr.
set -euo pipefail

runs=${BENCH_RUNS:-15}
compile_runs=5
exts=team-section,policy-guard,yes-no,git-branch
timer=auto
build=1
keep=0
while [ $# -gt 0 ]; do
	case $1 in
	-n) runs=$2; shift 2 ;;
	--compile-runs) compile_runs=$2; shift 2 ;;
	--exts) exts=$2; shift 2 ;;
	--timer) timer=$2; shift 2 ;;
	--no-build) build=0; shift ;;
	--keep) keep=1; shift ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "e2e: unknown argument $1 (see --help)" >&2; exit 2 ;;
	esac
done

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
cache=${PI_BENCH_CACHE:-$repo/.cache/bench}
mkdir -p "$cache/bin"
cache=$(cd "$cache" && pwd)
say() { echo "e2e: $*" >&2; }

case $timer in
auto) if command -v hyperfine >/dev/null; then timer=hyperfine; else timer=go; fi ;;
hyperfine) command -v hyperfine >/dev/null || { say "hyperfine is not installed"; exit 2; } ;;
go) ;;
*) say "--timer: want auto, hyperfine or go"; exit 2 ;;
esac

# --- build ------------------------------------------------------------------
if [ "$build" = 1 ]; then
	say "make build plugins"
	make build plugins >&2
fi
go build -o "$cache/bin/mockmodel" ./bench/mockmodel
go build -o "$cache/bin/timeit" ./bench/timeit
timeit=$cache/bin/timeit
pi=${PI_BIN:-$repo/bin/pi} # PI_BIN: time another build of pi

peer_ok=1
if out=$(bench/peer/install.sh "$cache"); then
	eval "$(printf '%s\n' "$out" | grep -E '^PEER_(NODE|CLI)=')"
else
	say "peer install failed: peer figures will be n/a"
	peer_ok=0
fi

# --- scratch: project, agent dirs, mock servers -------------------------------
work=$(mktemp -d "$cache/run.XXXXXX")
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	if [ "$keep" = 1 ]; then say "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

project=$work/project
mkdir -p "$project/.git"
cat > "$project/AGENTS.md" <<'EOF'
# Demo project

A small Go service. Run `go test ./...` before proposing a change, keep
functions short, and explain the reason for a change in its commit message.
EOF
echo "ref: refs/heads/main" > "$project/.git/HEAD"

# start_mock NAME: starts a mock model whose requests go to
# $work/requests-NAME.jsonl and sets addr to its host:port.
start_mock() {
	local out=$work/mock-$1.addr
	"$cache/bin/mockmodel" -addr 127.0.0.1:0 -log "$work/requests-$1.jsonl" > "$out" &
	pids+=($!)
	for _ in $(seq 100); do
		[ -s "$out" ] && break
		sleep 0.05
	done
	addr=$(head -n 1 "$out")
	[ -n "$addr" ] || { say "mock model $1 did not start"; exit 1; }
}

# agent_dir DIR ADDR: an agent dir whose models.json points at the mock.
agent_dir() {
	mkdir -p "$1"
	cat > "$1/models.json" <<EOF
{
  "providers": {
    "mock": {
      "baseUrl": "http://$2/v1",
      "api": "openai-completions",
      "apiKey": "mock-key",
      "models": [{ "id": "mock-1" }]
    }
  }
}
EOF
}

# Each harness gets its own server, so their request logs stay apart.
start_mock ours
agent_dir "$work/agent-ours" "$addr"
start_mock peer
agent_dir "$work/agent-peer" "$addr"
mkdir -p "$work/home-ours" "$work/home-peer" "$work/tmp-peer"

IFS=, read -r -a ext_names <<< "$exts"
ours_ext=()
peer_ext=()
for e in "${ext_names[@]}"; do
	[ -d "plugins/examples/$e" ] || { say "no example extension plugins/examples/$e"; exit 2; }
	ours_ext+=(-e "$repo/plugins/examples/$e")
	[ "$e" = git-branch ] && ours_ext+=(--grant git-branch)
	peer_ext+=(-e "$repo/bench/peer/extensions/$e.ts")
done
next=${#ext_names[@]}

# The environment of each side: a private HOME (and for the peer a private
# TMPDIR, where node keeps its compile cache and jiti its TypeScript cache),
# the agent dir, and the peer's switches against any network use.
ours_env=(env HOME="$work/home-ours" PI_CODING_AGENT_DIR="$work/agent-ours")
peer_env=(env HOME="$work/home-peer" TMPDIR="$work/tmp-peer" PI_CODING_AGENT_DIR="$work/agent-peer"
	PI_OFFLINE=1 PI_SKIP_VERSION_CHECK=1 PI_TELEMETRY=0)
peer_cmd=("${peer_env[@]}" "${PEER_NODE:-node}" "${PEER_CLI:-peer-cli}")

# --- measuring ---------------------------------------------------------------
# quote ARGS: one POSIX-quoted command line (for hyperfine -N).
quote() {
	local out="" a
	for a in "$@"; do out+="'${a//\'/\'\\\'\'}' "; done
	printf '%s' "${out% }"
}

# measure N PREPARE CMD...: runs CMD in the project N times (after one
# warm-up) and sets med (ms) and rss (KiB), or n/a when CMD fails.
measure() {
	local n=$1 prep=$2
	shift 2
	med=n/a rss=n/a
	local log=$work/measure.err line
	if [ "$timer" = hyperfine ]; then
		local csv=$work/hf.csv
		local args=(-N --style none --runs "$n" --warmup 1 --export-csv "$csv")
		[ -n "$prep" ] && args+=(--prepare "$prep")
		if (cd "$project" && hyperfine "${args[@]}" "$(quote "$@")") > /dev/null 2> "$log"; then
			# columns: command,mean,stddev,median,user,system,min,max (seconds)
			med=$(awk -F, 'NR==2 { printf "%.1f", $4 * 1000 }' "$csv")
			# Peak RSS from a short second pass of the Go timer.
			if line=$(cd "$project" && "$timeit" -n 3 -warmup 0 -prepare "$prep" -- "$@" 2> "$log"); then
				rss=$(sed -n 's/.*maxrss_kb=\([0-9]*\).*/\1/p' <<< "$line")
			fi
		else
			# hyperfine hides the command's own output: run it once more
			# under the Go timer, which keeps the failing run's stderr.
			(cd "$project" && "$timeit" -n 1 -warmup 0 -prepare "$prep" -- "$@") >/dev/null 2>> "$log" || true
			say "failed: $*"; sed 's/^/    /' "$log" | tail -n 8 >&2
		fi
	else
		if line=$(cd "$project" && "$timeit" -n "$n" -warmup 1 -prepare "$prep" -- "$@" 2> "$log"); then
			med=$(sed -n 's/.*median_ms=\([0-9.]*\).*/\1/p' <<< "$line")
			rss=$(sed -n 's/.*maxrss_kb=\([0-9]*\).*/\1/p' <<< "$line")
		else
			say "failed: $*"; sed 's/^/    /' "$log" | tail -n 8 >&2
		fi
	fi
}

rows=()
# row FIGURE OURS PEER UNIT: one table row; the ratio is peer / ours.
row() {
	local fig=$1 o=$2 p=$3 unit=$4 ratio=—
	if [[ $o =~ ^[0-9.]+$ && $p =~ ^[0-9.]+$ ]]; then
		ratio=$(awk -v o="$o" -v p="$p" 'BEGIN { if (o > 0) printf "%.1f×", p / o; else print "—" }')
	fi
	cell() {
		case $1 in
		n/a | —) echo "$1" ;;
		*) if [ "$unit" = MiB ]; then awk -v k="$1" 'BEGIN { printf "%.1f MiB", k / 1024 }'; else echo "$1 ms"; fi ;;
		esac
	}
	rows+=("| $fig | $(cell "$o") | $(cell "$p") | $ratio |")
}

peer_measure() {
	if [ "$peer_ok" = 1 ]; then measure "$@"; else med=n/a rss=n/a; fi
}

say "timing with $timer, $runs runs per figure (load: $(cut -d' ' -f1-3 /proc/loadavg))"

say "pi -p hello, no extensions"
measure "$runs" "" "${ours_env[@]}" "$pi" -p hello --model mock/mock-1 --no-extensions
o_med=$med o_rss=$rss
peer_measure "$runs" "" "${peer_cmd[@]}" --no-extensions -p hello --model mock/mock-1
row "\`-p hello\`, no extensions" "$o_med" "$med" ms
rss_plain=("$o_rss" "$rss")

say "pi -p hello, $next extensions"
measure "$runs" "" "${ours_env[@]}" "$pi" -p hello --model mock/mock-1 --no-extensions "${ours_ext[@]}"
o_med=$med o_rss=$rss
peer_measure "$runs" "" "${peer_cmd[@]}" --no-extensions "${peer_ext[@]}" -p hello --model mock/mock-1
row "\`-p hello\`, $next extensions ($exts)" "$o_med" "$med" ms
rss_ext=("$o_rss" "$rss")
p4_med=$med

say "pi -p hello, $next extensions, memo off"
# With --no-memo every hook runs its guest: lazy compile from the on-disk
# cache, instantiation and the calls themselves. The peer has no memo, so
# its figure is the one above.
measure "$runs" "" "${ours_env[@]}" "$pi" -p hello --model mock/mock-1 --no-extensions --no-memo "${ours_ext[@]}"
row "\`-p hello\`, $next extensions, memo off (every guest runs)" "$med" "$p4_med" ms
rss_nomemo=$rss

say "pi -p hello, default start-up"
measure "$runs" "" "${ours_env[@]}" "$pi" -p hello --model mock/mock-1
o_med=$med
peer_measure "$runs" "" "${peer_cmd[@]}" -p hello --model mock/mock-1
row "\`-p hello\`, default start-up (peer loads its built-in extensions)" "$o_med" "$med" ms

say "pi -p hello, no extensions, caches cleared"
# The peer keeps node's compile cache and jiti's TypeScript cache in TMPDIR;
# ours has no cache to clear without extensions.
measure "$runs" "" "${ours_env[@]}" "$pi" -p hello --model mock/mock-1 --no-extensions
o_med=$med
peer_measure "$runs" "rm -rf '$work/tmp-peer' && mkdir '$work/tmp-peer'" "${peer_cmd[@]}" --no-extensions -p hello --model mock/mock-1
row "\`-p hello\`, no extensions, caches cleared before each run" "$o_med" "$med" ms

say "pi prompt, $next extensions, compile cache warm"
measure "$runs" "" "${ours_env[@]}" "$pi" prompt --no-extensions "${ours_ext[@]}"
row "\`pi prompt\`, $next extensions, compile cache warm" "$med" — ms
rss_prompt=$rss

say "pi prompt, $next extensions, first compile"
measure "$compile_runs" "rm -rf '$work/agent-ours/cache'" "${ours_env[@]}" "$pi" prompt --no-extensions "${ours_ext[@]}"
row "\`pi prompt\`, $next extensions, first compile (cache cleared; runs: $compile_runs)" "$med" — ms

row "peak RSS, \`-p hello\`, no extensions" "${rss_plain[0]}" "${rss_plain[1]}" MiB
row "peak RSS, \`-p hello\`, $next extensions" "${rss_ext[0]}" "${rss_ext[1]}" MiB
row "peak RSS, \`pi prompt\`, $next extensions" "$rss_prompt" — MiB
row "peak RSS, \`-p hello\`, $next extensions, memo off" "$rss_nomemo" "${rss_ext[1]}" MiB

# Keep the request logs of this run for comparing what each side sent.
for side in ours peer; do
	[ -f "$work/requests-$side.jsonl" ] && cp "$work/requests-$side.jsonl" "$cache/requests-$side.jsonl"
done

peer_version=n/a
[ "$peer_ok" = 1 ] && peer_version="@earendil-works/pi-coding-agent $("${peer_cmd[@]}" --version 2>/dev/null) on node $("$PEER_NODE" --version)"
echo "pi end to end: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), timer $timer, $runs runs, medians"
echo "peer: $peer_version"
echo
echo "| figure | ours (median) | peer (median) | ratio |"
echo "|---|---|---|---|"
printf '%s\n' "${rows[@]}"
echo
echo "ratio = peer / ours. Request bodies: $cache/requests-{ours,peer}.jsonl"
