package main

// The TypeScript scaffold of pi ext init --ts: an extension in the
// established harness's format (a default export taking the API object),
// run by pi inside its JavaScript sandbox. pi-extension.d.ts describes the
// part of the API pi honours, so an editor checks the code without the
// established harness's packages installed.

const scaffoldTSIndex = `// NAME: a pi extension in TypeScript. pi bundles this file and runs it in
// its sandbox; the established harness loads it unchanged.
import type { ExtensionAPI } from "./pi-extension";

export default function (pi: ExtensionAPI) {
	// Refuse recursive deletes of the whole disk before they run.
	pi.on("tool_call", async (event) => {
		if (event.toolName === "bash" && /rm\s+-rf\s+\/(\s|$)/.test(String(event.input.command ?? ""))) {
			return { block: true, reason: "NAME refuses to delete everything" };
		}
	});

	// /NAME says hello.
	pi.registerCommand("NAME", {
		description: "Say hello from NAME",
		handler: async (args, ctx) => {
			ctx.ui.notify("hello from NAME" + (args ? ": " + args : ""), "info");
		},
	});
}
`

const scaffoldTSPackage = `{
  "name": "NAME",
  "version": "0.1.0",
  "private": true,
  "keywords": ["pi-package"],
  "pi": {
    "extensions": ["./index.ts"]
  }
}
`

const scaffoldTSConfig = `{
  "compilerOptions": {
    "target": "ES2022",
    "module": "ESNext",
    "moduleResolution": "Bundler",
    "strict": true,
    "noEmit": true,
    "skipLibCheck": true
  },
  "include": ["*.ts"]
}
`

const scaffoldTSEvent = `{"toolCallId": "call-1", "toolName": "bash", "source": "builtin", "input": {"command": "rm -rf /"}}
`

// scaffoldTSTypes is pi's supported extension surface, written for pi.
const scaffoldTSTypes = `// The extension API as pi runs it (a subset of the established harness's).
// Members pi cannot honour without its own terminal UI (custom components,
// renderers) are absent here; an extension that calls them still loads,
// and pi ext list names them.

export type JSONValue = string | number | boolean | null | JSONValue[] | { [key: string]: JSONValue };

export interface UI {
	notify(message: string, level?: "info" | "warning" | "error"): void;
	select(title: string, options: string[]): Promise<string | undefined>;
	confirm(title: string, message?: string): Promise<boolean>;
	input(title: string, placeholder?: string): Promise<string | undefined>;
	editor(title: string, initial?: string): Promise<string | undefined>;
	setStatus(key: string, text: string | undefined): void;
	setWidget(key: string, lines: string[] | undefined): void;
	setTitle(title: string): void;
	setEditorText(text: string): void;
	getEditorText(): string;
}

export interface Context {
	ui: UI;
	hasUI: boolean;
	mode: "interactive" | "print" | "json" | "rpc";
	cwd: string;
	model?: { provider: string; id: string };
	sessionManager: {
		getEntries(): unknown[];
		getBranch(): unknown[];
		getSessionFile(): string | undefined;
	};
	abort(): void;
	compact(options?: { customInstructions?: string }): void;
	getContextUsage(): { tokens: number; contextWindow: number } | undefined;
}

export interface ToolCallEvent { toolCallId: string; toolName: string; input: Record<string, any> }
export interface ToolResultEvent extends ToolCallEvent {
	content: { type: "text"; text: string }[];
	isError: boolean;
}
export interface BeforeAgentStartEvent { prompt: string; systemPrompt: string }

export interface Events {
	session_start: [{ reason: string }, void];
	session_shutdown: [{ reason: string }, void];
	before_agent_start: [BeforeAgentStartEvent, { systemPrompt?: string; message?: { customType: string; content: string; display?: boolean } } | void];
	agent_start: [{}, void];
	agent_end: [{ messages: unknown[] }, void];
	turn_start: [{ turnIndex: number }, void];
	turn_end: [{ turnIndex: number; message: unknown }, void];
	tool_call: [ToolCallEvent, { block?: boolean; reason?: string } | void];
	tool_result: [ToolResultEvent, { content?: ToolResultEvent["content"]; isError?: boolean } | void];
	input: [{ text: string }, { action: "continue" | "transform" | "handled"; text?: string } | void];
	context: [{ messages: unknown[] }, { messages?: unknown[] } | void];
}

export interface ToolDefinition {
	name: string;
	label?: string;
	description: string;
	parameters: JSONValue;
	execute(
		toolCallId: string,
		params: any,
		signal: AbortSignal | undefined,
		onUpdate: ((partial: { content: { type: "text"; text: string }[] }) => void) | undefined,
		ctx: Context,
	): Promise<{ content: { type: "text"; text: string }[]; details?: unknown; isError?: boolean }>;
}

export interface ExtensionAPI {
	on<E extends keyof Events>(event: E, handler: (event: Events[E][0], ctx: Context) => Events[E][1] | Promise<Events[E][1]>): void;
	registerCommand(name: string, command: {
		description?: string;
		getArgumentCompletions?(prefix: string): { value: string; label?: string }[] | null;
		handler(args: string, ctx: Context): void | Promise<void>;
	}): void;
	registerTool(tool: ToolDefinition): void;
	registerFlag(name: string, flag: { description?: string; type: "boolean" | "string"; default?: boolean | string }): void;
	getFlag(name: string): boolean | string | undefined;
	registerShortcut(key: string, shortcut: { description?: string; handler(ctx: Context): void | Promise<void> }): void;
	sendMessage(message: { customType: string; content: string; display?: boolean }, options?: { triggerTurn?: boolean }): void;
	sendUserMessage(text: string): void;
	appendEntry(customType: string, data?: unknown): void;
	setSessionName(name: string): void;
	getActiveTools(): string[];
	setActiveTools(names: string[]): void;
	exec(command: string, args: string[], options?: { cwd?: string; timeout?: number }): Promise<{ stdout: string; stderr: string; code: number }>;
	events: { on(channel: string, handler: (data: unknown) => void): void; emit(channel: string, data: unknown): void };
}
`
