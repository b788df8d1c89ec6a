//go:build !wasip1

package sdk

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/piwasm/pi/abi"
)

// Outside WebAssembly the host functions are served by the Harness in use,
// so that an extension's handlers can be unit-tested with go test.

var (
	harnessMu sync.Mutex // held by a Harness for the whole of a call
	current   *Harness
)

func fetchInto(key string) ([]byte, error) { return Fetch(key) }

// Fetch returns the value of key (see the WebAssembly build); under a
// Harness it comes from the event being run, Harness.Config or
// Harness.Values.
func Fetch(key string) ([]byte, error) {
	h := current
	if h == nil {
		return nil, ErrNotFound
	}
	switch key {
	case abi.KeyEvent:
		return append([]byte(nil), h.event...), nil
	case abi.KeyConfig:
		if h.Config == "" {
			return []byte("null"), nil
		}
		return []byte(h.Config), nil
	case abi.KeyFlags:
		obj := map[string]any{}
		for k, v := range h.Flags {
			obj[k] = v
			if v == "true" || v == "false" {
				obj[k] = v == "true"
			}
		}
		return json.Marshal(obj)
	}
	if v, ok := h.Values[key]; ok {
		return []byte(v), nil
	}
	return nil, ErrNotFound
}

// FetchInto is Fetch into dst's storage.
func FetchInto(dst []byte, key string) ([]byte, error) {
	b, err := Fetch(key)
	if err != nil {
		return dst[:0], err
	}
	return append(dst[:0], b...), nil
}

// ReadFile reads a project file; under a Harness from Harness.Files (a
// path that is not there is denied, as an ungranted one would be).
func ReadFile(path string) ([]byte, error) {
	h := current
	if path == "" || strings.ContainsAny(path, "\\\x00") {
		return nil, fmt.Errorf("read %s: %w", path, ErrInvalid)
	}
	if h == nil {
		return nil, fmt.Errorf("read %s: %w", path, ErrDenied)
	}
	v, ok := h.Files[path]
	if !ok {
		return nil, fmt.Errorf("read %s: %w", path, ErrDenied)
	}
	return []byte(v), nil
}

// Log records a line in Harness.Logs as "LEVEL message".
func Log(level int32, msg string) {
	if h := current; h != nil {
		h.Logs = append(h.Logs, abi.LogLevelName(level)+" "+msg)
	}
}

func output(b []byte) {
	if h := current; h != nil {
		h.out = append(h.out[:0], b...)
	}
}

func releaseScratch() {}

// yield has nothing to do outside WebAssembly.
func yield() {}

// Update records partial tool output in Harness.Updates.
func Update(text string) {
	if h := current; h != nil {
		h.Updates = append(h.Updates, text)
	}
}
