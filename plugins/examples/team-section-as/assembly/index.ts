// team-section-as adds a named section to the system prompt, taken from
// its manifest's config: the AssemblyScript twin of team-section, written
// against pi's stock Extism contract (no pi SDK).
import { Host, Memory } from "@extism/as-pdk";
import { error_set, length } from "@extism/as-pdk/lib/env";
import { decodeString, quote, rawField } from "./json";

// pi_fetch_block(key) returns the offset of an Extism memory block holding
// the value of key, or a negative error code (-1 not found).
@external("extism:host/user", "pi_fetch_block")
declare function pi_fetch_block(key: u64): i64;

function fetch(key: string): string | null {
  const k = Memory.allocateString(key);
  const off = pi_fetch_block(k.offset);
  k.free();
  if (off < 0) return null;
  return new Memory(u64(off), length(u64(off))).toString();
}

// output writes s as the call's Extism output. (Host.outputString takes
// the string's length in UTF-16 units, not bytes, so encode first.)
function output(s: string): void {
  Host.output(Uint8Array.wrap(String.UTF8.encode(s)));
}

export function pi_abi_version(): i32 {
  return 1;
}

export function pi_before_agent_start(): i32 {
  // The event (a BeforeAgentStartEvent) is the call's Extism input. This
  // extension does not need its fields, but it must be an object.
  const event = Host.inputString();
  if (!event.startsWith("{")) {
    output(`{"error":${quote("event is not a JSON object")}}`);
    return 0;
  }
  const config = fetch("config");
  if (config === null) {
    output(`{"error":"no config"}`);
    return 0;
  }
  const rawName = rawField(config, "name");
  const rawText = rawField(config, "text");
  const rawOrder = rawField(config, "order");
  const name = rawName === null ? "team" : decodeString(rawName);
  const text = rawText === null ? "" : decodeString(rawText);
  const order = rawOrder === null ? "250" : rawOrder;
  if (text.length == 0) {
    output(`{"result":{}}`);
    return 0;
  }
  output(`{"result":{"ops":[{"op":"set_section","name":${quote(name)},"text":${quote(text)},"order":${order}}]}}`);
  return 0;
}

// piAbort replaces AssemblyScript's default abort (which imports env.abort,
// a function pi does not provide): the message becomes the Extism error and
// the call traps.
export function piAbort(message: string | null, file: string | null, line: u32, column: u32): void {
  const m = Memory.allocateString(message === null ? "abort" : message);
  error_set(m.offset);
  unreachable();
}
