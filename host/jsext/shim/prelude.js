// pi's runtime for extensions written against the established harness's
// ExtensionAPI. It runs first in every extension's engine instance, before
// the extension's bundle, and gives the bundle:
//
//   - the `pi` object its default export is called with, and the `ctx`
//     every handler, tool and command receives;
//   - the modules its imports resolve to (__pi_require): the harness's own
//     packages, typebox, and the Node built-ins pi offers;
//   - the globals a Node program expects (console, timers, process,
//     Buffer, TextEncoder, fetch, URL, AbortController).
//
// Everything that reaches outside the instance goes through one function,
// the host's __pi_host(op, json) -> json, which this file takes out of the
// global object before any extension code runs. The host checks every
// request (grants, paths, sizes); nothing here is trusted by it.
//
// Go calls in through __pi_dispatch(json) (one message: load, event, tool,
// command, complete) and __pi_idle() (run due timers). Both answer JSON.
"use strict";
(() => {
	const hostCall = globalThis.__pi_host;
	delete globalThis.__pi_host;
	// Captured before any extension code runs, so that an extension which
	// replaces JSON or Object methods changes nothing here.
	const { stringify, parse } = JSON;
	const { freeze, defineProperty, keys: objectKeys, create, assign } = Object;
	const isArray = Array.isArray;

	function host(op, payload) {
		const out = hostCall(op, stringify(payload === undefined ? null : payload));
		return out === "" ? undefined : parse(out);
	}

	// ---- what the extension used that pi cannot honour ----
	const unsupported = new Set();
	const unsupportedUse = (member) => {
		unsupported.add(member);
	};

	// ---- console ----
	function formatValue(v, depth) {
		if (typeof v === "string") return v;
		if (v instanceof Error) return v.stack ? `${v.name}: ${v.message}\n${v.stack}` : `${v.name}: ${v.message}`;
		if (typeof v === "function") return `[Function ${v.name || "anonymous"}]`;
		if (typeof v !== "object" || v === null) return String(v);
		if (depth > 2) return isArray(v) ? "[Array]" : "[Object]";
		try {
			return stringify(v);
		} catch {
			return Object.prototype.toString.call(v);
		}
	}
	function format(...args) {
		let out = "";
		if (typeof args[0] === "string" && args[0].includes("%")) {
			let i = 1;
			out = args[0].replace(/%[sdifjoO%]/g, (m) => {
				if (m === "%%") return "%";
				if (i >= args.length) return m;
				const a = args[i++];
				switch (m) {
					case "%d":
					case "%i":
						return String(Math.trunc(Number(a)));
					case "%f":
						return String(Number(a));
					case "%j":
						return stringify(a);
					default:
						return formatValue(a, 0);
				}
			});
			args = args.slice(i);
			if (args.length) out += " ";
		}
		return out + args.map((a) => formatValue(a, 0)).join(" ");
	}
	const log = (level) => (...args) => {
		host("log", { level, text: format(...args) });
	};
	const console = {
		log: log("info"),
		info: log("info"),
		debug: log("debug"),
		warn: log("warn"),
		error: log("error"),
		trace: log("debug"),
		dir: log("info"),
		table: log("info"),
		time() {},
		timeEnd() {},
		group() {},
		groupEnd() {},
		assert(cond, ...args) {
			if (!cond) log("error")("Assertion failed", ...args);
		},
	};

	// ---- timers: run on the job loop; waiting happens in the host ----
	let timerSeq = 0;
	const timers = new Map();
	function addTimer(fn, ms, args, repeat) {
		const id = ++timerSeq;
		const delay = Math.max(0, Number(ms) || 0);
		timers.set(id, { due: Date.now() + delay, fn, args, repeat: repeat ? Math.max(1, delay) : 0 });
		return id;
	}
	// A Node timer is an object with ref/unref; ours is a number with the
	// same methods reachable through Number.prototype would be too broad,
	// so a small object stands in and converts to its id.
	class Timeout {
		constructor(id) {
			this._id = id;
		}
		ref() {
			return this;
		}
		unref() {
			return this;
		}
		hasRef() {
			return true;
		}
		refresh() {
			const t = timers.get(this._id);
			if (t) t.due = Date.now() + (t.repeat || 0);
			return this;
		}
		[Symbol.toPrimitive]() {
			return this._id;
		}
	}
	const timerId = (t) => (t instanceof Timeout ? t._id : Number(t));
	const setTimeout = (fn, ms, ...args) => new Timeout(addTimer(fn, ms, args, false));
	const setInterval = (fn, ms, ...args) => new Timeout(addTimer(fn, ms, args, true));
	const clearTimeout = (t) => {
		if (t != null) timers.delete(timerId(t));
	};
	const setImmediate = (fn, ...args) => new Timeout(addTimer(fn, 0, args, false));
	globalThis.__pi_idle = () => {
		const now = Date.now();
		let next = -1;
		const due = [];
		for (const [id, t] of timers) {
			if (t.due <= now) due.push([id, t]);
			else if (next < 0 || t.due - now < next) next = t.due - now;
		}
		for (const [id, t] of due) {
			if (t.repeat) t.due = now + t.repeat;
			else timers.delete(id);
			if (typeof t.fn === "function") t.fn(...(t.args || []));
		}
		return String(due.length ? 0 : next);
	};

	// ---- text and bytes ----
	function utf8Encode(s) {
		s = String(s);
		const out = [];
		for (let i = 0; i < s.length; i++) {
			let c = s.charCodeAt(i);
			if (c >= 0xd800 && c < 0xdc00 && i + 1 < s.length) {
				const d = s.charCodeAt(i + 1);
				if (d >= 0xdc00 && d < 0xe000) {
					c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
					i++;
				} else c = 0xfffd;
			} else if (c >= 0xd800 && c < 0xe000) c = 0xfffd;
			if (c < 0x80) out.push(c);
			else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
			else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
			else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
		}
		return new Uint8Array(out);
	}
	function utf8Decode(b) {
		let s = "";
		for (let i = 0; i < b.length; ) {
			const c = b[i++];
			let cp = 0xfffd;
			if (c < 0x80) cp = c;
			else if (c >= 0xc0 && c < 0xe0 && i < b.length) cp = ((c & 31) << 6) | (b[i++] & 63);
			else if (c >= 0xe0 && c < 0xf0 && i + 1 < b.length) {
				cp = ((c & 15) << 12) | ((b[i] & 63) << 6) | (b[i + 1] & 63);
				i += 2;
			} else if (c >= 0xf0 && i + 2 < b.length) {
				cp = ((c & 7) << 18) | ((b[i] & 63) << 12) | ((b[i + 1] & 63) << 6) | (b[i + 2] & 63);
				i += 3;
			}
			s += String.fromCodePoint(cp);
		}
		return s;
	}
	class TextEncoder {
		get encoding() {
			return "utf-8";
		}
		encode(s = "") {
			return utf8Encode(s);
		}
	}
	class TextDecoder {
		constructor(label = "utf-8") {
			this.encoding = String(label).toLowerCase();
		}
		decode(b) {
			if (b == null) return "";
			const bytes = b instanceof Uint8Array ? b : new Uint8Array(b.buffer ? b.buffer : b);
			return utf8Decode(bytes);
		}
	}
	const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	function b64Encode(bytes) {
		let s = "";
		for (let i = 0; i < bytes.length; i += 3) {
			const n = (bytes[i] << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
			s += B64[(n >> 18) & 63] + B64[(n >> 12) & 63];
			s += i + 1 < bytes.length ? B64[(n >> 6) & 63] : "=";
			s += i + 2 < bytes.length ? B64[n & 63] : "=";
		}
		return s;
	}
	function b64Decode(s) {
		s = String(s).replace(/[^A-Za-z0-9+/\-_]/g, "");
		const out = [];
		let bits = 0;
		let n = 0;
		for (const ch of s) {
			let v = B64.indexOf(ch === "-" ? "+" : ch === "_" ? "/" : ch);
			n = (n << 6) | v;
			bits += 6;
			if (bits >= 8) {
				bits -= 8;
				out.push((n >> bits) & 255);
			}
		}
		return new Uint8Array(out);
	}

	class Buffer extends Uint8Array {
		static from(v, enc) {
			if (typeof v === "string") {
				let bytes;
				switch ((enc || "utf8").toLowerCase()) {
					case "base64":
					case "base64url":
						bytes = b64Decode(v);
						break;
					case "hex":
						bytes = new Uint8Array((v.match(/../g) || []).map((h) => parseInt(h, 16)));
						break;
					case "latin1":
					case "binary":
					case "ascii":
						bytes = new Uint8Array([...v].map((c) => c.charCodeAt(0) & 255));
						break;
					default:
						bytes = utf8Encode(v);
				}
				return Buffer._wrap(bytes);
			}
			if (v instanceof ArrayBuffer) return Buffer._wrap(new Uint8Array(v));
			if (ArrayBuffer.isView(v)) return Buffer._wrap(new Uint8Array(v.buffer, v.byteOffset, v.byteLength).slice());
			if (isArray(v)) return Buffer._wrap(new Uint8Array(v));
			if (v && v.type === "Buffer" && isArray(v.data)) return Buffer._wrap(new Uint8Array(v.data));
			throw new TypeError("Buffer.from: unsupported value");
		}
		static _wrap(u8) {
			const b = new Buffer(u8.length);
			b.set(u8);
			return b;
		}
		static alloc(n, fill = 0) {
			const b = new Buffer(n);
			b.fill(typeof fill === "number" ? fill : 0);
			return b;
		}
		static allocUnsafe(n) {
			return new Buffer(n);
		}
		static isBuffer(v) {
			return v instanceof Buffer;
		}
		static byteLength(s, enc) {
			return typeof s === "string" ? Buffer.from(s, enc).length : s.byteLength;
		}
		static concat(list, total) {
			const len = total ?? list.reduce((n, b) => n + b.length, 0);
			const out = Buffer.alloc(len);
			let off = 0;
			for (const b of list) {
				out.set(b.subarray(0, Math.max(0, len - off)), off);
				off += b.length;
				if (off >= len) break;
			}
			return out;
		}
		toString(enc = "utf8", start = 0, end = this.length) {
			const b = this.subarray(start, end);
			switch (String(enc).toLowerCase()) {
				case "base64":
					return b64Encode(b);
				case "base64url":
					return b64Encode(b).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
				case "hex":
					return [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
				case "latin1":
				case "binary":
				case "ascii":
					return String.fromCharCode(...b);
				default:
					return utf8Decode(b);
			}
		}
		toJSON() {
			return { type: "Buffer", data: [...this] };
		}
		equals(o) {
			return this.length === o.length && this.every((x, i) => x === o[i]);
		}
		write(s, off = 0) {
			const b = utf8Encode(s);
			this.set(b.subarray(0, this.length - off), off);
			return Math.min(b.length, this.length - off);
		}
	}

	// ---- events ----
	class EventEmitter {
		constructor() {
			this._events = new Map();
		}
		on(name, fn) {
			if (!this._events.has(name)) this._events.set(name, []);
			this._events.get(name).push(fn);
			return this;
		}
		addListener(name, fn) {
			return this.on(name, fn);
		}
		prependListener(name, fn) {
			if (!this._events.has(name)) this._events.set(name, []);
			this._events.get(name).unshift(fn);
			return this;
		}
		once(name, fn) {
			const w = (...a) => {
				this.off(name, w);
				fn.apply(this, a);
			};
			w.listener = fn;
			return this.on(name, w);
		}
		off(name, fn) {
			const l = this._events.get(name);
			if (l) {
				const i = l.findIndex((f) => f === fn || f.listener === fn);
				if (i >= 0) l.splice(i, 1);
			}
			return this;
		}
		removeListener(name, fn) {
			return this.off(name, fn);
		}
		removeAllListeners(name) {
			if (name === undefined) this._events.clear();
			else this._events.delete(name);
			return this;
		}
		emit(name, ...args) {
			const l = this._events.get(name);
			if (!l || l.length === 0) {
				if (name === "error") throw args[0] instanceof Error ? args[0] : new Error(String(args[0]));
				return false;
			}
			for (const fn of [...l]) fn.apply(this, args);
			return true;
		}
		listeners(name) {
			return [...(this._events.get(name) || [])];
		}
		listenerCount(name) {
			return (this._events.get(name) || []).length;
		}
		setMaxListeners() {
			return this;
		}
		eventNames() {
			return [...this._events.keys()];
		}
	}

	// ---- abort ----
	class AbortSignal extends EventEmitter {
		constructor() {
			super();
			this.aborted = false;
			this.reason = undefined;
			this.onabort = null;
		}
		addEventListener(name, fn) {
			this.on(name, fn);
		}
		removeEventListener(name, fn) {
			this.off(name, fn);
		}
		throwIfAborted() {
			if (this.aborted) throw this.reason;
		}
		static abort(reason) {
			const c = new AbortController();
			c.abort(reason);
			return c.signal;
		}
		static timeout() {
			return new AbortController().signal;
		}
		static any() {
			return new AbortController().signal;
		}
	}
	class AbortController {
		constructor() {
			this.signal = new AbortSignal();
		}
		abort(reason) {
			const s = this.signal;
			if (s.aborted) return;
			s.aborted = true;
			s.reason = reason ?? new Error("This operation was aborted");
			if (typeof s.onabort === "function") s.onabort({ type: "abort" });
			s.emit("abort", { type: "abort" });
		}
	}

	// ---- path (POSIX) ----
	function normalizeParts(parts, absolute) {
		const out = [];
		for (const p of parts) {
			if (p === "" || p === ".") continue;
			if (p === "..") {
				if (out.length && out[out.length - 1] !== "..") out.pop();
				else if (!absolute) out.push("..");
			} else out.push(p);
		}
		return out;
	}
	const path = {
		sep: "/",
		delimiter: ":",
		normalize(p) {
			p = String(p);
			if (p === "") return ".";
			const abs = p.startsWith("/");
			const trailing = p.endsWith("/");
			let s = normalizeParts(p.split("/"), abs).join("/");
			if (!s && !abs) s = ".";
			if (s && trailing) s += "/";
			return (abs ? "/" : "") + s;
		},
		join(...ps) {
			const j = ps.filter((p) => p !== "").join("/");
			return j === "" ? "." : path.normalize(j);
		},
		resolve(...ps) {
			let r = "";
			for (let i = ps.length - 1; i >= 0 && !r.startsWith("/"); i--) {
				if (ps[i]) r = r ? `${ps[i]}/${r}` : String(ps[i]);
			}
			if (!r.startsWith("/")) r = `${process.cwd()}/${r}`;
			const s = "/" + normalizeParts(r.split("/"), true).join("/");
			return s;
		},
		isAbsolute: (p) => String(p).startsWith("/"),
		dirname(p) {
			p = String(p);
			if (p === "") return ".";
			const abs = p.startsWith("/");
			const s = p.replace(/\/+$/, "");
			const i = s.lastIndexOf("/");
			if (i < 0) return ".";
			if (i === 0) return "/";
			return abs || i > 0 ? s.slice(0, i) : ".";
		},
		basename(p, ext) {
			let b = String(p).replace(/\/+$/, "");
			b = b.slice(b.lastIndexOf("/") + 1);
			if (ext && b.endsWith(ext) && b !== ext) b = b.slice(0, -ext.length);
			return b;
		},
		extname(p) {
			const b = path.basename(p);
			const i = b.lastIndexOf(".");
			return i <= 0 ? "" : b.slice(i);
		},
		relative(from, to) {
			const f = path.resolve(from).split("/").filter(Boolean);
			const t = path.resolve(to).split("/").filter(Boolean);
			let i = 0;
			while (i < f.length && i < t.length && f[i] === t[i]) i++;
			return [...Array(f.length - i).fill(".."), ...t.slice(i)].join("/");
		},
		parse(p) {
			const root = String(p).startsWith("/") ? "/" : "";
			const base = path.basename(p);
			const ext = path.extname(p);
			return { root, dir: path.dirname(p), base, ext, name: ext ? base.slice(0, -ext.length) : base };
		},
		format(o) {
			const dir = o.dir || o.root || "";
			const base = o.base || (o.name || "") + (o.ext || "");
			return dir ? (dir.endsWith("/") ? dir + base : `${dir}/${base}`) : base;
		},
		toNamespacedPath: (p) => p,
	};
	path.posix = path;
	path.win32 = path;

	// ---- process ----
	let currentCwd = "/";
	const envProxy = new Proxy(
		{},
		{
			get(_, name) {
				if (typeof name !== "string") return undefined;
				return host("env", { name }) ?? undefined;
			},
			has(_, name) {
				return typeof name === "string" && host("env", { name }) != null;
			},
			set() {
				return true; // an extension's own changes stay invisible to everyone
			},
			deleteProperty() {
				return true;
			},
			ownKeys() {
				return [];
			},
		},
	);
	const process = new EventEmitter();
	assign(process, {
		env: envProxy,
		argv: ["pi"],
		execArgv: [],
		platform: "linux",
		arch: "wasm32",
		version: "v22.0.0",
		versions: { node: "22.0.0", pi: "1" },
		pid: 1,
		ppid: 0,
		execPath: "/pi",
		title: "pi",
		exitCode: undefined,
		cwd: () => currentCwd,
		chdir() {
			throw new Error("process.chdir is not available to pi extensions");
		},
		exit(code) {
			throw new Error(`process.exit(${code ?? ""}) is not available to pi extensions`);
		},
		nextTick: (fn, ...args) => queueMicrotask(() => fn(...args)),
		hrtime: Object.assign(
			(prev) => {
				const ns = Math.round(performance.now() * 1e6);
				const t = [Math.floor(ns / 1e9), ns % 1e9];
				return prev ? [t[0] - prev[0], t[1] - prev[1]] : t;
			},
			{ bigint: () => BigInt(Math.round(performance.now() * 1e6)) },
		),
		memoryUsage: () => ({ rss: 0, heapTotal: 0, heapUsed: 0, external: 0 }),
		uptime: () => performance.now() / 1000,
		stdout: { write: (s) => (log("info")(String(s).replace(/\n$/, "")), true), isTTY: false, columns: 80, rows: 24 },
		stderr: { write: (s) => (log("warn")(String(s).replace(/\n$/, "")), true), isTTY: false },
		stdin: { isTTY: false, on() {} },
		emitWarning: (w) => log("warn")(String(w)),
		umask: () => 0o22,
		getuid: () => 1000,
		getgid: () => 1000,
	});
	const queueMicrotask = (fn) => {
		Promise.resolve().then(fn);
	};
	const timeOrigin = Date.now();
	const performance = {
		now: () => Date.now() - timeOrigin,
		timeOrigin,
		mark() {},
		measure() {},
	};

	// ---- fs: every call is a host request checked against the grants ----
	const abs = (p) => {
		if (p instanceof URL) p = p.pathname;
		return path.resolve(String(p));
	};
	function fsError(e, op, p) {
		const err = new Error(e.message || String(e));
		const m = /^(E[A-Z]+):/.exec(err.message);
		if (m) err.code = m[1];
		err.syscall = op;
		err.path = p;
		return err;
	}
	function fsCall(op, p, extra) {
		try {
			return host("fs", assign({ op, path: abs(p) }, extra || {}));
		} catch (e) {
			throw fsError(e, op, p);
		}
	}
	function encodingOf(o) {
		return typeof o === "string" ? o : o && o.encoding;
	}
	function toBytes(data, enc) {
		if (typeof data === "string") return enc === "base64" ? data : b64Encode(utf8Encode(data));
		if (ArrayBuffer.isView(data)) return b64Encode(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
		return b64Encode(utf8Encode(String(data)));
	}
	class Stats {
		constructor(s) {
			assign(this, s);
			this.mtime = new Date(s.mtimeMs);
			this.atime = this.mtime;
			this.ctime = this.mtime;
			this.birthtime = this.mtime;
		}
		isFile() {
			return this.kind === "file";
		}
		isDirectory() {
			return this.kind === "dir";
		}
		isSymbolicLink() {
			return this.kind === "symlink";
		}
		isFIFO() {
			return false;
		}
		isSocket() {
			return false;
		}
	}
	class Dirent {
		constructor(name, kind, parent) {
			this.name = name;
			this.kind = kind;
			this.parentPath = parent;
			this.path = parent;
		}
		isFile() {
			return this.kind === "file";
		}
		isDirectory() {
			return this.kind === "dir";
		}
		isSymbolicLink() {
			return this.kind === "symlink";
		}
	}
	const fsSync = {
		readFileSync(p, o) {
			const r = fsCall("read", p);
			const bytes = b64Decode(r.data);
			const enc = encodingOf(o);
			return enc ? Buffer._wrap(bytes).toString(enc) : Buffer._wrap(bytes);
		},
		writeFileSync(p, data, o) {
			fsCall("write", p, { data: toBytes(data, encodingOf(o)) });
		},
		appendFileSync(p, data, o) {
			fsCall("write", p, { data: toBytes(data, encodingOf(o)), append: true });
		},
		existsSync(p) {
			try {
				fsCall("stat", p);
				return true;
			} catch {
				return false;
			}
		},
		statSync(p, o) {
			try {
				return new Stats(fsCall("stat", p));
			} catch (e) {
				if (o && o.throwIfNoEntry === false) return undefined;
				throw e;
			}
		},
		lstatSync(p, o) {
			return fsSync.statSync(p, o);
		},
		readdirSync(p, o) {
			const list = fsCall("readdir", p).entries;
			if (o && o.withFileTypes) return list.map((e) => new Dirent(e.name, e.kind, abs(p)));
			return list.map((e) => e.name);
		},
		mkdirSync(p, o) {
			fsCall("mkdir", p, { recursive: !!(o && (o === true || o.recursive)) });
			return undefined;
		},
		rmSync(p, o) {
			fsCall("remove", p, { recursive: !!(o && o.recursive), force: !!(o && o.force) });
		},
		unlinkSync(p) {
			fsCall("remove", p, {});
		},
		rmdirSync(p, o) {
			fsCall("remove", p, { recursive: !!(o && o.recursive) });
		},
		renameSync(a, b) {
			fsCall("rename", a, { to: abs(b) });
		},
		copyFileSync(a, b) {
			fsSync.writeFileSync(b, fsSync.readFileSync(a));
		},
		realpathSync(p) {
			return fsCall("realpath", p).path;
		},
		accessSync(p) {
			fsCall("stat", p);
		},
		mkdtempSync(prefix) {
			return fsCall("mkdtemp", prefix).path;
		},
		chmodSync() {},
		watch() {
			unsupportedUse("fs.watch");
			return { close() {}, on() {} };
		},
		watchFile() {
			unsupportedUse("fs.watchFile");
		},
		unwatchFile() {},
		createReadStream() {
			unsupportedUse("fs.createReadStream");
			throw new Error("fs.createReadStream is not available to pi extensions; use readFileSync");
		},
		createWriteStream() {
			unsupportedUse("fs.createWriteStream");
			throw new Error("fs.createWriteStream is not available to pi extensions; use writeFileSync");
		},
		constants: { F_OK: 0, R_OK: 4, W_OK: 2, X_OK: 1 },
	};
	fsSync.realpathSync.native = fsSync.realpathSync;
	const promisified = (fn) => (...a) => {
		try {
			return Promise.resolve(fn(...a));
		} catch (e) {
			return Promise.reject(e);
		}
	};
	const fsPromises = {
		readFile: promisified(fsSync.readFileSync),
		writeFile: promisified(fsSync.writeFileSync),
		appendFile: promisified(fsSync.appendFileSync),
		stat: promisified(fsSync.statSync),
		lstat: promisified(fsSync.statSync),
		readdir: promisified(fsSync.readdirSync),
		mkdir: promisified(fsSync.mkdirSync),
		rm: promisified(fsSync.rmSync),
		unlink: promisified(fsSync.unlinkSync),
		rmdir: promisified(fsSync.rmdirSync),
		rename: promisified(fsSync.renameSync),
		copyFile: promisified(fsSync.copyFileSync),
		realpath: promisified(fsSync.realpathSync),
		access: promisified(fsSync.accessSync),
		mkdtemp: promisified(fsSync.mkdtempSync),
		chmod: promisified(fsSync.chmodSync),
		constants: fsSync.constants,
	};
	const fs = assign({}, fsSync, { promises: fsPromises });
	// The callback forms.
	for (const name of objectKeys(fsPromises)) {
		if (typeof fsPromises[name] !== "function" || fs[name]) continue;
		fs[name] = (...a) => {
			const cb = typeof a[a.length - 1] === "function" ? a.pop() : () => {};
			fsPromises[name](...a).then((v) => cb(null, v), (e) => cb(e));
		};
	}
	fs.exists = (p, cb) => cb(fsSync.existsSync(p));

	// ---- child_process: through pi's sandboxed bash ----
	function shellQuote(a) {
		return /^[A-Za-z0-9_\/.,:=+@%-]+$/.test(a) ? a : `'${String(a).replace(/'/g, `'\\''`)}'`;
	}
	function runShell(command, o) {
		return host("exec", { command, cwd: o && o.cwd ? abs(o.cwd) : undefined, timeout: o && o.timeout, input: o && typeof o.input === "string" ? o.input : undefined });
	}
	function output(s, o) {
		const enc = encodingOf(o);
		return enc && enc !== "buffer" ? s : Buffer.from(s);
	}
	function execFailure(command, r) {
		const e = new Error(`Command failed: ${command}\n${r.stderr}`);
		e.status = r.code;
		e.code = r.code;
		e.stdout = r.stdout;
		e.stderr = r.stderr;
		e.killed = !!r.killed;
		return e;
	}
	class ChildProcess extends EventEmitter {
		constructor() {
			super();
			this.stdout = new EventEmitter();
			this.stderr = new EventEmitter();
			this.stdin = { write() {}, end() {}, on() {} };
			this.stdout.setEncoding = () => this.stdout;
			this.stderr.setEncoding = () => this.stderr;
			this.pid = 0;
			this.exitCode = null;
			this.killed = false;
		}
		kill() {
			this.killed = true;
			return false;
		}
	}
	function startChild(command, o) {
		const child = new ChildProcess();
		setTimeout(() => {
			let r;
			try {
				r = runShell(command, o);
			} catch (e) {
				child.emit("error", e);
				return;
			}
			if (r.stdout) child.stdout.emit("data", output(r.stdout, o));
			if (r.stderr) child.stderr.emit("data", output(r.stderr, o));
			child.stdout.emit("end");
			child.stderr.emit("end");
			child.exitCode = r.code;
			child.emit("exit", r.code, null);
			child.emit("close", r.code, null);
		}, 0);
		return child;
	}
	const commandLine = (file, args) => [file, ...(args || [])].map(shellQuote).join(" ");
	const childProcess = {
		execSync(command, o) {
			const r = runShell(command, o);
			if (r.code !== 0) throw execFailure(command, r);
			return output(r.stdout, o);
		},
		execFileSync(file, args, o) {
			if (!isArray(args)) (o = args), (args = []);
			const c = commandLine(file, args);
			const r = runShell(c, o);
			if (r.code !== 0) throw execFailure(c, r);
			return output(r.stdout, o);
		},
		spawnSync(file, args, o) {
			if (!isArray(args)) (o = args), (args = []);
			const c = o && o.shell ? [file, ...(args || [])].join(" ") : commandLine(file, args);
			const r = runShell(c, o);
			return { status: r.code, signal: null, stdout: output(r.stdout, o), stderr: output(r.stderr, o), pid: 0, output: [null, r.stdout, r.stderr] };
		},
		exec(command, o, cb) {
			if (typeof o === "function") (cb = o), (o = {});
			const child = startChild(command, o);
			let out = "";
			let err = "";
			child.stdout.on("data", (d) => (out += d));
			child.stderr.on("data", (d) => (err += d));
			child.on("close", (code) => cb && cb(code ? execFailure(command, { code, stdout: out, stderr: err }) : null, out, err));
			child.on("error", (e) => cb && cb(e, "", ""));
			return child;
		},
		execFile(file, args, o, cb) {
			if (typeof args === "function") (cb = args), (args = []), (o = {});
			if (typeof o === "function") (cb = o), (o = {});
			return childProcess.exec(commandLine(file, args), o, cb);
		},
		spawn(file, args, o) {
			if (!isArray(args)) (o = args), (args = []);
			const c = o && o.shell ? [file, ...(args || [])].join(" ") : commandLine(file, args);
			return startChild(c, assign({}, o, { encoding: "buffer" }));
		},
		fork() {
			unsupportedUse("child_process.fork");
			throw new Error("child_process.fork is not available to pi extensions");
		},
	};
	const execPromise = (command, o) =>
		new Promise((resolve, reject) =>
			childProcess.exec(command, o, (e, stdout, stderr) => (e ? reject(assign(e, { stdout, stderr })) : resolve({ stdout, stderr }))),
		);
	const execFilePromise = (file, args, o) =>
		new Promise((resolve, reject) =>
			childProcess.execFile(file, args, o, (e, stdout, stderr) => (e ? reject(assign(e, { stdout, stderr })) : resolve({ stdout, stderr }))),
		);

	// ---- util ----
	const customPromisify = Symbol.for("nodejs.util.promisify.custom");
	childProcess.exec[customPromisify] = execPromise;
	childProcess.execFile[customPromisify] = execFilePromise;
	const util = {
		format,
		inspect: (v) => formatValue(v, 0),
		promisify(fn) {
			if (fn[customPromisify]) return fn[customPromisify];
			return (...a) => new Promise((resolve, reject) => fn(...a, (e, v) => (e ? reject(e) : resolve(v))));
		},
		callbackify: (fn) => (...a) => {
			const cb = a.pop();
			fn(...a).then((v) => cb(null, v), cb);
		},
		deprecate: (fn) => fn,
		inherits(c, p) {
			Object.setPrototypeOf(c.prototype, p.prototype);
		},
		isDeepStrictEqual: (a, b) => stringify(a) === stringify(b),
		types: { isPromise: (v) => v instanceof Promise, isDate: (v) => v instanceof Date, isRegExp: (v) => v instanceof RegExp },
		TextEncoder,
		TextDecoder,
		stripVTControlCharacters: (s) => String(s).replace(/\x1b\[[0-9;?]*[A-Za-z]/g, ""),
	};
	util.promisify.custom = customPromisify;

	// ---- URL (the parts extensions use) ----
	class URLSearchParams {
		constructor(init) {
			this._p = [];
			if (typeof init === "string") {
				for (const kv of init.replace(/^\?/, "").split("&")) {
					if (!kv) continue;
					const [k, v = ""] = kv.split("=");
					this._p.push([decodeURIComponent(k.replace(/\+/g, " ")), decodeURIComponent(v.replace(/\+/g, " "))]);
				}
			} else if (init && typeof init === "object") {
				for (const [k, v] of isArray(init) ? init : Object.entries(init)) this._p.push([String(k), String(v)]);
			}
		}
		get(k) {
			const e = this._p.find((p) => p[0] === k);
			return e ? e[1] : null;
		}
		getAll(k) {
			return this._p.filter((p) => p[0] === k).map((p) => p[1]);
		}
		has(k) {
			return this._p.some((p) => p[0] === k);
		}
		set(k, v) {
			this.delete(k);
			this._p.push([k, String(v)]);
		}
		append(k, v) {
			this._p.push([k, String(v)]);
		}
		delete(k) {
			this._p = this._p.filter((p) => p[0] !== k);
		}
		entries() {
			return this._p[Symbol.iterator]();
		}
		[Symbol.iterator]() {
			return this._p[Symbol.iterator]();
		}
		forEach(fn) {
			for (const [k, v] of this._p) fn(v, k, this);
		}
		toString() {
			return this._p.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join("&");
		}
	}
	class URL {
		constructor(u, base) {
			u = String(u);
			const m = /^([a-zA-Z][a-zA-Z0-9+.-]*:)(?:\/\/(?:([^:@\/]*)(?::([^@\/]*))?@)?([^:\/?#]*)(?::(\d+))?)?([^?#]*)(\?[^#]*)?(#.*)?$/.exec(u);
			if (!m) {
				if (base === undefined) throw new TypeError(`Invalid URL: ${u}`);
				const b = new URL(base);
				const p = u.startsWith("/") ? u : path.join(path.dirname(b.pathname), u.split(/[?#]/)[0]);
				const rest = u.slice(u.split(/[?#]/)[0].length);
				return new URL(`${b.protocol}//${b.host}${path.normalize(p)}${rest}`);
			}
			this.protocol = m[1].toLowerCase();
			this.username = m[2] || "";
			this.password = m[3] || "";
			this.hostname = (m[4] || "").toLowerCase();
			this.port = m[5] || "";
			this.pathname = m[6] || (this.hostname ? "/" : "");
			this.search = m[7] && m[7] !== "?" ? m[7] : "";
			this.hash = m[8] && m[8] !== "#" ? m[8] : "";
			this.searchParams = new URLSearchParams(this.search);
		}
		get host() {
			return this.port ? `${this.hostname}:${this.port}` : this.hostname;
		}
		get origin() {
			return `${this.protocol}//${this.host}`;
		}
		get href() {
			const auth = this.username ? `${this.username}${this.password ? ":" + this.password : ""}@` : "";
			const q = this.searchParams.toString();
			return `${this.protocol}//${auth}${this.host}${this.pathname}${q ? "?" + q : ""}${this.hash}`;
		}
		toString() {
			return this.href;
		}
		toJSON() {
			return this.href;
		}
	}
	const url = {
		URL,
		URLSearchParams,
		fileURLToPath: (u) => decodeURIComponent((u instanceof URL ? u : new URL(String(u))).pathname),
		pathToFileURL: (p) => new URL(`file://${path.resolve(p)}`),
		parse: (u) => new URL(u),
		format: (u) => String(u),
	};

	// ---- fetch, under the network grant ----
	class Headers {
		constructor(init) {
			this._h = new Map();
			if (init) for (const [k, v] of init instanceof Headers ? init._h : isArray(init) ? init : Object.entries(init)) this._h.set(String(k).toLowerCase(), String(v));
		}
		get(k) {
			return this._h.get(String(k).toLowerCase()) ?? null;
		}
		set(k, v) {
			this._h.set(String(k).toLowerCase(), String(v));
		}
		has(k) {
			return this._h.has(String(k).toLowerCase());
		}
		append(k, v) {
			const o = this.get(k);
			this.set(k, o ? `${o}, ${v}` : v);
		}
		delete(k) {
			this._h.delete(String(k).toLowerCase());
		}
		entries() {
			return this._h.entries();
		}
		forEach(fn) {
			for (const [k, v] of this._h) fn(v, k, this);
		}
		[Symbol.iterator]() {
			return this._h.entries();
		}
	}
	class Response {
		constructor(body, init = {}) {
			this._body = body ?? "";
			this.status = init.status ?? 200;
			this.statusText = init.statusText ?? "";
			this.headers = new Headers(init.headers);
			this.ok = this.status >= 200 && this.status < 300;
			this.url = init.url ?? "";
		}
		async text() {
			return typeof this._body === "string" ? this._body : utf8Decode(this._body);
		}
		async json() {
			return parse(await this.text());
		}
		async arrayBuffer() {
			return (typeof this._body === "string" ? utf8Encode(this._body) : this._body).buffer;
		}
	}
	async function fetch(input, init = {}) {
		const u = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
		let body = init.body;
		if (body != null && typeof body !== "string") body = ArrayBuffer.isView(body) ? utf8Decode(new Uint8Array(body.buffer, body.byteOffset, body.byteLength)) : String(body);
		const r = host("fetch", { url: String(u), method: init.method || "GET", headers: init.headers ? Object.fromEntries(new Headers(init.headers)._h) : {}, body });
		return new Response(b64Decode(r.body), { status: r.status, statusText: r.statusText, headers: r.headers, url: r.url });
	}

	// ---- crypto (the parts extensions use) ----
	const randomBytes = (n) => Buffer.from(host("random", { n }), "base64");
	const crypto = {
		randomUUID() {
			const b = randomBytes(16);
			b[6] = (b[6] & 0x0f) | 0x40;
			b[8] = (b[8] & 0x3f) | 0x80;
			const h = b.toString("hex");
			return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
		},
		randomBytes,
		getRandomValues(a) {
			const b = randomBytes(a.byteLength);
			new Uint8Array(a.buffer, a.byteOffset, a.byteLength).set(b);
			return a;
		},
		createHash(alg) {
			const parts = [];
			const h = {
				update(d, enc) {
					parts.push(typeof d === "string" ? Buffer.from(d, enc) : Buffer.from(d));
					return h;
				},
				digest(enc) {
					const out = Buffer.from(host("hash", { alg, data: Buffer.concat(parts).toString("base64") }), "base64");
					return enc ? out.toString(enc) : out;
				},
			};
			return h;
		},
	};

	// ---- os ----
	let osInfo;
	const osGet = () => (osInfo ??= host("os", null));
	const os = {
		homedir: () => osGet().homedir,
		tmpdir: () => osGet().tmpdir,
		hostname: () => "localhost",
		platform: () => "linux",
		type: () => "Linux",
		arch: () => "wasm32",
		release: () => "",
		EOL: "\n",
		cpus: () => [],
		totalmem: () => 0,
		freemem: () => 0,
		userInfo: () => ({ username: "user", homedir: osGet().homedir, shell: "/bin/bash", uid: 1000, gid: 1000 }),
		networkInterfaces: () => ({}),
		loadavg: () => [0, 0, 0],
		uptime: () => 0,
		constants: { signals: {} },
	};

	// ---- typebox: Type.* builds JSON Schema ----
	const OptionalKind = Symbol.for("pi.typebox.optional");
	const schema = (base, opts) => assign(base, opts || {});
	const Type = {
		String: (o) => schema({ type: "string" }, o),
		Number: (o) => schema({ type: "number" }, o),
		Integer: (o) => schema({ type: "integer" }, o),
		Boolean: (o) => schema({ type: "boolean" }, o),
		Null: (o) => schema({ type: "null" }, o),
		Any: (o) => schema({}, o),
		Unknown: (o) => schema({}, o),
		Never: (o) => schema({ not: {} }, o),
		Literal: (v, o) => schema({ const: v, type: typeof v === "number" ? (Number.isInteger(v) ? "integer" : "number") : typeof v }, o),
		Array: (items, o) => schema({ type: "array", items }, o),
		Tuple: (items, o) => schema({ type: "array", items, prefixItems: items, minItems: items.length, maxItems: items.length }, o),
		Union: (anyOf, o) => schema({ anyOf }, o),
		Intersect: (allOf, o) => schema({ allOf }, o),
		Enum(e, o) {
			const values = isArray(e) ? e : Object.values(e).filter((v) => typeof v !== "number" || !(String(v) in e));
			return schema({ enum: values, anyOf: undefined }, o);
		},
		Record: (k, v, o) => schema({ type: "object", additionalProperties: v }, o),
		Object(properties, o) {
			const required = objectKeys(properties).filter((k) => !properties[k][OptionalKind]);
			const s = { type: "object", properties };
			if (required.length) s.required = required;
			return schema(s, o);
		},
		Partial(s) {
			const props = {};
			for (const k of objectKeys(s.properties || {})) props[k] = Type.Optional(s.properties[k]);
			return assign({}, s, { properties: props, required: undefined });
		},
		Optional(s) {
			const c = assign({}, s);
			defineProperty(c, OptionalKind, { value: true, enumerable: false });
			return c;
		},
		Readonly: (s) => s,
		Ref: (ref) => ({ $ref: typeof ref === "string" ? ref : ref.$id }),
		Unsafe: (o) => assign({}, o),
		Date: (o) => schema({ type: "string", format: "date-time" }, o),
		Uint8Array: (o) => schema({ type: "string", contentEncoding: "base64" }, o),
		Function: () => ({}),
		Void: () => ({ type: "null" }),
		Undefined: () => ({ type: "null" }),
		KeyOf: (s) => ({ enum: objectKeys(s.properties || {}) }),
		Pick: (s, ks) => Type.Object(Object.fromEntries(ks.map((k) => [k, s.properties[k]]))),
		Omit: (s, ks) => Type.Object(Object.fromEntries(objectKeys(s.properties || {}).filter((k) => !ks.includes(k)).map((k) => [k, s.properties[k]]))),
		Composite: (list) => Type.Object(assign({}, ...list.map((s) => s.properties || {}))),
		RegExp: (re, o) => schema({ type: "string", pattern: re instanceof RegExp ? re.source : String(re) }, o),
	};
	const StringEnum = (values, o) => schema({ type: "string", enum: [...values] }, o);
	const typebox = { Type, Kind: Symbol.for("TypeBox.Kind"), Optional: Type.Optional, Value: { Check: () => true, Default: (_s, v) => v, Clean: (_s, v) => v, Convert: (_s, v) => v } };

	// ---- modules that fabricate a recording stub for names pi lacks ----
	// esbuild's interop copies a CommonJS module's own properties and keeps
	// its prototype, so a module object whose prototype is this proxy
	// answers every name: known ones from the object itself, unknown ones
	// with a stub that records its use (and does nothing).
	function stub(name) {
		const f = function (...args) {
			unsupportedUse(name);
			if (new.target) return this;
			return undefined;
		};
		defineProperty(f, "name", { value: name.slice(name.lastIndexOf(".") + 1) });
		f.prototype.render = () => [];
		f.prototype.invalidate = () => {};
		f.prototype.handleInput = () => {};
		f.prototype.addChild = () => {};
		f.prototype.setText = () => {};
		return f;
	}
	function moduleOf(name, known) {
		const stubs = new Map();
		const proto = new Proxy(
			{},
			{
				get(_, k, receiver) {
					if (typeof k === "symbol" || k === "then" || k === "__esModule" || k === "default") return undefined;
					if (!stubs.has(k)) stubs.set(k, stub(`${name}.${k}`));
					return stubs.get(k);
				},
			},
		);
		const m = create(proto);
		assign(m, known);
		return m;
	}

	// Components of the harness's terminal UI: pi draws none of them, so
	// they keep their text for whoever reads it and render nothing.
	class Component {
		constructor(...args) {
			this.children = [];
			this.text = typeof args[0] === "string" ? args[0] : "";
		}
		render() {
			return [];
		}
		invalidate() {}
		handleInput() {}
		addChild(c) {
			this.children.push(c);
		}
		removeChild(c) {
			this.children = this.children.filter((x) => x !== c);
		}
		clear() {
			this.children = [];
		}
		setText(t) {
			this.text = t;
		}
		dispose() {}
	}
	const stripAnsi = (s) => String(s).replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "").replace(/\x1b\][^\x07]*\x07/g, "");
	const keyNames = new Proxy({}, { get: (_, k) => (typeof k === "string" ? k : undefined) });
	const tui = {
		Text: class Text extends Component {},
		TruncatedText: class TruncatedText extends Component {},
		Container: class Container extends Component {},
		Box: class Box extends Component {},
		Spacer: class Spacer extends Component {},
		Markdown: class Markdown extends Component {},
		Loader: class Loader extends Component {},
		Input: class Input extends Component {},
		Editor: class Editor extends Component {},
		SelectList: class SelectList extends Component {},
		SettingsList: class SettingsList extends Component {},
		Image: class Image extends Component {},
		matchesKey: () => false,
		isKeyRelease: () => false,
		isKeyRepeat: () => false,
		parseKey: () => undefined,
		Key: keyNames,
		visibleWidth: (s) => [...stripAnsi(s)].length,
		truncateToWidth(s, w, ellipsis = "…") {
			const plain = [...stripAnsi(s)];
			return plain.length <= w ? String(s) : plain.slice(0, Math.max(0, w - [...ellipsis].length)).join("") + ellipsis;
		},
		wrapTextWithAnsi: (s, w) => {
			const out = [];
			for (const line of String(s).split("\n")) {
				let l = line;
				while ([...l].length > w && w > 0) {
					out.push([...l].slice(0, w).join(""));
					l = [...l].slice(w).join("");
				}
				out.push(l);
			}
			return out;
		},
		CURSOR_MARKER: "\x1b_pi:c\x07",
		fuzzyFilter: (items, q, get) => items.filter((i) => String(get ? get(i) : i).toLowerCase().includes(String(q).toLowerCase())),
	};

	// ---- the harness's own package ----
	const defineTool = (t) => t;
	const agent = {
		defineTool,
		isToolCallEventType: (name, ev) => ev && ev.toolName === name,
		isBashToolResult: (ev) => ev && ev.toolName === "bash",
		getAgentDir: () => osGet().agentDir,
		CONFIG_DIR_NAME: ".pi",
		VERSION: "1.6.0",
		withFileMutationQueue: async (_p, fn) => fn(),
		DynamicBorder: class DynamicBorder extends Component {},
		BorderedLoader: class BorderedLoader extends Component {
			constructor(...a) {
				super(...a);
				this.signal = new AbortController().signal;
				this.onAbort = undefined;
			}
		},
		CustomEditor: class CustomEditor extends Component {},
		parseFrontmatter(text) {
			const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(String(text));
			if (!m) return { frontmatter: {}, body: String(text) };
			const fm = {};
			for (const line of m[1].split(/\r?\n/)) {
				const kv = /^([A-Za-z0-9_-]+):\s*(.*)$/.exec(line);
				if (kv) fm[kv[1]] = kv[2].replace(/^["']|["']$/g, "");
			}
			return { frontmatter: fm, body: m[2] };
		},
		stripFrontmatter(text) {
			return agent.parseFrontmatter(text).body;
		},
		getMarkdownTheme: () => ({}),
		getSettingsListTheme: () => ({}),
		getSelectListTheme: () => ({}),
		keyHint: (_k, d) => d,
		rawKeyHint: (_k, d) => d,
	};
	const ai = {
		Type,
		StringEnum,
	};

	const modules = {
		"@earendil-works/pi-coding-agent": () => moduleOf("pi-coding-agent", agent),
		"@earendil-works/pi-ai": () => moduleOf("pi-ai", ai),
		"@earendil-works/pi-tui": () => moduleOf("pi-tui", tui),
		"@earendil-works/pi-agent-core": () => moduleOf("pi-agent-core", {}),
		typebox: () => assign(create(null), typebox, Type, { Type, default: typebox }),
		fs: () => fs,
		"fs/promises": () => fsPromises,
		path: () => assign({}, path, { default: path }),
		os: () => assign({}, os, { default: os }),
		url: () => url,
		util: () => assign({}, util, { default: util }),
		events: () => {
			const m = EventEmitter;
			m.EventEmitter = EventEmitter;
			m.default = EventEmitter;
			m.once = (em, name) => new Promise((r) => em.once(name, (...a) => r(a)));
			return m;
		},
		buffer: () => ({ Buffer }),
		child_process: () => childProcess,
		crypto: () => crypto,
		process: () => process,
		timers: () => ({ setTimeout, setInterval, clearTimeout, clearInterval: clearTimeout, setImmediate, clearImmediate: clearTimeout }),
		"timers/promises": () => ({ setTimeout: (ms, v) => new Promise((r) => setTimeout(() => r(v), ms)), setImmediate: (v) => Promise.resolve(v) }),
		string_decoder: () => ({
			StringDecoder: class StringDecoder {
				write(b) {
					return utf8Decode(b);
				}
				end(b) {
					return b ? utf8Decode(b) : "";
				}
			},
		}),
		assert: () => {
			const a = (c, m) => {
				if (!c) throw new Error(m || "Assertion failed");
			};
			a.ok = a;
			a.equal = (x, y, m) => a(x == y, m);
			a.strictEqual = (x, y, m) => a(x === y, m);
			a.deepStrictEqual = (x, y, m) => a(stringify(x) === stringify(y), m);
			return a;
		},
		module: () => ({ createRequire: () => (name) => globalThis.__pi_require(name) }),
	};
	const loaded = new Map();
	globalThis.__pi_require = (name) => {
		if (loaded.has(name)) return loaded.get(name);
		const make = modules[name];
		const m = make ? make() : moduleOf(name, {});
		if (!make) unsupportedUse(`import ${name}`);
		loaded.set(name, m);
		return m;
	};

	// ---- globals ----
	const globals = {
		console,
		setTimeout,
		setInterval,
		clearTimeout,
		clearInterval: clearTimeout,
		setImmediate,
		clearImmediate: clearTimeout,
		queueMicrotask,
		process,
		Buffer,
		TextEncoder,
		TextDecoder,
		URL,
		URLSearchParams,
		AbortController,
		AbortSignal,
		Headers,
		Response,
		fetch,
		crypto,
		performance,
		structuredClone: (v) => (v === undefined ? undefined : parse(stringify(v))),
		atob: (s) => String.fromCharCode(...b64Decode(s)),
		btoa: (s) => b64Encode(new Uint8Array([...String(s)].map((c) => c.charCodeAt(0) & 255))),
		global: globalThis,
	};
	for (const k of objectKeys(globals)) defineProperty(globalThis, k, { value: globals[k], writable: true, configurable: true });

	// ---- the extension's registrations ----
	const handlers = new Map(); // event name -> [fn]
	const tools = new Map();
	const commands = new Map();
	const flags = new Map();
	let flagValues = {};
	const busListeners = new Map();

	function toolInfo(t) {
		return {
			name: String(t.name),
			label: t.label == null ? undefined : String(t.label),
			description: String(t.description ?? ""),
			parameters: t.parameters ?? { type: "object", properties: {} },
			promptSnippet: t.promptSnippet == null ? undefined : String(t.promptSnippet),
			promptGuidelines: isArray(t.promptGuidelines) ? t.promptGuidelines.map(String) : undefined,
		};
	}

	const pi = {
		on(event, fn) {
			if (typeof fn !== "function") throw new TypeError(`pi.on(${stringify(event)}): the handler is not a function`);
			event = String(event);
			if (!handlers.has(event)) handlers.set(event, []);
			handlers.get(event).push(fn);
			return () => {
				const l = handlers.get(event) || [];
				const i = l.indexOf(fn);
				if (i >= 0) l.splice(i, 1);
			};
		},
		registerTool(t) {
			if (!t || typeof t.name !== "string" || typeof t.execute !== "function") throw new TypeError("registerTool: a tool needs a name and an execute function");
			tools.set(t.name, t);
			if (loadedOnce) host("tools_changed", { tools: [...tools.values()].map(toolInfo) });
		},
		registerCommand(name, o) {
			if (!o || typeof o.handler !== "function") throw new TypeError(`registerCommand(${stringify(name)}): the command needs a handler`);
			commands.set(String(name), o);
		},
		registerShortcut(key) {
			unsupportedUse("registerShortcut");
		},
		registerFlag(name, o) {
			flags.set(String(name), { name: String(name), type: o && o.type === "boolean" ? "boolean" : "string", description: o && o.description, default: o && o.default });
		},
		getFlag(name) {
			if (name in flagValues) return flagValues[name];
			const f = flags.get(name);
			return f ? f.default : undefined;
		},
		registerMessageRenderer() {
			unsupportedUse("registerMessageRenderer");
		},
		registerEntryRenderer() {
			unsupportedUse("registerEntryRenderer");
		},
		registerToolRenderer() {
			unsupportedUse("registerToolRenderer");
		},
		registerMarkdownTransformer() {
			unsupportedUse("registerMarkdownTransformer");
		},
		registerProvider() {
			unsupportedUse("registerProvider");
		},
		unregisterProvider() {
			unsupportedUse("unregisterProvider");
		},
		sendMessage(message, options) {
			host("send_message", { message, options });
		},
		sendUserMessage(content, options) {
			host("send_user_message", { content, options });
		},
		appendEntry(customType, data) {
			host("append_entry", { customType, data });
		},
		setSessionName(name) {
			host("set_session_name", { name });
		},
		getSessionName() {
			return host("session", { what: "name" }) ?? undefined;
		},
		setLabel(entryId, label) {
			host("set_label", { entryId, label });
		},
		async exec(command, args, options) {
			const line = commandLine(command, isArray(args) ? args : []);
			const r = runShell(line, options);
			return { stdout: r.stdout, stderr: r.stderr, code: r.code, killed: !!r.killed };
		},
		getActiveTools() {
			return host("tools", { what: "active" }) ?? [];
		},
		getAllTools() {
			return host("tools", { what: "all" }) ?? [];
		},
		setActiveTools(names) {
			host("set_active_tools", { names: isArray(names) ? names.map(String) : [] });
		},
		getCommands() {
			return [...commands.keys()].map((name) => ({ name, description: commands.get(name).description, source: "extension" }));
		},
		getSettings() {
			return {};
		},
		async setModel(model) {
			return !!host("set_model", { model });
		},
		getThinkingLevel() {
			return host("thinking_level", null) ?? "off";
		},
		setThinkingLevel(level) {
			host("set_thinking_level", { level: String(level) });
		},
		events: {
			on(name, fn) {
				if (!busListeners.has(name)) busListeners.set(name, []);
				busListeners.get(name).push(fn);
				return () => {
					const l = busListeners.get(name) || [];
					const i = l.indexOf(fn);
					if (i >= 0) l.splice(i, 1);
				};
			},
			emit(name, data) {
				deliverBus(name, data);
				host("bus_emit", { name: String(name), data });
			},
		},
	};
	function deliverBus(name, data) {
		for (const fn of [...(busListeners.get(name) || [])]) {
			try {
				fn(data);
			} catch (e) {
				log("error")(`event bus listener for ${name} failed: ${describe(e)}`);
			}
		}
	}
	let loadedOnce = false;

	// ---- ctx ----
	const plainTheme = new Proxy(
		{},
		{
			get(_, k) {
				if (k === "fg" || k === "bg") return (_c, s) => String(s);
				if (typeof k === "symbol") return undefined;
				return (s) => String(s ?? "");
			},
		},
	);
	function makeUI(info) {
		const ask = (q) => host("ui", q);
		const noUI = (member, value) => () => {
			unsupportedUse(member);
			return value;
		};
		return {
			async select(title, options, o) {
				if (!isArray(options) || options.length === 0) return undefined;
				return ask({ kind: "select", title: String(title), options: options.map(String), timeout: o && o.timeout }) ?? undefined;
			},
			async confirm(title, message, o) {
				return !!ask({ kind: "confirm", title: String(title), message: message == null ? "" : String(message), timeout: o && o.timeout });
			},
			async input(title, placeholder, o) {
				return ask({ kind: "input", title: String(title), placeholder: placeholder == null ? "" : String(placeholder), timeout: o && o.timeout }) ?? undefined;
			},
			async editor(title, prefill) {
				return ask({ kind: "editor", title: String(title), prefill: prefill == null ? "" : String(prefill) }) ?? undefined;
			},
			notify(message, type) {
				ask({ kind: "notify", message: String(message), level: type === "warning" || type === "error" ? type : "info" });
			},
			setStatus(key, text) {
				ask({ kind: "status", key: String(key), text: text == null ? "" : String(text) });
			},
			setWidget(key, content, o) {
				if (typeof content === "function") {
					unsupportedUse("ctx.ui.setWidget(component)");
					return;
				}
				ask({ kind: "widget", key: String(key), lines: isArray(content) ? content.map(String) : [], placement: o && o.placement === "belowEditor" ? "below" : "" });
			},
			setTitle(title) {
				ask({ kind: "title", title: String(title) });
			},
			setEditorText(text) {
				ask({ kind: "editor_text", text: String(text) });
			},
			pasteToEditor(text) {
				ask({ kind: "editor_text", text: String(text) });
			},
			getEditorText: () => "",
			async custom() {
				unsupportedUse("ctx.ui.custom");
				return undefined;
			},
			onTerminalInput: noUI("ctx.ui.onTerminalInput", () => {}),
			setFooter: noUI("ctx.ui.setFooter"),
			setHeader: noUI("ctx.ui.setHeader"),
			setEditorComponent: noUI("ctx.ui.setEditorComponent"),
			getEditorComponent: () => undefined,
			addAutocompleteProvider: noUI("ctx.ui.addAutocompleteProvider"),
			setWorkingMessage: noUI("ctx.ui.setWorkingMessage"),
			setWorkingVisible: noUI("ctx.ui.setWorkingVisible"),
			setWorkingIndicator: noUI("ctx.ui.setWorkingIndicator"),
			setHiddenThinkingLabel: noUI("ctx.ui.setHiddenThinkingLabel"),
			getAllThemes: () => [],
			getTheme: () => undefined,
			setTheme: () => ({ success: false, error: "themes are not set by extensions in pi" }),
			getToolsExpanded: () => false,
			setToolsExpanded() {},
			theme: plainTheme,
		};
	}
	function makeSessionManager() {
		let cache;
		const data = () => (cache ??= host("session", { what: "entries" }) || { entries: [] });
		const entries = () => data().entries || [];
		const byId = () => {
			const m = new Map();
			for (const e of entries()) if (e && e.id) m.set(e.id, e);
			return m;
		};
		const leafId = () => {
			const es = entries();
			return data().leafId ?? (es.length ? es[es.length - 1].id : null);
		};
		const branch = (from) => {
			const m = byId();
			const out = [];
			let id = from ?? leafId();
			const seen = new Set();
			while (id && m.has(id) && !seen.has(id)) {
				seen.add(id);
				const e = m.get(id);
				out.push(e);
				id = e.parentId;
			}
			return out.reverse();
		};
		return {
			getEntries: () => entries().slice(),
			getBranch: (from) => branch(from),
			getEntry: (id) => byId().get(id),
			getLeafId: () => leafId(),
			getLeafEntry: () => byId().get(leafId()),
			getHeader: () => data().header,
			getSessionFile: () => data().file,
			getSessionId: () => data().header && data().header.id,
			getSessionDir: () => (data().file ? path.dirname(data().file) : undefined),
			getCwd: () => currentCwd,
			getSessionName: () => data().name,
			getLabel: (id) => (data().labels || {})[id],
			getChildren: (id) => entries().filter((e) => e.parentId === id),
			getTree: () => entries(),
			buildSessionContext: () => ({ messages: branch().filter((e) => e.type === "message").map((e) => e.message) }),
		};
	}
	function makeCtx(info) {
		info = info || {};
		const signalController = new AbortController();
		return {
			ui: makeUI(info),
			mode: info.mode || "print",
			hasUI: !!info.hasUI,
			cwd: currentCwd,
			sessionManager: makeSessionManager(),
			modelRegistry: { getAll: () => [], getAvailable: () => [], find: () => undefined, getApiKey: async () => undefined },
			model: info.model || undefined,
			scopedModels: [],
			thinkingLevel: info.thinkingLevel,
			signal: signalController.signal,
			isIdle: () => !!info.idle,
			isProjectTrusted: () => !!info.trusted,
			abort: () => host("abort", null),
			hasPendingMessages: () => false,
			shutdown: () => host("shutdown", null),
			getContextUsage: () => host("context_usage", null) ?? undefined,
			compact: (o) => host("compact", { customInstructions: o && o.customInstructions }),
			getSystemPrompt: () => info.systemPrompt ?? "",
			waitForIdle: async () => {},
			newSession: async () => ({ cancelled: true }),
			fork: async () => ({ cancelled: true }),
			navigateTree: async () => ({ cancelled: true }),
			switchSession: async () => ({ cancelled: true }),
			reload: async () => {},
			tools: [],
		};
	}

	// ---- dispatch ----
	function describe(e) {
		try {
			if (e instanceof Error) return e.stack ? `${e.name}: ${e.message}\n${e.stack}`.trim() : `${e.name}: ${e.message}`;
			return typeof e === "string" ? e : stringify(e) ?? String(e);
		} catch {
			return "an exception that could not be described";
		}
	}
	function textOf(content) {
		if (typeof content === "string") return content;
		if (isArray(content)) return content.filter((p) => p && p.type === "text").map((p) => String(p.text)).join("\n");
		return content == null ? "" : String(content);
	}
	function parts(content) {
		if (typeof content === "string") return [{ type: "text", text: content }];
		if (!isArray(content)) return [];
		return content
			.filter((p) => p && (p.type === "text" || p.type === "image"))
			.map((p) => (p.type === "text" ? { type: "text", text: String(p.text ?? "") } : { type: "image", data: String(p.data ?? ""), mimeType: String(p.mimeType ?? "") }));
	}

	async function runEvent(name, data, ctx) {
		const list = (handlers.get(name) || []).slice();
		const errors = [];
		const each = async (fn, ev) => {
			try {
				return await fn(ev, ctx);
			} catch (e) {
				errors.push(describe(e));
				return undefined;
			}
		};
		const ev = assign({ type: name }, data);
		switch (name) {
			case "tool_call": {
				// Handlers may change event.input in place; the first block
				// wins. A throw here is not caught: it fails the call.
				const before = stringify(ev.input);
				for (const fn of list) {
					const r = await fn(ev, ctx);
					if (r && r.block) return { block: true, reason: r.reason == null ? "" : String(r.reason) };
				}
				const after = stringify(ev.input);
				return after !== before ? { input: ev.input } : {};
			}
			case "tool_result": {
				let changed = false;
				for (const fn of list) {
					const r = await each(fn, ev);
					if (!r) continue;
					if (r.content !== undefined) (ev.content = r.content), (changed = true);
					if (r.details !== undefined) (ev.details = r.details), (changed = true);
					if (r.isError !== undefined) (ev.isError = !!r.isError), (changed = true);
				}
				return changed ? { content: parts(ev.content), isError: ev.isError, details: ev.details, errors } : { errors };
			}
			case "before_agent_start": {
				let systemPrompt = ev.systemPrompt;
				let forced;
				const messages = [];
				for (const fn of list) {
					const r = await each(fn, assign({}, ev, { systemPrompt }));
					if (!r) continue;
					if (r.message) messages.push({ customType: r.message.customType, text: textOf(r.message.content), display: r.message.display !== false });
					if (r.systemPrompt !== undefined) forced = systemPrompt = String(r.systemPrompt);
				}
				return { systemPrompt: forced, messages, errors };
			}
			case "input": {
				let text = ev.text;
				for (const fn of list) {
					const r = await each(fn, assign({}, ev, { text }));
					if (r && r.action === "handled") return { action: "handled", errors };
					if (r && r.action === "transform") text = String(r.text ?? "");
				}
				return text !== ev.text ? { action: "transform", text, errors } : { action: "continue", errors };
			}
			case "context": {
				let messages = ev.messages;
				let changed = false;
				for (const fn of list) {
					const r = await each(fn, assign({}, ev, { messages }));
					if (r && isArray(r.messages)) (messages = r.messages), (changed = true);
				}
				return changed ? { messages, errors } : { errors };
			}
			case "user_bash": {
				for (const fn of list) {
					const r = await each(fn, ev);
					if (r !== undefined) return { result: r, errors };
				}
				return { errors };
			}
			default: {
				if (name.startsWith("session_before_")) {
					let result = {};
					for (const fn of list) {
						const r = await each(fn, ev);
						if (r) {
							result = r;
							if (r.cancel) break;
						}
					}
					return assign({ errors }, result);
				}
				for (const fn of list) await each(fn, ev);
				return { errors };
			}
		}
	}

	async function runTool(msg, ctx) {
		const t = tools.get(msg.name);
		if (!t) throw new Error(`no tool ${msg.name}`);
		const onUpdate = (partial) => {
			if (partial) host("tool_update", { text: textOf(partial.content), details: partial.details });
		};
		const controller = new AbortController();
		try {
			const r = await t.execute(msg.toolCallId, msg.params, controller.signal, onUpdate, ctx);
			const content = parts(r && r.content);
			return { content: content.length ? content : [{ type: "text", text: "" }], details: r && r.details, isError: !!(r && r.isError) };
		} catch (e) {
			// As in the established harness, a tool that throws gives the
			// model an error result with the message.
			return { content: [{ type: "text", text: e instanceof Error ? e.message : String(e) }], isError: true };
		}
	}

	async function handle(msg) {
		if (msg.cwd) currentCwd = msg.cwd;
		const ctx = makeCtx(msg.ctx);
		switch (msg.kind) {
			case "load": {
				flagValues = msg.flags || {};
				const mod = globalThis.__pi_ext;
				const factory = mod && typeof mod.default === "function" ? mod.default : typeof mod === "function" ? mod : null;
				if (!factory) throw new Error("the extension has no default export function (export default function (pi) { … })");
				await factory(pi);
				loadedOnce = true;
				return {
					events: [...handlers.keys()].filter((k) => handlers.get(k).length),
					tools: [...tools.values()].map(toolInfo),
					commands: [...commands.entries()].map(([name, c]) => ({ name, description: c.description == null ? "" : String(c.description), completions: typeof c.getArgumentCompletions === "function" })),
					flags: [...flags.values()],
					unsupported: [...unsupported],
				};
			}
			case "event":
				return runEvent(msg.event, msg.data || {}, ctx);
			case "tool":
				return runTool(msg, ctx);
			case "command": {
				const c = commands.get(msg.name);
				if (!c) throw new Error(`no command ${msg.name}`);
				await c.handler(msg.args || "", ctx);
				return {};
			}
			case "complete": {
				const c = commands.get(msg.name);
				if (!c || typeof c.getArgumentCompletions !== "function") return { items: [] };
				const items = (await c.getArgumentCompletions(msg.prefix || "")) || [];
				return { items: items.map((i) => (typeof i === "string" ? { value: i } : { value: String(i.value), label: i.label, description: i.description })) };
			}
			case "bus":
				deliverBus(msg.name, msg.data);
				return {};
			case "unsupported":
				return { unsupported: [...unsupported] };
			default:
				throw new Error(`unknown message ${msg.kind}`);
		}
	}

	globalThis.__pi_dispatch = async (text) => {
		let out;
		try {
			out = { ok: await handle(parse(text)) };
		} catch (e) {
			out = { error: describe(e) };
		}
		try {
			return stringify(out);
		} catch (e) {
			return stringify({ error: `the result could not be encoded: ${describe(e)}` });
		}
	};
	// The entry points must stay pi's: an extension that overwrites them
	// would otherwise answer for itself.
	for (const k of ["__pi_dispatch", "__pi_idle", "__pi_require"]) {
		defineProperty(globalThis, k, { value: globalThis[k], writable: false, configurable: false });
	}
	freeze(pi.events);
	freeze(pi);
})();
