package host

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
)

// mergeConfig layers the user's settings for an extension (an object, or
// nil) over its manifest's config (JSON, "null" when absent): each key the
// user sets replaces the manifest's key of that name, and a key set to
// null removes it. The merge is one level deep, because config keys are
// what a user overrides and PDKs read (Extism's config is a flat map).
// The result is compact JSON with sorted keys, so that it is a stable part
// of the memo identity.
func mergeConfig(manifest, user json.RawMessage) (json.RawMessage, error) {
	if len(bytes.TrimSpace(user)) == 0 || string(bytes.TrimSpace(user)) == "null" {
		return manifest, nil
	}
	var over map[string]json.RawMessage
	if err := json.Unmarshal(user, &over); err != nil || over == nil {
		return manifest, errors.New("the settings' config for it must be an object")
	}
	base := map[string]json.RawMessage{}
	if string(bytes.TrimSpace(manifest)) != "null" {
		if err := json.Unmarshal(manifest, &base); err != nil {
			return manifest, errors.New("its manifest's config is not an object, so the settings' keys cannot be merged into it")
		}
	}
	for k, v := range over {
		if string(bytes.TrimSpace(v)) == "null" {
			delete(base, k)
			continue
		}
		base[k] = v
	}
	out, err := json.Marshal(base) // map keys come out sorted
	if err != nil {
		return manifest, fmt.Errorf("merging the settings' config: %w", err)
	}
	return out, nil
}

// extismConfig is a config as Extism's config_get serves it: a flat map of
// strings. A key whose value is a JSON string maps to that string; any
// other value maps to its compact JSON text (so a PDK can still decode a
// number, a list or an object); a null is absent. A config that is not an
// object has no keys.
func extismConfig(cfg json.RawMessage) map[string][]byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(cfg, &m) != nil || len(m) == 0 {
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make(map[string][]byte, len(m))
	for _, k := range keys {
		v := m[k]
		if string(bytes.TrimSpace(v)) == "null" {
			continue // a key without a value is absent
		}
		var s string
		if json.Unmarshal(v, &s) == nil {
			out[k] = []byte(s)
			continue
		}
		var buf bytes.Buffer
		if json.Compact(&buf, v) == nil {
			out[k] = buf.Bytes()
		}
	}
	return out
}
