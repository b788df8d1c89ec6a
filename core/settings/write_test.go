package settings

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSetInFileKeepsOrderAndOtherKeys(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "settings.json")
	os.WriteFile(p, []byte("{\n  \"theme\": \"dark\",\n  \"retry\": {\"enabled\": true, \"maxRetries\": 3},\n  \"packages\": [\"a\", {\"source\": \"b\"}],\n  \"zeta\": 1.50\n}\n"), 0o600)
	steps := []struct {
		name, value string
	}{
		{"hideThinkingBlock", "true"},
		{"retry.maxRetries", "5"},
		{"compaction.enabled", "false"},
		{"theme", "null"},
	}
	for _, s := range steps {
		if err := SetInFile(p, s.name, json.RawMessage(s.value)); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := os.ReadFile(p)
	want := `{
  "retry": {
    "enabled": true,
    "maxRetries": 5
  },
  "packages": [
    "a",
    {
      "source": "b"
    }
  ],
  "zeta": 1.50,
  "hideThinkingBlock": true,
  "compaction": {
    "enabled": false
  }
}
`
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode changed to %v", fi.Mode().Perm())
	}
}

func TestSetInFileRefusesWhatItCannotKeep(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ content, want string }{
		{"[1,2]", "does not hold a JSON object"},
		{"{\"a\": ", "not valid JSON"},
		{"{} {}", "text after the object"},
	} {
		p := filepath.Join(dir, "s.json")
		os.WriteFile(p, []byte(c.content), 0o644)
		err := SetInFile(p, "x", json.RawMessage("1"))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v", c.content, err)
		}
		if b, _ := os.ReadFile(p); string(b) != c.content {
			t.Errorf("%q was changed to %q", c.content, b)
		}
	}
	if err := SetInFile(filepath.Join(dir, "new", "settings.json"), "a.b", json.RawMessage(`"x"`)); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "new", "settings.json")); string(b) != "{\n  \"a\": {\n    \"b\": \"x\"\n  }\n}\n" {
		t.Errorf("new file: %q", b)
	}
}

func FuzzSetInFile(f *testing.F) {
	f.Add([]byte(`{"a":{"b":[1,{"c":null}]},"d":"e"}`), "a.b")
	f.Fuzz(func(t *testing.T, data []byte, name string) {
		if name == "" || strings.Contains(name, "..") || strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".") {
			return
		}
		p := filepath.Join(t.TempDir(), "s.json")
		os.WriteFile(p, data, 0o644)
		if SetInFile(p, name, json.RawMessage("true")) != nil {
			return
		}
		out, _ := os.ReadFile(p)
		var v map[string]any
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatalf("wrote invalid JSON %q from %q: %v", out, data, err)
		}
	})
}
