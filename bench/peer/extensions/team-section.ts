// team-section for the TypeScript peer: the counterpart of
// plugins/examples/team-section. Adds one named prompt section whose name and
// text come from config. Our WASM version reads its config from
// extension.yaml; here the same values live in team-section.json beside this
// file, read once when the extension loads.
import { readFileSync } from "node:fs";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

interface Config {
	name?: string;
	text?: string;
}

export default function (pi: ExtensionAPI) {
	const config: Config = JSON.parse(readFileSync(new URL("./team-section.json", import.meta.url), "utf8"));
	const name = config.name || "team";
	pi.on("before_agent_start", async (event) => {
		if (config.text) event.systemPromptOptions.sections[name] = config.text;
	});
}
