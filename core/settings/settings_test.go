package settings

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/piwasm/pi/core/diag"
)

func TestBuiltin(t *testing.T) {
	if _, err := NewRegistry(peerKeys(), piKeys()); err != nil {
		t.Fatal(err)
	}
	r := Builtin()
	for _, name := range []string{"defaultModel", "retry.provider.timeoutMs", "compaction.reserveTokens", "permissions", "sandbox", "images.autoResize"} {
		if _, ok := r.Key(name); !ok {
			t.Errorf("%s is not registered", name)
		}
	}
	keys := r.Keys()
	if !slices.IsSortedFunc(keys, func(a, b Key) int { return strings.Compare(a.Name, b.Name) }) || len(keys) != len(peerKeys())+len(piKeys()) {
		t.Errorf("Keys() is not every key sorted by name (%d keys)", len(keys))
	}
	if _, ok := r.parents["retry.provider"]; !ok || r.parents["retry.provider.timeoutMs"] {
		t.Errorf("the parents of retry.provider.timeoutMs: %v", r.parents)
	}
	for _, k := range keys {
		if k.Default != "" && !json.Valid([]byte(k.Default)) {
			t.Errorf("%s: default %q is not JSON", k.Name, k.Default)
		}
		if k.Default != "" {
			if msg := k.validate(json.RawMessage(k.Default)); msg != "" {
				t.Errorf("%s: the default %s is invalid: %s", k.Name, k.Default, msg)
			}
		}
	}
}

func TestNewRegistryRefusesBadTables(t *testing.T) {
	for _, tables := range [][]Key{
		{{Name: "a"}, {Name: "a"}},
		{{Name: "a", Kind: Int}, {Name: "a.b"}},
		{{Name: "a", Kind: Object}, {Name: "a.b"}},
		{{Name: ""}},
	} {
		if _, err := NewRegistry(tables); err == nil {
			t.Errorf("%v accepted", tables)
		}
	}
}

// testKeys is a small registry whose statuses do not change as pi learns
// keys.
func testReg(t *testing.T) *Registry {
	r, err := NewRegistry([]Key{
		{Name: "defaultModel", Kind: String, Status: Applied},
		{Name: "retry.maxRetries", Kind: Int, Default: "3", Status: Applied},
		{Name: "retry.baseDelayMs", Kind: Int, Default: "2000", Status: Applied},
		{Name: "steeringMode", Kind: String, Enum: []string{"all", "one-at-a-time"}, Default: `"one-at-a-time"`, Status: Applied},
		{Name: "images.autoResize", Kind: Bool, Default: "true", Status: Applied},
		{Name: "images.blockImages", Kind: Bool, Default: "false", Status: Applied},
		{Name: "treeFilterMode", Kind: String, Note: "pi has no /tree yet"},
		{Name: "enableInstallTelemetry", Kind: Bool, Status: NotApplicable},
		{Name: "httpProxy", Kind: String, Scope: GlobalOnly, Status: Applied},
		{Name: "skills", Kind: Strings, Status: Applied},
		{Name: "quietStartup", Kind: Bool, Enum: []string{"header"}, Status: Applied},
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func kinds(ds []diag.Diagnostic) string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Kind)
	}
	return strings.Join(out, ",")
}

func TestParseReportsUnknownInvalidAndIgnored(t *testing.T) {
	data := []byte(`{
  "defaultModle": "x",
  "retry": {
    "maxRetry": 2,
    "baseDelayMs": -5
  },
  "steeringMode": "sometimes",
  "images": {"autoResize": false},
  "treeFilterMode": "all",
  "enableInstallTelemetry": false,
  "zzzzzzzzzzzz": 1
}`)
	reg := testReg(t)
	l, ds := Parse(reg, "/g/settings.json", FileGlobal, data)
	want := []struct {
		kind, msg string
		line      int
	}{
		{KindUnknown, `unknown setting "defaultModle" (did you mean "defaultModel"?)`, 2},
		{KindInvalid, `retry.baseDelayMs must be a whole number of at least 0; the default 2000 applies`, 5},
		{KindUnknown, `unknown setting "retry.maxRetry" (did you mean "retry.maxRetries"?)`, 4},
		{KindInvalid, `steeringMode must be one of "all", "one-at-a-time", not "sometimes"; the default "one-at-a-time" applies`, 7},
		{KindIgnored, `treeFilterMode has no effect in pi (pi has no /tree yet)`, 9},
		{KindUnknown, `unknown setting "zzzzzzzzzzzz"`, 11},
	}
	if len(ds) != len(want) {
		t.Fatalf("diagnostics:\n%v", ds)
	}
	for i, w := range want {
		d := ds[i]
		if d.Kind != w.kind || d.Message != w.msg || d.Line != w.line || d.Path != "/g/settings.json" {
			t.Errorf("diagnostic %d = %+v, want %+v", i, d, w)
		}
	}
	s := New(reg, l)
	if s.IsSet("defaultModle") || s.IsSet("retry.baseDelayMs") || s.IsSet("steeringMode") {
		t.Error("an unknown or invalid value was kept")
	}
	if n, _ := s.Int("retry.baseDelayMs"); n != 2000 {
		t.Errorf("retry.baseDelayMs = %d, want the default", n)
	}
	if s.Bool("images.autoResize") || s.Bool("images.blockImages") {
		t.Errorf("images.autoResize = %v", s.Bool("images.autoResize"))
	}
}

func TestProjectCannotSetGlobalOnlyKeys(t *testing.T) {
	reg := testReg(t)
	g, ds := Parse(reg, "/g.json", FileGlobal, []byte(`{"httpProxy":"http://a:1"}`))
	if len(ds) != 0 {
		t.Fatal(ds)
	}
	p, ds := Parse(reg, "/p.json", FileProject, []byte(`{"httpProxy":"http://evil:1"}`))
	if kinds(ds) != KindIgnored {
		t.Fatalf("diagnostics %v", ds)
	}
	if got := New(reg, g, p).String("httpProxy"); got != "http://a:1" {
		t.Errorf("httpProxy = %q", got)
	}
}

func TestMergeProjectOverGlobal(t *testing.T) {
	reg := testReg(t)
	g, _ := Parse(reg, "/g.json", FileGlobal, []byte(`{"retry":{"maxRetries":5,"baseDelayMs":10},"skills":["a"],"quietStartup":"header"}`))
	p, _ := Parse(reg, "/p.json", FileProject, []byte(`{"retry":{"maxRetries":1},"skills":["b"]}`))
	s := New(reg, g, p)
	if n, _ := s.Int("retry.maxRetries"); n != 1 {
		t.Errorf("maxRetries %d", n)
	}
	if n, _ := s.Int("retry.baseDelayMs"); n != 10 {
		t.Errorf("baseDelayMs %d (a project's retry object must not hide the global members)", n)
	}
	if v, _ := s.Lookup("retry.maxRetries"); v.File != "/p.json" || v.Line != 1 {
		t.Errorf("lookup %+v", v)
	}
	if got := len(s.Layers("skills")); got != 2 {
		t.Errorf("skills layers %d", got)
	}
	if s.Bool("quietStartup") || s.String("quietStartup") != "header" {
		t.Error("quietStartup")
	}
	if d := s.Dump(); len(d) != 4 || d[0].Name != "quietStartup" {
		t.Errorf("dump %+v", d)
	}
}

func TestDefaultTools(t *testing.T) {
	tests := []struct {
		layers []string
		want   string
	}{
		{nil, "read,bash,edit,write"},
		{[]string{`[]`}, ""},
		{[]string{`["+grep"]`}, "read,bash,edit,write,grep"},
		{[]string{`["-bash","+powershell","+grep"]`}, "read,edit,write,powershell,grep"},
		{[]string{`["read","grep","-grep","+ls"]`}, "read,ls"},
		{[]string{`["read"]`, `["+grep"]`}, "read,grep"},
		{[]string{`["+grep"]`, `["read"]`}, "read"},
		{[]string{`["+grep"]`, `["-read"]`}, "bash,edit,write,grep"},
	}
	for _, tt := range tests {
		var ls []Layer
		for i, raw := range tt.layers {
			l, ds := Parse(Builtin(), "/f", []string{FileGlobal, FileProject}[i], []byte(`{"defaultTools":`+raw+`}`))
			if len(ds) > 0 && ds[0].Kind != KindIgnored {
				t.Fatal(ds)
			}
			ls = append(ls, l)
		}
		got, _ := New(Builtin(), ls...).DefaultTools()
		if strings.Join(got, ",") != tt.want {
			t.Errorf("%v: %v, want %s", tt.layers, got, tt.want)
		}
	}
}

func TestNearest(t *testing.T) {
	c := []string{"install", "remove", "uninstall", "update", "list", "config", "mcp"}
	for w, want := range map[string]string{"instal": "install", "lsit": "list", "updte": "update", "hello": "", "mpc": "mcp", "explain the code": ""} {
		if got := Nearest(w, c); got != want {
			t.Errorf("Nearest(%q) = %q, want %q", w, got, want)
		}
	}
}

func TestLineOf(t *testing.T) {
	data := []byte("{\n \"a\": {\n  \"b\": 1\n },\n \"b\": 2\n}")
	if LineOf(data, "a.b") != 3 || LineOf(data, "b") != 3 || LineOf(data, "zz") != 0 {
		t.Errorf("%d %d", LineOf(data, "a.b"), LineOf(data, "b"))
	}
	if !slices.Contains([]int{2}, LineOf(data, "a")) {
		t.Error("a")
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"retry":{"maxRetries":2},"defaultTools":["+x"],"images":{"autoResize":"no"}}`))
	f.Add([]byte(`{"a":{"b":{"c":null}}}`))
	f.Add([]byte("\ufeff{}"))
	reg := Builtin()
	f.Fuzz(func(t *testing.T, data []byte) {
		l, ds := Parse(reg, "/f", FileProject, data)
		s := New(reg, l)
		for _, d := range ds {
			if d.Path != "/f" || d.Message == "" {
				t.Fatalf("diagnostic without a file or message: %+v", d)
			}
		}
		for _, e := range s.Dump() {
			k, ok := reg.Key(e.Name)
			if !ok {
				t.Fatalf("unknown key %q kept", e.Name)
			}
			if msg := k.validate(e.Value); msg != "" {
				t.Fatalf("invalid value of %s kept: %s", e.Name, msg)
			}
		}
		s.DefaultTools()
	})
}

// BenchmarkBuiltin is the registry every run builds.
func BenchmarkBuiltin(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		Builtin()
	}
}

// The display keys with a range are clamped as the established harness
// clamps them, and each value brought into range is reported with its key.
func TestDisplayKeysClampAndReport(t *testing.T) {
	data := `{
  "editorPaddingX": 7,
  "autocompleteMaxVisible": 1.5,
  "fullscreenWheelScrollLines": 250,
  "outputPad": 2,
  "quietStartup": "header",
  "markdown": {"codeBlockIndent": "> ", "mermaid": "off"}
}`
	l, ds := Parse(Builtin(), "/a/settings.json", FileGlobal, []byte(data))
	s := New(Builtin(), l)
	for name, want := range map[string]int64{"editorPaddingX": 3, "autocompleteMaxVisible": 3, "fullscreenWheelScrollLines": 100, "outputPad": 1} {
		if got, ok := s.Int(name); !ok || got != want {
			t.Errorf("%s = %d (%v), want %d", name, got, ok, want)
		}
	}
	if s.String("quietStartup") != "header" || s.String("markdown.codeBlockIndent") != "> " || s.String("markdown.mermaid") != "off" {
		t.Errorf("quietStartup %q, codeBlockIndent %q, mermaid %q", s.String("quietStartup"), s.String("markdown.codeBlockIndent"), s.String("markdown.mermaid"))
	}
	var msgs []string
	for _, d := range ds {
		if d.Kind != KindInvalid {
			t.Errorf("unexpected %s: %s", d.Kind, d.Message)
			continue
		}
		msgs = append(msgs, d.Message)
	}
	all := strings.Join(msgs, "\n")
	for _, want := range []string{
		"editorPaddingX must be a whole number from 0 to 3; 3 applies",
		"autocompleteMaxVisible must be a whole number from 3 to 20; 3 applies",
		"fullscreenWheelScrollLines must be a whole number from 1 to 100; 100 applies",
		"outputPad must be 0 or 1; the default 1 applies",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("no report %q in:\n%s", want, all)
		}
	}
	// In range: nothing to report, "auto" untouched.
	_, ds = Parse(Builtin(), "/a/settings.json", FileGlobal, []byte(`{"editorPaddingX": 2, "autocompleteMaxVisible": 20, "fullscreenWheelScrollLines": "auto", "outputPad": 0}`))
	if len(ds) != 0 {
		t.Errorf("values in range reported: %v", ds)
	}
}

// The terminal keys take the established harness's values: a protocol
// name or false for terminal.images (true names none), any number of
// cells for terminal.imageWidthCells (pi rounds it down).
func TestTerminalKeys(t *testing.T) {
	_, ds := Parse(Builtin(), "/a/settings.json", FileGlobal, []byte(`{"terminal": {"images": true, "imageWidthCells": 40.5, "hyperlinks": "auto", "trueColor": false}}`))
	if len(ds) != 1 || !strings.Contains(ds[0].Message, `terminal.images must be "kitty", "iterm2", "auto" or false`) {
		t.Errorf("reports: %v", ds)
	}
	for _, ok := range []string{`"kitty"`, `"iterm2"`, `"auto"`, `false`} {
		if _, ds := Parse(Builtin(), "/a/settings.json", FileGlobal, []byte(`{"terminal": {"images": `+ok+`}}`)); len(ds) != 0 {
			t.Errorf("terminal.images %s reported: %v", ok, ds)
		}
	}
}
