// Applies edit cases with the established harness's own edit code, for
// TestEditMatchesPeer. Usage: node peer_edit.mjs <harness package dir> < cases.json
import fs from "fs";
const dir = process.argv[2];
const { applyEditsToNormalizedContent, normalizeToLF, applyReplacementsToOriginal } = await import(dir + "/dist/core/tools/edit-diff.js");
const { splitBom } = await import(dir + "/dist/utils/text.js");
const cases = JSON.parse(fs.readFileSync(0, "utf8"));
console.log(JSON.stringify(cases.map(([raw, edits]) => {
  try {
    const { bom, text } = splitBom(raw);
    const lf = normalizeToLF(text);
    const { newContent, replacements } = applyEditsToNormalizedContent(lf, edits, "f");
    return bom + (text === lf ? newContent : applyReplacementsToOriginal(text, replacements));
  } catch { return "ERR"; }
})));
