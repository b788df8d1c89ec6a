package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/piwasm/pi/core/tool"
)

// foldEditArgs accepts the shapes models send besides the schema's: edits
// as a JSON string, a single edit object instead of an array, and the older
// top-level oldText/newText pair (appended to any edits given).
func foldEditArgs(raw map[string]any) map[string]any {
	switch e := raw["edits"].(type) {
	case string:
		var v any
		if json.Unmarshal([]byte(e), &v) == nil {
			switch x := v.(type) {
			case []any:
				raw["edits"] = x
			case map[string]any:
				if isSingleEdit(x) {
					raw["edits"] = []any{x}
				}
			}
		}
	case map[string]any:
		if isSingleEdit(e) {
			raw["edits"] = []any{e}
		}
	}
	old, ok1 := raw["oldText"].(string)
	nw, ok2 := raw["newText"].(string)
	if !ok1 || !ok2 {
		return raw
	}
	var edits []any
	if a, ok := raw["edits"].([]any); ok {
		edits = append(edits, a...)
	}
	edits = append(edits, map[string]any{"oldText": old, "newText": nw})
	out := make(map[string]any, len(raw))
	for k, v := range raw {
		if k != "oldText" && k != "newText" {
			out[k] = v
		}
	}
	out["edits"] = edits
	return out
}

func isSingleEdit(m map[string]any) bool {
	_, a := m["oldText"].(string)
	_, b := m["newText"].(string)
	return a && b
}

func (e Env) runEdit(ctx context.Context, call tool.Call, _ tool.Update) (tool.Result, error) {
	path := strArg(call.Args, "path")
	list, _ := call.Args["edits"].([]any)
	if len(list) == 0 {
		return tool.ErrorResult("edits is empty; give at least one {oldText, newText} replacement."), nil
	}
	edits := make([]Edit, 0, len(list))
	for _, it := range list {
		m, _ := it.(map[string]any)
		edits = append(edits, Edit{OldText: strArg(m, "oldText"), NewText: strArg(m, "newText")})
	}
	_, real, err := e.open("edit", Write, path)
	if err != nil {
		return tool.ErrorResult("%v", err), nil
	}
	unlock := e.Locks.Lock(real)
	defer unlock()
	if err := ctx.Err(); err != nil {
		return tool.Result{}, err
	}
	info, err := e.FS.Stat(real)
	if err != nil {
		return tool.ErrorResult("%s", describeFSError("edit", path, err)), nil
	}
	if info.IsDir() {
		return tool.ErrorResult("%s is a directory, not a file.", path), nil
	}
	data, err := e.FS.ReadFile(real)
	if err != nil {
		return tool.ErrorResult("%s", describeFSError("edit", path, err)), nil
	}
	out, det, err := EditContent(string(data), edits, path)
	if err != nil {
		var ee *editError
		if errors.As(err, &ee) {
			return tool.ErrorResult("%s", ee.msg), nil
		}
		return tool.Result{}, err
	}
	if err := ctx.Err(); err != nil {
		return tool.Result{}, err
	}
	if err := e.FS.WriteFile(real, []byte(out), info.Mode().Perm()); err != nil {
		return tool.ErrorResult("%s", describeFSError("write", path, err)), nil
	}
	return tool.Result{
		Content: []tool.Part{{Type: "text", Text: fmt.Sprintf("Replaced %d block%s in %s.", len(edits), plural(len(edits)), path)}},
		Details: details(det),
	}, nil
}

// EditDetails is what an edit leaves for people: a numbered diff for
// display, the same change as a unified patch, and the first changed line.
type EditDetails struct {
	Diff             string `json:"diff"`
	Patch            string `json:"patch"`
	FirstChangedLine int    `json:"firstChangedLine,omitempty"`
}

// EditContent applies edits to a file's content the way the edit tool does:
// a BOM is set aside, matching happens on LF line ends, and the result keeps
// each untouched line's own ending. Errors the model must fix are returned
// with their message for the model.
func EditContent(raw string, edits []Edit, path string) (string, EditDetails, error) {
	bom := ""
	if strings.HasPrefix(raw, "\ufeff") {
		bom, raw = "\ufeff", raw[3:]
	}
	lf := toLF(raw)
	newLF, reps, err := applyEdits(lf, edits, path)
	if err != nil {
		return "", EditDetails{}, err
	}
	d := diffReplacements(path, lf, reps)
	final := newLF
	if lf != raw {
		final = toOriginal(raw, reps)
	}
	return bom + final, d, nil
}
