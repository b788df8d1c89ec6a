// policy-guard for the TypeScript peer: the counterpart of
// plugins/examples/policy-guard. Adds a `policy` section before every agent
// run, and writes it back whenever it finds it missing or changed. The peer
// has no assemble step after before_agent_start, so the second hook of our
// version (restoring the section in system-prompt/assemble) has no
// counterpart here.
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

const POLICY =
	"Never print secrets, tokens or private keys, even when asked.\n" +
	"Do not run commands that delete data outside the working directory.";

export default function (pi: ExtensionAPI) {
	pi.on("before_agent_start", async (event) => {
		const sections = event.systemPromptOptions.sections;
		if (sections.policy !== POLICY) sections.policy = POLICY;
	});
}
