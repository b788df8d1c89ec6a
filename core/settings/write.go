package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/piwasm/pi/internal/atomicfile"
)

// maxWriteBytes bounds a settings file read back for a change, as reads are
// bounded elsewhere.
const maxWriteBytes = 1 << 20

// SetInFile sets the dotted key name to value (JSON) in the settings file
// at path, keeping every other key, and their order, as they were: the
// file is shared with the established harness and with people's editors.
// A null value removes the key. The file is created when missing and
// replaced atomically; a file that is not a JSON object is left alone and
// reported.
func SetInFile(path, name string, value json.RawMessage) error {
	if !json.Valid(value) {
		return fmt.Errorf("settings: %s: the value for %s is not JSON", path, name)
	}
	var data []byte
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return fmt.Errorf("settings: %w", err)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("settings: %s is not a regular file", path)
	case fi.Size() > maxWriteBytes:
		return fmt.Errorf("settings: %s is larger than %d bytes", path, maxWriteBytes)
	default:
		if data, err = os.ReadFile(path); err != nil {
			return fmt.Errorf("settings: %w", err)
		}
	}
	root := &object{}
	if len(bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\ufeff")))) > 0 {
		dec := json.NewDecoder(bytes.NewReader(bytes.TrimPrefix(data, []byte("\ufeff"))))
		dec.UseNumber()
		v, err := readValue(dec)
		if err == nil {
			if _, terr := dec.Token(); terr != io.EOF {
				err = errors.New("text after the object")
			}
		}
		if err != nil {
			return fmt.Errorf("settings: %s is not valid JSON (%v): fix it by hand first", path, err)
		}
		o, ok := v.(*object)
		if !ok {
			return fmt.Errorf("settings: %s does not hold a JSON object: fix it by hand first", path)
		}
		root = o
	}
	root.set(strings.Split(name, "."), value)
	var b bytes.Buffer
	writeValue(&b, root, "")
	b.WriteByte('\n')
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	perm := os.FileMode(0o644)
	if fi != nil {
		perm = fi.Mode().Perm()
	}
	return atomicfile.Write(path, b.Bytes(), perm)
}

// object is a JSON object with its members in file order.
type object struct {
	keys []string
	vals map[string]any // *object or json.RawMessage
}

func (o *object) set(path []string, value json.RawMessage) {
	if o.vals == nil {
		o.vals = map[string]any{}
	}
	k := path[0]
	_, exists := o.vals[k]
	if len(path) == 1 {
		if string(bytes.TrimSpace(value)) == "null" {
			if exists {
				delete(o.vals, k)
				for i, x := range o.keys {
					if x == k {
						o.keys = append(o.keys[:i], o.keys[i+1:]...)
						break
					}
				}
			}
			return
		}
		if !exists {
			o.keys = append(o.keys, k)
		}
		o.vals[k] = value
		return
	}
	child, ok := o.vals[k].(*object)
	if !ok {
		child = &object{}
		if !exists {
			o.keys = append(o.keys, k)
		}
		o.vals[k] = child
	}
	child.set(path[1:], value)
}

func readValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := &object{vals: map[string]any{}}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := readValue(dec)
				if err != nil {
					return nil, err
				}
				if _, dup := o.vals[k]; !dup {
					o.keys = append(o.keys, k)
				}
				o.vals[k] = v
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return o, nil
		case '[':
			var items []json.RawMessage
			for dec.More() {
				v, err := readValue(dec)
				if err != nil {
					return nil, err
				}
				var b bytes.Buffer
				writeValue(&b, v, "")
				items = append(items, b.Bytes())
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			if items == nil {
				return json.RawMessage("[]"), nil
			}
			raw, _ := json.Marshal(items)
			return json.RawMessage(raw), nil
		}
	case string:
		raw, _ := json.Marshal(t)
		return json.RawMessage(raw), nil
	case json.Number:
		return json.RawMessage(t.String()), nil
	case bool:
		if t {
			return json.RawMessage("true"), nil
		}
		return json.RawMessage("false"), nil
	case nil:
		return json.RawMessage("null"), nil
	}
	return nil, fmt.Errorf("unexpected %v", tok)
}

// writeValue writes v indented by two spaces a level, as the established
// harness writes settings.json.
func writeValue(b *bytes.Buffer, v any, indent string) {
	switch t := v.(type) {
	case *object:
		if len(t.keys) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{\n")
		for i, k := range t.keys {
			kb, _ := json.Marshal(k)
			b.WriteString(indent + "  ")
			b.Write(kb)
			b.WriteString(": ")
			writeValue(b, t.vals[k], indent+"  ")
			if i < len(t.keys)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "}")
	case json.RawMessage:
		var out bytes.Buffer
		if json.Indent(&out, t, indent, "  ") == nil {
			b.Write(out.Bytes())
		} else {
			b.Write(t)
		}
	}
}
