// Just enough JSON for a small extension: find a top-level field of an
// object, decode a string, quote a string.

function skipSpace(s: string, i: i32): i32 {
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (c != 0x20 && c != 0x09 && c != 0x0a && c != 0x0d) break;
    i++;
  }
  return i;
}

// skipValue returns the index just past the JSON value starting at i.
function skipValue(s: string, i: i32): i32 {
  i = skipSpace(s, i);
  if (i >= s.length) return i;
  const c = s.charCodeAt(i);
  if (c == 0x22) {
    // string
    i++;
    while (i < s.length) {
      const d = s.charCodeAt(i);
      if (d == 0x5c) i += 2;
      else if (d == 0x22) return i + 1;
      else i++;
    }
    return i;
  }
  if (c == 0x7b || c == 0x5b) {
    // object or array: skip nested values, strings included
    let depth = 0;
    while (i < s.length) {
      const d = s.charCodeAt(i);
      if (d == 0x22) {
        i = skipValue(s, i);
        continue;
      }
      if (d == 0x7b || d == 0x5b) depth++;
      else if (d == 0x7d || d == 0x5d) {
        depth--;
        if (depth == 0) return i + 1;
      }
      i++;
    }
    return i;
  }
  // number, true, false, null
  while (i < s.length) {
    const d = s.charCodeAt(i);
    if (d == 0x2c || d == 0x7d || d == 0x5d || d == 0x20 || d == 0x0a || d == 0x0d || d == 0x09) break;
    i++;
  }
  return i;
}

// rawField returns the JSON text of field key of the object in s, or null.
export function rawField(s: string, key: string): string | null {
  let i = skipSpace(s, 0);
  if (i >= s.length || s.charCodeAt(i) != 0x7b) return null;
  i++;
  while (true) {
    i = skipSpace(s, i);
    if (i >= s.length || s.charCodeAt(i) != 0x22) return null;
    const kEnd = skipValue(s, i);
    const k = decodeString(s.substring(i, kEnd));
    i = skipSpace(s, kEnd);
    if (i >= s.length || s.charCodeAt(i) != 0x3a) return null;
    const vStart = skipSpace(s, i + 1);
    const vEnd = skipValue(s, vStart);
    if (k == key) return s.substring(vStart, vEnd);
    i = skipSpace(s, vEnd);
    if (i >= s.length || s.charCodeAt(i) != 0x2c) return null;
    i++;
  }
}

// decodeString decodes a JSON string literal (quotes included); anything
// else decodes to "".
export function decodeString(raw: string): string {
  if (raw.length < 2 || raw.charCodeAt(0) != 0x22) return "";
  if (raw.indexOf("\\") < 0) return raw.substring(1, raw.length - 1); // nothing escaped
  let out = "";
  for (let i = 1; i < raw.length - 1; i++) {
    const c = raw.charCodeAt(i);
    if (c != 0x5c) {
      out += String.fromCharCode(c);
      continue;
    }
    i++;
    const e = raw.charCodeAt(i);
    if (e == 0x6e) out += "\n";
    else if (e == 0x74) out += "\t";
    else if (e == 0x72) out += "\r";
    else if (e == 0x62) out += "\b";
    else if (e == 0x66) out += "\f";
    else if (e == 0x75) {
      out += String.fromCharCode(i32(parseInt(raw.substring(i + 1, i + 5), 16)));
      i += 4;
    } else out += String.fromCharCode(e);
  }
  return out;
}

// quote returns s as a JSON string literal.
export function quote(s: string): string {
  // Copy runs of plain characters in one piece: building the string one
  // character at a time costs an allocation per character.
  let out = '"';
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c != 0x22 && c != 0x5c) continue;
    out += s.substring(start, i) + escape(c);
    start = i + 1;
  }
  return out + s.substring(start) + '"';
}

function escape(c: i32): string {
  if (c == 0x22) return '\\"';
  if (c == 0x5c) return "\\\\";
  if (c == 0x0a) return "\\n";
  if (c == 0x0d) return "\\r";
  if (c == 0x09) return "\\t";
  return "\\u00" + (c < 0x10 ? "0" : "") + c.toString(16);
}
