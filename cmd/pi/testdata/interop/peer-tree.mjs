// Drives the established harness's own session code (its SDK) for the
// interop tests: what its /tree and /fork do, without its terminal UI.
//   node peer-tree.mjs PKG navigate FILE ENTRY_ID   -> /tree to ENTRY_ID with a branch summary
//   node peer-tree.mjs PKG fork FILE ENTRY_ID       -> /fork from the user message ENTRY_ID
// PKG is the package's dist/index.js. Prints a JSON result on stdout.
const [pkg, op, file, entryId] = process.argv.slice(2);
const sdk = await import(pkg);
const sm = sdk.SessionManager.open(file);
if (op === "fork") {
  const entry = sm.getEntry(entryId);
  if (!entry || entry.type !== "message" || entry.message.role !== "user") throw new Error("not a user message: " + entryId);
  const path = sm.createBranchedSession(entry.parentId);
  console.log(JSON.stringify({ path }));
} else if (op === "navigate") {
  const { session } = await sdk.createAgentSession({ sessionManager: sm, cwd: process.cwd() });
  const res = await session.navigateTree(entryId, { summarize: true });
  console.log(JSON.stringify({ editorText: res.editorText, summaryId: res.summaryEntry?.id, cancelled: res.cancelled }));
  session.dispose();
} else {
  throw new Error("unknown op " + op);
}
