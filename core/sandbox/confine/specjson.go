package confine

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// decodeSpec parses a Spec as pi writes it (encoding/json's Marshal of a
// Spec), for the helper, which runs once per bash call: encoding/json's
// reflection, its type caches and the heap and stack they grow cost the
// helper about 50 page faults and a tenth of its CPU, for one small fixed
// shape. It accepts a subset of what encoding/json (with
// DisallowUnknownFields) accepts, with the same result, and refuses the
// rest: unknown, duplicate or differently cased fields, null (but for the
// filter, which pi writes as null when it has none), trailing
// data, invalid UTF-8 and lone surrogates, none of which pi writes.
// FuzzDecodeSpec holds it to encoding/json.
func decodeSpec(data string) (Spec, error) {
	d := specDecoder{s: data}
	var s Spec
	err := d.object(func(key string) error {
		switch key {
		case "stamp":
			return d.str(&s.Stamp)
		case "write":
			return d.strs(&s.Write)
		case "create":
			return d.cacheDirs(&s.Create)
		case "devices":
			return d.strs(&s.Devices)
		case "network":
			return d.boolean(&s.Network)
		case "proxyPort":
			return d.integer(&s.ProxyPort)
		case "netns":
			return d.boolean(&s.NetNS)
		case "handOver":
			return d.str(&s.HandOver)
		case "hostNetNS":
			return d.str(&s.HostNetNS)
		case "namespace":
			return d.boolean(&s.Namespace)
		case "readOnly":
			return d.strs(&s.ReadOnly)
		case "hide":
			return d.strs(&s.Hide)
		case "hostMountNS":
			return d.str(&s.HostMountNS)
		case "uid":
			return d.integer(&s.UID)
		case "gid":
			return d.integer(&s.GID)
		case "filter":
			if d.null() {
				return nil // no filter, as encoding/json leaves it; the helper refuses that
			}
			var b64 string
			if err := d.str(&b64); err != nil {
				return err
			}
			b, err := base64.StdEncoding.DecodeString(b64) // as encoding/json decodes a []byte
			if err != nil {
				return fmt.Errorf("filter: %w", err)
			}
			s.Filter = b
			return nil
		}
		return fmt.Errorf("unknown field %q", key)
	})
	if err != nil {
		return Spec{}, err
	}
	d.space()
	if d.i != len(d.s) {
		return Spec{}, d.errorf("data after the policy")
	}
	return s, nil
}

type specDecoder struct {
	s string
	i int
}

func (d *specDecoder) errorf(format string, args ...any) error {
	return fmt.Errorf("at offset %d: %s", d.i, fmt.Sprintf(format, args...))
}

func (d *specDecoder) space() {
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// next skips white space and reports the next byte (0 at the end).
func (d *specDecoder) next() byte {
	d.space()
	if d.i < len(d.s) {
		return d.s[d.i]
	}
	return 0
}

func (d *specDecoder) expect(c byte) error {
	if d.next() != c {
		return d.errorf("want %q", c)
	}
	d.i++
	return nil
}

// object parses an object, calling field for each key with the decoder
// at its value; a key may appear once.
func (d *specDecoder) object(field func(key string) error) error {
	if err := d.expect('{'); err != nil {
		return err
	}
	if d.next() == '}' {
		d.i++
		return nil
	}
	var seen []string
	for {
		var key string
		if err := d.str(&key); err != nil {
			return err
		}
		for _, k := range seen {
			if k == key {
				return d.errorf("field %q twice", key)
			}
		}
		seen = append(seen, key)
		if err := d.expect(':'); err != nil {
			return err
		}
		if err := field(key); err != nil {
			return err
		}
		switch d.next() {
		case ',':
			d.i++
		case '}':
			d.i++
			return nil
		default:
			return d.errorf("want ',' or '}'")
		}
	}
}

// array parses an array, calling elem with the decoder at each element.
func (d *specDecoder) array(elem func() error) error {
	if err := d.expect('['); err != nil {
		return err
	}
	if d.next() == ']' {
		d.i++
		return nil
	}
	for {
		if err := elem(); err != nil {
			return err
		}
		switch d.next() {
		case ',':
			d.i++
		case ']':
			d.i++
			return nil
		default:
			return d.errorf("want ',' or ']'")
		}
	}
}

func (d *specDecoder) strs(out *[]string) error {
	list := []string{} // "[]" is an empty list, not nil, as in encoding/json
	err := d.array(func() error {
		var s string
		err := d.str(&s)
		list = append(list, s)
		return err
	})
	*out = list
	return err
}

func (d *specDecoder) cacheDirs(out *[]CacheDir) error {
	list := []CacheDir{}
	err := d.array(func() error {
		var c CacheDir
		err := d.object(func(key string) error {
			switch key {
			case "path":
				return d.str(&c.Path)
			case "tool":
				return d.str(&c.Tool)
			}
			return fmt.Errorf("unknown field %q", key)
		})
		list = append(list, c)
		return err
	})
	*out = list
	return err
}

// null consumes a null literal if one is next.
func (d *specDecoder) null() bool {
	if d.space(); len(d.s)-d.i >= 4 && d.s[d.i:d.i+4] == "null" {
		d.i += 4
		return true
	}
	return false
}

func (d *specDecoder) boolean(out *bool) error {
	d.space()
	switch {
	case len(d.s)-d.i >= 4 && d.s[d.i:d.i+4] == "true":
		*out, d.i = true, d.i+4
	case len(d.s)-d.i >= 5 && d.s[d.i:d.i+5] == "false":
		*out, d.i = false, d.i+5
	default:
		return d.errorf("want true or false")
	}
	return nil
}

// integer parses a JSON number that is a whole int: an optional minus,
// then 0 or digits not starting with 0; no fraction or exponent.
func (d *specDecoder) integer(out *int) error {
	d.space()
	start := d.i
	if d.i < len(d.s) && d.s[d.i] == '-' {
		d.i++
	}
	digits := d.i
	for d.i < len(d.s) && d.s[d.i] >= '0' && d.s[d.i] <= '9' {
		d.i++
	}
	if d.i == digits || d.s[digits] == '0' && d.i-digits > 1 {
		return d.errorf("want a whole number")
	}
	if d.i < len(d.s) && (d.s[d.i] == '.' || d.s[d.i] == 'e' || d.s[d.i] == 'E') {
		return d.errorf("want a whole number")
	}
	n, err := strconv.Atoi(d.s[start:d.i])
	if err != nil {
		return d.errorf("%v", err)
	}
	*out = n
	return nil
}

// str parses a JSON string: valid UTF-8, no control characters, the
// JSON escapes, and \u escapes with surrogates only in pairs.
func (d *specDecoder) str(out *string) error {
	if err := d.expect('"'); err != nil {
		return err
	}
	start := d.i
	// The common case, no escape: a substring of the input.
	for d.i < len(d.s) {
		c := d.s[d.i]
		if c == '"' {
			if !utf8.ValidString(d.s[start:d.i]) {
				return d.errorf("invalid UTF-8 in a string")
			}
			*out = d.s[start:d.i]
			d.i++
			return nil
		}
		if c == '\\' || c < 0x20 {
			break
		}
		d.i++
	}
	b := []byte(d.s[start:d.i])
	for d.i < len(d.s) {
		c := d.s[d.i]
		switch {
		case c == '"':
			if !utf8.Valid(b) {
				return d.errorf("invalid UTF-8 in a string")
			}
			*out = string(b)
			d.i++
			return nil
		case c < 0x20:
			return d.errorf("control character in a string")
		case c != '\\':
			b = append(b, c)
			d.i++
			continue
		}
		if d.i+1 >= len(d.s) {
			break
		}
		e := d.s[d.i+1]
		d.i += 2
		switch e {
		case '"', '\\', '/':
			b = append(b, e)
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, ok := d.hex4()
			if !ok {
				return d.errorf("bad \\u escape")
			}
			if utf16.IsSurrogate(r) {
				if len(d.s)-d.i < 2 || d.s[d.i] != '\\' || d.s[d.i+1] != 'u' {
					return d.errorf("lone surrogate in a string")
				}
				d.i += 2
				r2, ok := d.hex4()
				if !ok {
					return d.errorf("bad \\u escape")
				}
				if r = utf16.DecodeRune(r, r2); r == utf8.RuneError {
					return d.errorf("lone surrogate in a string")
				}
			}
			b = utf8.AppendRune(b, r)
		default:
			return d.errorf("bad escape \\%c", e)
		}
	}
	return errors.New("unterminated string")
}

func (d *specDecoder) hex4() (rune, bool) {
	if len(d.s)-d.i < 4 {
		return 0, false
	}
	var r rune
	for _, c := range []byte(d.s[d.i : d.i+4]) {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	d.i += 4
	return r, true
}
