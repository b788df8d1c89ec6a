#!/usr/bin/env bash
# build-as.sh DIR...: builds each AssemblyScript extension DIR into the module
# its package.json's build script names (DIR/NAME.wasm). Dependencies come
# from DIR/package-lock.json through `npm ci` into DIR/node_modules (ignored
# by git); npm ci runs again only when the lock file is newer. Without npm or
# the npm registry it prints one line saying what was skipped and exits 0:
# the tests that need the module skip, and everything else runs.
set -euo pipefail
for dir in "$@"; do
	(
		cd "$dir"
		name=$(basename "$dir")
		log=$(mktemp)
		trap 'rm -f "$log"' EXIT
		if ! command -v npm >/dev/null 2>&1; then
			echo "skipped: $dir/$name.wasm (AssemblyScript) needs npm, which is not installed; install Node.js and run make plugins"
			exit 0
		fi
		if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
			if ! npm ci --no-audit --no-fund --loglevel=error --fetch-retries=1 --fetch-retry-mintimeout=2000 --fetch-retry-maxtimeout=5000 >"$log" 2>&1; then
				echo "skipped: $dir/$name.wasm (AssemblyScript): npm ci failed ($(grep -m1 -i 'err' "$log" | cut -c1-100)); run make plugins when the npm registry is reachable"
				exit 0
			fi
		fi
		npm run --silent build
	)
done
