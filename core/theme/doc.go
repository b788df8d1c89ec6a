// Package theme reads the established harness's theme files and holds
// pi's built-in themes (system, dark, light).
//
// A theme file is strict JSON: "name" and "colors" (one colour per role of
// the interface, see [Roles]; five roles are optional and fall back to
// another), optional "vars" (named colours, which may name each other),
// "appearance", "export" (the HTML export's backgrounds) and "$schema".
// A colour is "#rgb"/"#rrggbb", "oklch(L C H)", "okhsl(H S L)", a palette
// index 0-255, a variable's name, or "" for the terminal's default.
// OKLCH and OKHSL become sRGB here (gamut-mapped); a terminal without
// true colour gets the nearest of its 256 through lipgloss's colour
// profile, not here.
//
// [Load] finds the themes of a run (the "themes" setting, the project's
// and the agent dir's themes/ directories, --theme) and reports every bad
// file as a diagnostic naming it; [Set.Pick] resolves the "theme" setting.
// Nothing here touches a terminal: ui/render turns a [Theme] into styles.
package theme
