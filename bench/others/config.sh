#!/usr/bin/env bash
# Writes the configuration that points HARNESS (codex or claude) at the mock
# model at ADDR into DIR (its CODEX_HOME, or Claude Code's config dir).
#
#   bench/others/config.sh HARNESS DIR ADDR
set -euo pipefail
h=$1 dir=$2 addr=$3
mkdir -p "$dir"
echo "$addr" > "$dir/mock-addr"
case $h in
codex)
	# A provider on loopback speaking the Responses API; no retries, so a
	# failure shows at once instead of as a slow run.
	cat > "$dir/config.toml" <<TOML
model = "mock-1"
model_provider = "mock"

[model_providers.mock]
name = "mock"
base_url = "http://$addr/v1"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
TOML
	;;
claude) ;; # everything is in the environment (command.sh)
*) echo "config.sh: unknown harness $h" >&2; exit 2 ;;
esac
