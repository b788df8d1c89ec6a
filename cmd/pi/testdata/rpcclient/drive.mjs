// drive.mjs runs one scripted RPC session through the established
// harness's own client library (its RpcClient) and prints what the client
// returned for each call, as one JSON document on stdout. The Go test
// TestRPCClientShapes runs it against that harness and against pi and
// compares the shapes.
//
//   node drive.mjs <peer package dir> <cli.js to spawn> <cwd>
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const [pkg, cliPath, cwd] = process.argv.slice(2);
const { RpcClient } = await import(pathToFileURL(join(pkg, "dist", "modes", "rpc", "rpc-client.js")).href);

const client = new RpcClient({ cliPath, cwd, model: "mock/mock-1", args: ["--no-session"] });
const out = { calls: [], events: [] };
async function call(name, f) {
	try {
		out.calls.push({ name, ok: true, data: (await f()) ?? null });
	} catch (e) {
		out.calls.push({ name, ok: false, error: String(e.message ?? e).split("\n")[0] });
	}
}

await client.start();
await call("getState", () => client.getState());
await call("promptAndWait", async () => {
	const events = await client.promptAndWait("hello there", undefined, 60000);
	out.events = events.map((e) => e.type);
	return null;
});
await call("getMessages", () => client.getMessages());
await call("getCommands", () => client.getCommands());
await call("bash", () => client.bash("echo from-bash"));
await call("getMessagesAfterBash", () => client.getMessages());
await call("getLastAssistantText", () => client.getLastAssistantText());
await call("cycleModel", () => client.cycleModel());
await call("cycleThinkingLevel", () => client.cycleThinkingLevel());
await call("getAvailableThinkingLevels", () => client.getAvailableThinkingLevels());
await call("getSessionStats", () => client.getSessionStats());
await call("getForkMessages", () => client.getForkMessages());
await call("clone", () => client.clone());
await client.stop();
process.stdout.write(JSON.stringify(out), () => process.exit(0));
