// pi-as-cli.cjs stands where the client library expects the established
// harness's cli.js: it runs pi (PI_RPC_BIN) with the same arguments and
// the same standard streams.
const { spawnSync } = require("node:child_process");
const r = spawnSync(process.env.PI_RPC_BIN, process.argv.slice(2), { stdio: "inherit" });
process.exit(r.status ?? 1);
