package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/piwasm/pi/internal/atomicfile"
)

// Entry is an mcpServers entry to write, its keys in the order the
// established harness writes them.
type Entry struct {
	Command     string          `json:"command,omitempty"`
	Args        []string        `json:"args,omitempty"`
	Env         *orderedStrings `json:"env,omitempty"`
	Cwd         string          `json:"cwd,omitempty"`
	URL         string          `json:"url,omitempty"`
	Headers     *orderedStrings `json:"headers,omitempty"`
	OAuth       *OAuth          `json:"oauth,omitempty"`
	Exposure    string          `json:"exposure,omitempty"`
	Description string          `json:"description,omitempty"`
}

// SetEnv and SetHeaders set the env and headers objects, keys in order.
func (e *Entry) SetEnv(kv [][2]string) {
	if len(kv) > 0 {
		e.Env = &orderedStrings{kv}
	}
}

func (e *Entry) SetHeaders(kv [][2]string) {
	if len(kv) > 0 {
		e.Headers = &orderedStrings{kv}
	}
}

type orderedStrings struct{ kv [][2]string }

func (o *orderedStrings) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, kv := range o.kv {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(kv[0])
		v, _ := json.Marshal(kv[1])
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// AddServer writes name's entry into file (replacing an entry of that
// name), keeping every other key and server as they are, and creating the
// file when it is missing. It reports whether an entry was replaced.
func AddServer(file, name string, e Entry) (replaced bool, err error) {
	if !validServerName(name) {
		return false, fmt.Errorf("invalid server name %q (use letters, digits, \"_\" and \"-\")", name)
	}
	raw, err := json.Marshal(e)
	if err != nil {
		return false, err
	}
	return edit(file, func(servers []member) ([]member, bool, error) {
		for i := range servers {
			if servers[i].Key == name {
				servers[i].Value = raw
				return servers, true, nil
			}
		}
		return append(servers, member{Key: name, Value: raw}), false, nil
	})
}

// ErrNoServer is returned (wrapped) by RemoveServer for a name the file
// does not define.
var ErrNoServer error = constError("no such server")

// constError is an error that is a constant: set by the linker, where
// errors.New would give the package an initialiser that every pi process
// runs (see RATIONALE.md, "Nothing runs at start-up that the mode does
// not use").
type constError string

func (e constError) Error() string { return string(e) }

// RemoveServer deletes name's entry from file, keeping everything else.
func RemoveServer(file, name string) error {
	_, err := edit(file, func(servers []member) ([]member, bool, error) {
		for i := range servers {
			if servers[i].Key == name {
				return append(servers[:i:i], servers[i+1:]...), true, nil
			}
		}
		return nil, false, ErrNoServer
	})
	return err
}

// edit rewrites file's mcpServers through change, with two-space
// indentation as the established harness writes it.
func edit(file string, change func([]member) ([]member, bool, error)) (bool, error) {
	data, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	var top []member
	if len(bytes.TrimSpace(data)) > 0 {
		if top, err = decodeObject(data); err != nil {
			return false, fmt.Errorf("%s: invalid JSON (%v); fix or remove it first", file, err)
		}
	}
	idx := -1
	var servers []member
	for i, m := range top {
		if m.Key == "mcpServers" {
			idx = i
			if servers, err = decodeObject(m.Value); err != nil {
				return false, fmt.Errorf("%s: \"mcpServers\" is not an object", file)
			}
		}
	}
	servers, did, err := change(servers)
	if err != nil {
		return false, err
	}
	enc, err := encodeObject(servers)
	if err != nil {
		return false, err
	}
	if idx < 0 {
		top = append([]member{{Key: "mcpServers", Value: enc}}, top...)
	} else {
		top[idx].Value = enc
	}
	out, err := encodeObject(top)
	if err != nil {
		return false, err
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, out, "", "  "); err != nil {
		return false, err
	}
	pretty.WriteByte('\n')
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return false, err
	}
	return did, atomicfile.Write(file, pretty.Bytes(), 0o644)
}

func encodeObject(ms []member) (json.RawMessage, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(m.Key)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		var c bytes.Buffer
		if err := json.Compact(&c, m.Value); err != nil {
			return nil, err
		}
		b.Write(c.Bytes())
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
