// git-branch for the TypeScript peer: the counterpart of
// plugins/examples/git-branch. Reads .git/HEAD in the working directory and
// adds a `branch` section naming the current branch (or a short commit id on
// a detached HEAD). Outside a git checkout it adds nothing.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

export default function (pi: ExtensionAPI) {
	pi.on("before_agent_start", async (event, ctx) => {
		let head: string;
		try {
			head = (await readFile(join(ctx.cwd, ".git", "HEAD"), "utf8")).trim();
		} catch {
			return;
		}
		let branch = head;
		if (head.startsWith("ref: ")) branch = head.slice(5).replace(/^refs\/heads\//, "");
		else if (head.length > 12) branch = head.slice(0, 12);
		event.systemPromptOptions.sections.branch = `Current git branch: ${branch}`;
	});
}
