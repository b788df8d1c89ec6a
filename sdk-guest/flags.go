package sdk

import (
	"encoding/json"
	"fmt"

	"github.com/piwasm/pi/abi"
)

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
			return "", false, fmt.Errorf("flags: %w", err)
		}
		flags := map[string]any{}
		if err := json.Unmarshal(b, &flags); err != nil {
			return "", false, fmt.Errorf("flags: %w", err)
		}
		flagsRaw = flags
	}
	switch v := flagsRaw[name].(type) {
	case bool:
		return fmt.Sprint(v), true, nil
	case string:
		return v, true, nil
	}
	return "", false, nil
}

// FlagOn reports whether a boolean flag is on (given, or on by default).
func FlagOn(name string) bool {
	v, _, _ := Flag(name)
	return v == "true"
}

// flagsRaw caches the flags' values: they never change during an
// instance's life.
var flagsRaw map[string]any
