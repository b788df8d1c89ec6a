package keybind

// Bindings are the keys in force: each action's defaults, or what
// keybindings.json sets for it instead.
type Bindings struct {
	actions []Action
	keys    map[string][]Key
	set     map[string]bool
	// byStroke maps a key press (as Bubble Tea spells it) to the actions
	// it triggers.
	byStroke map[string][]string
}

// Resolve applies c over the defaults of acts. Defaults are parsed here;
// the table's own keys are tested to parse.
func Resolve(acts []Action, c Config) *Bindings {
	b := &Bindings{actions: acts, keys: map[string][]Key{}, set: map[string]bool{}, byStroke: map[string][]string{}}
	for _, a := range acts {
		keys, ok := c.Set[a.ID]
		if ok {
			b.set[a.ID] = true
		} else {
			keys = nil
			for _, s := range a.Defaults {
				if k, err := Parse(s); err == nil {
					keys = append(keys, k)
				}
			}
		}
		b.keys[a.ID] = keys
		if !a.Applies {
			continue
		}
		for _, k := range keys {
			for _, s := range k.Strokes() {
				b.byStroke[s] = append(b.byStroke[s], a.ID)
			}
		}
	}
	return b
}

// Defaults are the bindings without a file on p.
func Defaults(p Platform) *Bindings { return Resolve(Actions(p), Config{}) }

// Actions is the table the bindings were made from.
func (b *Bindings) Actions() []Action { return b.actions }

// Keys are the keys of action id (none when it is disabled or unknown).
func (b *Bindings) Keys(id string) []Key { return b.keys[id] }

// Configured reports whether keybindings.json set the action.
func (b *Bindings) Configured(id string) bool { return b.set[id] }

// Matches reports whether a press spelt as one of strokes (Bubble Tea's
// Keystroke and String of the press) triggers action id.
func (b *Bindings) Matches(id string, strokes ...string) bool {
	for _, s := range strokes {
		for _, a := range b.byStroke[s] {
			if a == id {
				return true
			}
		}
	}
	return false
}
