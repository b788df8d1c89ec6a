package confine

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// specSamples are policies as pi writes them (json.Marshal of a Spec),
// with the odd paths a user may have.
func specSamples() []Spec {
	return []Spec{
		{},
		{Network: true, Filter: []byte{}},
		{
			Stamp: "1796170569460793192-5761878", Write: []string{"/dev/shm", "/tmp", "/home/u/proj"},
			Create:  []CacheDir{{Path: "/home/u/.cache/go-build", Tool: "go"}, {Path: "/home/u/.npm", Tool: AlwaysCreate}},
			Devices: []string{"/dev/null", "/dev/zero"}, Network: false, ProxyPort: 40123, NetNS: true,
			HandOver: "/tmp/pi-handover-1/s", HostNetNS: "net:[4026531840]", Namespace: true,
			ReadOnly: []string{"/home/u/proj/.git/hooks", "/home/u/proj/.pi"}, Hide: []string{"/home/u/.ssh"},
			HostMountNS: "mnt:[4026531832]", UID: 1000, GID: 1000, Filter: []byte{0x20, 0, 0, 0, 4, 0, 0, 0},
		},
		{Write: []string{}, ReadOnly: []string{"/tmp/a \"quoted\" \\ name", "/tmp/tab\there\nnewline", "/tmp/<html>&amp;", "/tmp/ünïcödé/日本/😀", "/tmp/\u2028\u2029", "/tmp/\x01\x1f\x7f"}, UID: -1, GID: 0},
	}
}

// Every policy pi writes decodes to what encoding/json decodes it to.
func TestDecodeSpecAsEncodingJSON(t *testing.T) {
	for _, want := range specSamples() {
		js, err := json.Marshal(want)
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeSpec(string(js))
		if err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		var ref Spec
		if err := json.Unmarshal(js, &ref); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, ref) {
			t.Errorf("%s:\n got %#v\nwant %#v", js, got, ref)
		}
		// With white space around every token, as an indenting writer
		// would put it.
		var ind bytes.Buffer
		json.Indent(&ind, js, " ", "\t")
		if got, err := decodeSpec("\r\n" + ind.String() + " \n"); err != nil || !reflect.DeepEqual(got, ref) {
			t.Errorf("indented %s: %v\n got %#v\nwant %#v", ind.String(), err, got, ref)
		}
	}
}

// What pi never writes is refused, never read loosely.
func TestDecodeSpecRefuses(t *testing.T) {
	for in, want := range map[string]string{
		`{"network":true,"newRule":["/x"]}`:  "unknown field",
		`{"Network":true}`:                   "unknown field",
		`{"create":[{"path":"/a","x":"y"}]}`: "unknown field",
		`{"write":["/a"],"write":[]}`:        "twice",
		`{"write":null}`:                     "want '['",
		`{"stamp":null}`:                     "want '\"'",
		`{"network":1}`:                      "true or false",
		`{"uid":1.5}`:                        "whole number",
		`{"uid":1e3}`:                        "whole number",
		`{"uid":01}`:                         "whole number",
		`{"uid":99999999999999999999}`:       "out of range",
		`{"filter":"!!"}`:                    "filter",
		`{"stamp":"a"} {}`:                   "data after",
		"{\"stamp\":\"a\x01\"}":              "control character",
		"{\"stamp\":\"\xff\"}":               "invalid UTF-8",
		`{"stamp":"\ud800"}`:                 "lone surrogate",
		`{"stamp":"\udc00\ud800"}`:           "lone surrogate",
		`{"stamp":"\q"}`:                     "bad escape",
		`{"stamp":"abc`:                      "unterminated",
		`{"stamp":"a",}`:                     "want '\"'",
		`{"write":["a",]}`:                   "want '\"'",
		`[]`:                                 "want '{'",
		``:                                   "want '{'",
	} {
		_, err := decodeSpec(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want an error about %q", in, err, want)
		}
	}
}

// FuzzDecodeSpec holds decodeSpec to encoding/json with unknown fields
// refused: whatever it accepts, encoding/json accepts with the same
// result; and whatever encoding/json decodes, written again as pi would
// write it, it accepts with the same result.
func FuzzDecodeSpec(f *testing.F) {
	for _, s := range specSamples() {
		js, _ := json.Marshal(s)
		f.Add(string(js))
	}
	f.Add(`{"stamp":"\u00e9\ud83d\ude00\/","uid":-0,"filter":"AAAA\r\n"}`)
	f.Fuzz(func(t *testing.T, in string) {
		var ref Spec
		dec := json.NewDecoder(strings.NewReader(in))
		dec.DisallowUnknownFields()
		refErr := dec.Decode(&ref)
		got, err := decodeSpec(in)
		if err == nil {
			if refErr != nil {
				t.Fatalf("%q: accepted, encoding/json refuses: %v", in, refErr)
			}
			if !reflect.DeepEqual(got, ref) {
				t.Fatalf("%q:\n got %#v\nwant %#v", in, got, ref)
			}
		}
		if refErr != nil {
			return
		}
		js, err := json.Marshal(ref)
		if err != nil {
			t.Fatal(err)
		}
		var again Spec
		if err := json.Unmarshal(js, &again); err != nil {
			t.Fatal(err)
		}
		if got, err := decodeSpec(string(js)); err != nil || !reflect.DeepEqual(got, again) {
			t.Fatalf("%s (pi's form): %v\n got %#v\nwant %#v", js, err, got, again)
		}
	})
}
