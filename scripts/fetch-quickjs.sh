#!/bin/sh
# Fetch quickjs.wasm from the npm package quickjs-wasi again and check it
# against the hashes recorded in host/jsext/engine/SOURCE.md.
set -eu
VERSION=3.6.2
TGZ_SHA=f1f4349f19a2d849e33ea0ae9bec2e7062b8839f4eceb17c9051ddbaa2720982
WASM_SHA=d4c9375f2b1ca4dc95f72c8aa2982a7a9951ac8011490d79c6582df732b4bbd9
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
npm pack --silent "quickjs-wasi@$VERSION" >/dev/null
tgz=quickjs-wasi-$VERSION.tgz
got=$(sha256sum "$tgz" | cut -d' ' -f1)
[ "$got" = "$TGZ_SHA" ] || { echo "fetch-quickjs: $tgz has SHA-256 $got, want $TGZ_SHA" >&2; exit 1; }
tar -xzf "$tgz" package/quickjs.wasm package/LICENSE
got=$(sha256sum package/quickjs.wasm | cut -d' ' -f1)
[ "$got" = "$WASM_SHA" ] || { echo "fetch-quickjs: quickjs.wasm has SHA-256 $got, want $WASM_SHA" >&2; exit 1; }
cp package/quickjs.wasm "$root/host/jsext/engine/quickjs.wasm"
cp package/LICENSE "$root/host/jsext/engine/LICENSE"
echo "fetch-quickjs: quickjs.wasm $VERSION verified and copied to host/jsext/engine/"
