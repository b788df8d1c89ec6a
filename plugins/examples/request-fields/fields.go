package main

import (
	"encoding/json"
	"slices"
)

// config is the extension's config: the API shapes to touch, and the
// fields to set (a null value removes the field).
type config struct {
	APIs []string                   `json:"apis"`
	Set  map[string]json.RawMessage `json:"set"`
}

// apply sets the configured fields in body when api is one of the listed
// shapes. changed is false when nothing is to be done.
func (c config) apply(api string, body json.RawMessage) (json.RawMessage, bool, error) {
	if len(c.Set) == 0 || (len(c.APIs) > 0 && !slices.Contains(c.APIs, api)) {
		return nil, false, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, false, err
	}
	for k, v := range c.Set {
		if string(v) == "null" {
			delete(m, k)
			continue
		}
		m[k] = v
	}
	out, err := json.Marshal(m)
	return out, err == nil, err
}
