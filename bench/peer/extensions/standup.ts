// standup for the TypeScript peer: the counterpart of
// plugins/examples/standup. Registers `/standup [days]`, which sends the model
// a request to draft a standup update covering that many days (default 1).
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

export default function (pi: ExtensionAPI) {
	pi.registerCommand("standup", {
		description: "Draft a standup update from recent work",
		handler: async (args, ctx) => {
			let days = 1;
			const first = (args ?? "").trim().split(/\s+/)[0];
			if (first) {
				const n = Number(first);
				if (!Number.isInteger(n) || n < 1 || n > 365) {
					const msg = `usage: /standup [days], days a number from 1 to 365 (got "${first}")`;
					if (ctx.hasUI) ctx.ui.notify(msg, "error");
					else console.error(msg);
					return;
				}
				days = n;
			}
			const period = days > 1 ? `${days} days` : "day";
			pi.sendUserMessage(
				`Draft my standup update for the last ${period}. Look at the git log and the files changed in that period, ` +
					"then write three short lists: what I did, what I will do next, and anything blocking me.",
			);
			// In print mode the process ends as soon as the command returns,
			// and the turn that sendUserMessage starts begins only a few ticks
			// later (after input hooks and the auth check). Wait for it to
			// start, then for it to settle, so the reply gets printed.
			for (let i = 0; i < 200 && ctx.isIdle(); i++) await new Promise((r) => setTimeout(r, 5));
			await ctx.waitForIdle();
		},
	});
}
