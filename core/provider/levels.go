package provider

// supportsLevel reports whether the model takes a thinking level: every
// level unless thinkingLevelMap marks it null; "xhigh" and "max" only when
// the map names them.
func (r Route) supportsLevel(l string) bool {
	v, mapped := r.ThinkingLevels[l]
	switch {
	case mapped && v == nil:
		return false
	case l == "xhigh" || l == "max":
		return mapped
	}
	return true
}

// AvailableThinkingLevels are the levels a person can choose for the
// route's model, lowest first, as the established harness offers them:
// "off" alone for a model that cannot think.
func (r Route) AvailableThinkingLevels() []string {
	if !r.Reasoning {
		return []string{"off"}
	}
	var out []string
	for _, l := range thinkingLevels {
		if l == "off" || r.supportsLevel(l) {
			out = append(out, l)
		}
	}
	return out
}

// ThinkingLevel is the level the route's requests use: the chosen level
// clamped to what the model takes, "off" when it does not think.
func (r Route) ThinkingLevel() string {
	if l := r.clampThinking(r.Thinking); l != "" {
		return l
	}
	return "off"
}
