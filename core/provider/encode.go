package provider

import (
	"bytes"
	"encoding/json"
)

// encodeJSON marshals v with the field order of its struct type, without
// HTML escaping (prompts are full of <tags>) and without a trailing newline.
// The result is byte-stable for equal inputs.
func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
