package host

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/piwasm/pi/abi"
	"gopkg.in/yaml.v3"
)

// maxSchemaBytes bounds a tool's parameter schema, inline or in a file.
const maxSchemaBytes = 256 << 10

// noParameters is the schema of a tool declared without parameters.
var noParameters = json.RawMessage(`{"type":"object","properties":{}}`)

// toolSchemas returns the parameter schema of every tool m declares, in
// order, as the exact JSON bytes the request will carry. An inline schema
// keeps the key order it was written in (requests are reproducible byte for
// byte, and authors expect to read back what they wrote); a schema file is
// compacted but otherwise kept as written. Every problem names the
// manifest field, and the file when there is one.
func toolSchemas(dir string, raw []byte, m *abi.Manifest) ([]json.RawMessage, []error) {
	if len(m.Tools) == 0 {
		return nil, nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return nil, []error{err}
	}
	tools := mapValue(docRoot(&doc), "tools")
	out := make([]json.RawMessage, len(m.Tools))
	var errs []error
	for i, t := range m.Tools {
		field := fmt.Sprintf("tools[%d].parameters", i)
		fail := func(format string, args ...any) {
			errs = append(errs, &abi.FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
		}
		var schema []byte
		switch {
		case t.Parameters == nil:
			out[i] = noParameters
			continue
		default:
			if file, ok := t.ParametersFile(); ok {
				path := filepath.Join(dir, file)
				data, err := ReadRegularFile(path, maxSchemaBytes)
				if err != nil {
					fail("%v", err)
					continue
				}
				var buf bytes.Buffer
				if err := json.Compact(&buf, data); err != nil {
					fail("%s: not valid JSON: %v", path, err)
					continue
				}
				schema = buf.Bytes()
				if err := checkSchema(schema); err != nil {
					fail("%s: %v", path, err)
					continue
				}
			} else {
				var item *yaml.Node
				if tools != nil && tools.Kind == yaml.SequenceNode && i < len(tools.Content) {
					item = mapValue(tools.Content[i], "parameters")
				}
				if item == nil {
					fail("cannot be read back from the manifest")
					continue
				}
				var err error
				schema, err = nodeJSON(nil, item, 0)
				if err == nil && len(schema) > maxSchemaBytes {
					err = fmt.Errorf("schema of %d bytes exceeds %d", len(schema), maxSchemaBytes)
				}
				if err == nil {
					err = checkSchema(schema)
				}
				if err != nil {
					fail("%v", err)
					continue
				}
			}
		}
		out[i] = schema
	}
	return out, errs
}

// checkSchema requires a JSON object whose type, when given, is "object".
func checkSchema(b []byte) error {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("a parameter schema must be a JSON object")
	}
	if ty, ok := obj["type"]; ok && ty != "object" {
		return fmt.Errorf("the schema's type must be \"object\", not %v", ty)
	}
	return nil
}

func docRoot(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		return n.Content[0]
	}
	return n
}

// mapValue returns the value of key in mapping n, or nil.
func mapValue(n *yaml.Node, key string) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// nodeJSON appends n as JSON, keeping mapping keys in document order.
// Depth and size are bounded: aliases could otherwise expand a small
// manifest into a huge schema.
func nodeJSON(b []byte, n *yaml.Node, depth int) ([]byte, error) {
	if depth > 64 {
		return nil, fmt.Errorf("schema nested deeper than 64 levels")
	}
	if len(b) > maxSchemaBytes {
		return nil, fmt.Errorf("schema larger than %d bytes", maxSchemaBytes)
	}
	switch n.Kind {
	case yaml.AliasNode:
		return nodeJSON(b, n.Alias, depth+1)
	case yaml.MappingNode:
		b = append(b, '{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("line %d: a schema key must be a plain string", k.Line)
			}
			if i > 0 {
				b = append(b, ',')
			}
			kb, _ := json.Marshal(k.Value)
			b = append(b, kb...)
			b = append(b, ':')
			var err error
			if b, err = nodeJSON(b, n.Content[i+1], depth+1); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case yaml.SequenceNode:
		b = append(b, '[')
		for i, c := range n.Content {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = nodeJSON(b, c, depth+1); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case yaml.ScalarNode:
		var v any
		if err := n.Decode(&v); err != nil {
			return nil, fmt.Errorf("line %d: %v", n.Line, err)
		}
		vb, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", n.Line, err)
		}
		return append(b, vb...), nil
	}
	return nil, fmt.Errorf("line %d: unsupported YAML in a schema", n.Line)
}
