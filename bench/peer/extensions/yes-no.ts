// yes-no for the TypeScript peer: the counterpart of plugins/examples/yes-no.
// When the input starts with "?", the run's system prompt is replaced by a
// prompt asking for a one-word yes or no answer. The peer keeps a forced
// prompt out of the transcript's structured sections, as ours does.
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

const PROMPT =
	"Reply to the user's question with exactly one word, yes or no, " +
	"followed by nothing else. If you cannot tell, pick the more likely answer.";

export default function (pi: ExtensionAPI) {
	pi.on("before_agent_start", async (event) => {
		if (event.messageType === "user" && (event.prompt ?? "").trimStart().startsWith("?")) {
			event.systemPromptOptions.forceSystemPrompt = PROMPT;
		}
	});
}
