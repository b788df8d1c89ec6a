package settings

import (
	"encoding/json"
	"slices"
	"strings"
)

// DefaultToolNames are the tools enabled at start-up when defaultTools
// does not change them.
var DefaultToolNames = []string{"read", "bash", "edit", "write"}

// isToolModifier reports whether a defaultTools entry is "+name" or "-name".
func isToolModifier(e string) bool {
	return strings.HasPrefix(e, "+") || strings.HasPrefix(e, "-")
}

// DefaultTools resolves defaultTools as the established harness does: a
// file's list with a plain name replaces the inherited list, a list of only
// "+name"/"-name" entries is added to it; then plain names form the
// selection (the defaults when there are none and the list is not empty)
// and "+name"/"-name" add and remove in order. ok is false when no file
// sets the key.
func (s *Settings) DefaultTools() (tools []string, ok bool) {
	var merged []string
	set := false
	for _, v := range s.Layers("defaultTools") {
		var l []string
		if json.Unmarshal(v.Raw, &l) != nil {
			continue
		}
		if !set || !allModifiers(l) {
			merged = l
		} else {
			merged = append(slices.Clone(merged), l...)
		}
		set = true
	}
	if !set {
		return slices.Clone(DefaultToolNames), false
	}
	return ResolveTools(merged), true
}

func allModifiers(l []string) bool {
	for _, e := range l {
		if !isToolModifier(e) {
			return false
		}
	}
	return true
}

// ResolveTools applies a merged defaultTools list: plain names form the
// selection ([DefaultToolNames] when there are none and the list is not
// empty), then "+name" adds and "-name" removes, in order.
func ResolveTools(entries []string) []string {
	var base []string
	for _, e := range entries {
		if !isToolModifier(e) {
			base = append(base, e)
		}
	}
	if len(base) == 0 && len(entries) > 0 {
		base = slices.Clone(DefaultToolNames)
	}
	out := slices.Clone(base)
	if out == nil {
		out = []string{}
	}
	for _, e := range entries {
		if !isToolModifier(e) {
			continue
		}
		name := e[1:]
		i := slices.Index(out, name)
		switch {
		case e[0] == '+' && i < 0 && name != "":
			out = append(out, name)
		case e[0] == '-' && i >= 0:
			out = slices.Delete(out, i, i+1)
		}
	}
	return out
}
