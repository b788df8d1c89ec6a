package sdk

import "github.com/piwasm/pi/abi"

// Flag returns the value of one of the manifest's flags (see abi.FlagSpec)
// as the command line gave it, or its default: "true" or "false" for a
// boolean flag, the text for a string flag. ok is false for a string flag
// neither given nor defaulted, and for a name the manifest does not
// declare. Like Config, it is not available during init.
//
// A guest built with another PDK reads the same value with its own config
// getter: config_get("flag:<name>").
func Flag(name string) (value string, ok bool, err error) {
	if flagsRaw == nil {
		b, err := Fetch(abi.KeyFlags)
		if err != nil {
			return "", false, wrap("flags", err)
		}
		flagsRaw = b
	}
	// Read without encoding/json (see docs/extensions.md, "Guest size").
	v, found := abi.FieldValue(flagsRaw, name)
	switch {
	case !found:
		return "", false, nil
	case string(v) == "true" || string(v) == "false":
		return string(v), true, nil
	case v[0] == '"':
		s, _ := abi.StringField(flagsRaw, name)
		return s, true, nil
	}
	return "", false, nil
}

// FlagOn reports whether the boolean flag name is on.
func FlagOn(name string) bool {
	v, _, _ := Flag(name)
	return v == "true"
}

// flagsRaw caches the flags (a JSON object): they never change during an
// instance's life.
var flagsRaw []byte
