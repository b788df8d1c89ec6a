// The conformance guest built with the stock Extism AssemblyScript PDK
// (@extism/as-pdk): the same exports as the Go PDK's guest, run by host's
// conformance test under pi's kernel and under Extism's own Go host.
import { Config, Host, LogLevel, Memory, Var } from "@extism/as-pdk";
import { error_set, http_request, length } from "@extism/as-pdk/lib/env";

// The PDK's env declares http_request but not the status code.
@external("extism:host/env", "http_status_code")
declare function http_status_code(): i32;

// output writes s as the call's output (Host.outputString takes the
// length in UTF-16 units, not bytes).
function output(s: string): void {
  Host.output(Uint8Array.wrap(String.UTF8.encode(s)));
}

function setError(s: string): void {
  error_set(Memory.allocateString(s).offset);
}

export function pi_abi_version(): i32 {
  return 1;
}

export function pi_input(): i32 {
  output(`{"result":{}}`);
  return 0;
}

export function echo(): i32 {
  Host.output(Host.input());
  return 0;
}

export function blocks(): i32 {
  const input = Host.input();
  const empty = Memory.allocate(0);
  const a = Memory.allocateBytes(input);
  const b = Memory.allocateString("second");
  empty.free();
  const c = Memory.allocate(3);
  c.store(Uint8Array.wrap(String.UTF8.encode("abc")));
  output(`empty=${empty.offset}/${length(empty.offset)} a=${length(a.offset)} b=${length(b.offset)} c=${length(c.offset)} ` +
    `a=${a.toString()} b=${b.toString()} c=${c.toString()}`);
  return 0;
}

export function vars(): i32 {
  const input = Host.input();
  const prev = Var.getString("count");
  const n = (prev === null ? 0 : I32.parseInt(prev)) + 1;
  Var.set("count", Uint8Array.wrap(String.UTF8.encode(n.toString())));
  Var.set("value", input);
  const got = Var.getString("value");
  Var.set("empty", new Uint8Array(0));
  const empty = Var.get("empty");
  Var.set("gone", Uint8Array.wrap(String.UTF8.encode("x")));
  Var.remove("gone");
  output(`count=${n} value=${got === null ? "<null>" : got!} empty=${empty === null} gone=${Var.get("gone") === null} missing=${Var.get("never set") === null}`);
  return 0;
}

export function config(): i32 {
  const keys = Host.inputString().split(",");
  const parts: string[] = [];
  for (let i = 0; i < keys.length; i++) {
    const v = Config.get(keys[i]);
    parts.push(keys[i] + "=" + (v === null ? "<absent>" : v!));
  }
  output(parts.join(" "));
  return 0;
}

export function fail(): i32 {
  setError("failed: " + Host.inputString());
  return 1;
}

export function fail_zero(): i32 {
  output("an answer that must not be used");
  setError("failed quietly");
  return 0;
}

export function logs(): i32 {
  const input = Host.inputString();
  Host.log(LogLevel.Debug, "debug line: " + input);
  Host.log(LogLevel.Info, "info line: " + input);
  Host.log(LogLevel.Warn, "warn line: " + input);
  Host.log(LogLevel.Error, "error line: " + input);
  output("logged");
  return 0;
}

export function http(): i32 {
  const req = `{"method":"GET","url":"${Host.inputString()}","headers":{"X-Test":"conformance"}}`;
  const off = http_request(Memory.allocateString(req).offset, 0);
  const status = http_status_code();
  let body = "";
  if (off != 0) body = new Memory(off, length(off)).toString();
  output(`status=${status} body=${body}`);
  return 0;
}

export function big(): i32 {
  const n = I32.parseInt(Host.inputString());
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    out[i] = u8(97 + (i % 26));
  }
  Host.output(out);
  return 0;
}

// piAbort replaces AssemblyScript's default abort (which imports env.abort,
// a function neither host provides): the message becomes the Extism error
// and the call traps.
export function piAbort(message: string | null, file: string | null, line: u32, column: u32): void {
  setError(message === null ? "abort" : message!);
  unreachable();
}
