#!/usr/bin/env bash
# Prints the shell command that runs HARNESS (codex or claude) once in
# project DIR with its configuration in AGENT (see config.sh) on PROMPT.
# CODEX_BIN and CLAUDE_BIN name the binaries (install.sh).
#
#   bench/others/command.sh HARNESS DIR AGENT PROMPT
#
# Codex runs `codex exec` with its own sandbox on (workspace-write), as pi
# runs bash in its sandbox; Claude Code runs `claude -p` with its Read, Edit
# and Bash tools allowed (it has no sandbox of its own by default), with
# telemetry and other non-essential traffic off.
set -euo pipefail
h=$1 dir=$2 agent=$3 prompt=$4
addr=$(cat "$agent/mock-addr")
case $h in
codex)
	echo "cd $dir && HOME=$agent CODEX_HOME=$agent exec $CODEX_BIN exec --skip-git-repo-check -s workspace-write '$prompt'" ;;
claude)
	echo "cd $dir && HOME=$agent CLAUDE_CONFIG_DIR=$agent ANTHROPIC_BASE_URL=http://$addr ANTHROPIC_API_KEY=mock-key DISABLE_TELEMETRY=1 DISABLE_AUTOUPDATER=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 exec $CLAUDE_BIN -p '$prompt' --model mock-1 --allowedTools Read,Edit,Bash" ;;
*) echo "command.sh: unknown harness $h" >&2; exit 2 ;;
esac
