package builtin

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/piwasm/pi/core/tool"
)

const lsDefaultLimit = 500

func (e Env) runLs(ctx context.Context, call tool.Call, _ tool.Update) (tool.Result, error) {
	path := strArg(call.Args, "path")
	if path == "" {
		path = "."
	}
	limit := limitArg(call.Args, "limit", lsDefaultLimit)
	_, real, err := e.open("ls", Read, path)
	if err != nil {
		return tool.ErrorResult("%v", err), nil
	}
	info, err := e.FS.Stat(real)
	if err != nil {
		return tool.ErrorResult("%s", describeFSError("list", path, err)), nil
	}
	if !info.IsDir() {
		return tool.ErrorResult("%s is not a directory; use read to see a file.", path), nil
	}
	entries, err := e.FS.ReadDir(real)
	if err != nil {
		return tool.ErrorResult("%s", describeFSError("list", path, err)), nil
	}
	names := make([]string, len(entries))
	for i, de := range entries {
		names[i] = de.Name()
	}
	sort.SliceStable(names, func(a, b int) bool {
		la, lb := strings.ToLower(names[a]), strings.ToLower(names[b])
		if la != lb {
			return la < lb
		}
		return names[a] < names[b]
	})
	var out []string
	more, skipped := false, 0
	for _, n := range names {
		if err := ctx.Err(); err != nil {
			return tool.Result{}, err
		}
		if len(out) >= limit {
			more = true
			break
		}
		if e.Visit != nil && !e.entryAllowed("ls", filepath.Join(real, n)) {
			skipped++
			continue
		}
		st, err := e.FS.Stat(filepath.Join(real, n))
		if err != nil {
			continue // a dangling link or a vanished entry
		}
		if st.IsDir() {
			n += "/"
		}
		out = append(out, n)
	}
	note := skippedNote(skipped)
	if len(out) == 0 {
		if note != "" {
			return tool.TextResult("(no entries shown)\n\n[" + note + ".]"), nil
		}
		return tool.TextResult("(empty directory)"), nil
	}
	return withNote(listResult(out, more, limit, "entry", "entries", "entryLimitReached", ""), note), nil
}

// withNote appends a bracketed note to a text result.
func withNote(r tool.Result, note string) tool.Result {
	if note == "" || len(r.Content) == 0 {
		return r
	}
	r.Content[len(r.Content)-1].Text += "\n\n[" + note + ".]"
	return r
}

// listResult joins lines, cuts them at the byte limit and adds a notice
// for each limit reached. one and what name an item and several ("entry",
// "entries");
// key is the details field that records the limit.
func listResult(lines []string, more bool, limit int, one, what, key, extra string) tool.Result {
	tr := tool.TruncateHead(strings.Join(lines, "\n"), int(^uint(0)>>1), tool.DefaultMaxBytes)
	text := tr.Text
	d := map[string]any{}
	var notes []string
	if more {
		if limit == 1 {
			what = one
		}
		notes = append(notes, fmt.Sprintf("Stopped at %d %s; there are more. Pass limit=%d to see more%s", limit, what, 2*limit, extra))
		d[key] = limit
	}
	if tr.Truncated {
		notes = append(notes, fmt.Sprintf("Output cut at %s", formatSize(tool.DefaultMaxBytes)))
		d["truncation"] = tr
	}
	r := tool.Result{}
	if len(notes) > 0 {
		text += "\n\n[" + strings.Join(notes, ". ") + ".]"
		r.Details = details(d)
	}
	r.Content = []tool.Part{{Type: "text", Text: text}}
	return r
}
