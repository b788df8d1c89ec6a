#!/usr/bin/env bash
# build-as.sh DIR...: builds each AssemblyScript extension DIR into the module
# its package.json's build script names (DIR/NAME.wasm). Dependencies come
# from DIR/package-lock.json through `npm ci` into DIR/node_modules (ignored
# by git); npm ci runs again only when the lock file is newer.
set -euo pipefail
for dir in "$@"; do
	(
		cd "$dir"
		if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
			npm ci --no-audit --no-fund --loglevel=error
		fi
		npm run --silent build
	)
done
