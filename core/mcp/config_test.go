package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestToolName(t *testing.T) {
	long := strings.Repeat("x", 70)
	for _, tc := range []struct{ server, tool, want string }{
		{"github", "create_issue", "mcp__github__create_issue"},
		{"dev-radius", "getThing", "mcp__dev_radius__getThing"},
		{"fs", "read.file", "mcp__fs__read_file"},
		{"fs", "ünï", "mcp__fs___n_"},
		// One '_' per UTF-16 unit, as JavaScript's replace counts them.
		{"fs", "a😀", "mcp__fs__a__"},
		// Over 64 characters: cut, then a hash of server and tool (the
		// established harness's sha256 prefix).
		{"s", long, "mcp__s__" + strings.Repeat("x", 47) + "_" + hash8("s", long)},
	} {
		if got := ToolName(tc.server, tc.tool, nil); got != tc.want {
			t.Errorf("ToolName(%q, %q) = %q, want %q", tc.server, tc.tool, got, tc.want)
		}
		if len(ToolName(tc.server, tc.tool, nil)) > 64 {
			t.Errorf("over 64: %q", tc.tool)
		}
	}
	// Tools whose mapped names collide all get the hash.
	got := toolNames("s", []string{"a-b", "a.b", "c"}, nil)
	if got[0] == got[1] || !strings.HasPrefix(got[0], "mcp__s__a_b_") || !strings.HasPrefix(got[1], "mcp__s__a_b_") || got[2] != "mcp__s__c" {
		t.Errorf("colliding names: %q", got)
	}
}

func hash8(server, tool string) string {
	n := ToolName(server, tool, func(string) bool { return true })
	return n[len(n)-8:]
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	agent, proj := filepath.Join(dir, "agent"), filepath.Join(dir, "proj", ".pi")
	write := func(p, s string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(agent, FileName), `{"mcpServers":{
		"fs":{"command":"npx","args":["-y","~/x"],"cwd":"sub","env":{"A":"${B}"},"timeout":2.5,"sandbox":{"network":true}},
		"docs":{"url":"https://example.com/mcp","headers":{"Authorization":"Bearer ${T}"},"exposure":"direct",
			"toolExposure":{"get_*":"hidden","get_one":"codemode-deferred","*":"deferred"}},
		"old":{"type":"sse","url":"https://example.com/sse"},
		"bad name":{"command":"x"},
		"neither":{"description":"d"},
		"typo":{"command":"x","exposre":"direct"},
		"dup_a":{"command":"x"},
		"dup-a":{"command":"y"}
	},"other":1}`)
	write(filepath.Join(proj, FileName), `{"mcpServers":{"fs":{"enabled":false},"local":{"command":"./run"},"ghost":{"exposure":"direct"}}}`)
	p := Paths{AgentDir: agent, ProjectDir: proj, Cwd: filepath.Join(dir, "proj"), Home: "/home/u"}

	c := Load(p)
	var names []string
	for _, s := range c.Servers {
		names = append(names, s.Name)
	}
	if got := strings.Join(names, ","); got != "fs,docs,typo,dup_a" {
		t.Errorf("untrusted servers %s", got)
	}
	fs := c.Get("fs")
	if fs.Transport != "stdio" || fs.Args[1] != "/home/u/x" || fs.Cwd != filepath.Join(dir, "proj", "sub") || fs.Timeout != 2500*time.Millisecond || !fs.Sandbox.Network || !fs.Enabled || fs.Exposure != Codemode {
		t.Errorf("fs: %+v", fs)
	}
	docs := c.Get("docs")
	for remote, want := range map[string]Exposure{"get_one": Codemode, "get_two": Hidden, "list": Deferred} {
		if got := docs.ExposureOf(remote); got != want {
			t.Errorf("exposure of %s = %s, want %s", remote, got, want)
		}
	}
	problems := ""
	for _, pr := range c.Problems {
		problems += pr.String() + "\n"
	}
	for _, want := range []string{`"old": the legacy SSE transport`, `"bad name": invalid server name`, `"neither": needs either`, `"typo": unknown key "exposre"`, `"dup-a": is the same server as "dup_a"`, `unknown key "other"`} {
		if !strings.Contains(problems, want) {
			t.Errorf("problems lack %s:\n%s", want, problems)
		}
	}

	p.Trusted = true
	c = Load(p)
	if fs := c.Get("fs"); fs.Enabled || fs.Command != "npx" || fs.Override == "" {
		t.Errorf("the project override: %+v", fs)
	}
	if l := c.Get("local"); l == nil || l.Scope != "project" {
		t.Errorf("the project's own server: %+v", l)
	}
	if c.Get("ghost") != nil || !strings.Contains(c.Problems[len(c.Problems)-1].Message, "no global server") {
		t.Errorf("an override of nothing: %v", c.Problems)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"mcpServers":{"a":{"command":"x","toolExposure":{"*":"direct"}}}}`))
	f.Add([]byte(`{"mcpServers":{"a":{"url":"http://h/mcp","oauth":{"clientId":"c"}}}}`))
	f.Add([]byte(`{"mcpServers":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, FileName), data, 0o644); err != nil {
			t.Fatal(err)
		}
		c := Load(Paths{AgentDir: dir, Cwd: dir})
		for _, s := range c.Servers {
			if s.Transport != "stdio" && s.Transport != "http" {
				t.Fatalf("server %q without a transport", s.Name)
			}
			if !validServerName(s.Name) {
				t.Fatalf("invalid name kept: %q", s.Name)
			}
		}
	})
}
