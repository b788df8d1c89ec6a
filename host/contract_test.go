package host

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/piwasm/pi/abi"
)

const sdkManifest = "name: sdk\nabi: 1\nhooks: [before_agent_start, system-prompt/assemble, input, command]\n"

func TestDeterministic(t *testing.T) {
	ctx := context.Background()
	dir := pkg(t, "sdkguest", sdkManifest)
	var outs [][]byte
	for i := 0; i < 2; i++ { // two fresh instances
		e := load(t, nil, dir)[0]
		res, err := e.BeforeAgentStart(ctx, abi.BeforeAgentStartEvent{Input: "entropy"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res)
		outs = append(outs, b)
		// The clock a guest sees without the grant never moves.
		c1, err1 := e.BeforeAgentStart(ctx, abi.BeforeAgentStartEvent{Input: "clock"}, nil)
		c2, err2 := e.BeforeAgentStart(ctx, abi.BeforeAgentStartEvent{Input: "clock"}, nil)
		if err1 != nil || err2 != nil || c1.Message != c2.Message || c1.Message != "2001-01-01T00:00:00Z" {
			t.Fatalf("clock: %q %q %v %v", c1.Message, c2.Message, err1, err2)
		}
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Fatalf("fresh instances differ:\n%s\n%s", outs[0], outs[1])
	}
	// With clock and random granted, the guest sees the real ones.
	m := strings.Replace(sdkManifest, "hooks:", "capabilities: {clock: true, random: true}\nhooks:", 1)
	gdir := pkg(t, "sdkguest", m)
	e := load(t, Grants{"sdk": {Clock: true, Random: true}}, gdir)[0]
	c, err := e.BeforeAgentStart(ctx, abi.BeforeAgentStartEvent{Input: "clock"}, nil)
	if err != nil || strings.HasPrefix(c.Message, "2001") {
		t.Fatalf("granted clock: %q %v", c.Message, err)
	}
}

func TestLazyFetch(t *testing.T) {
	ctx := context.Background()
	e := load1(t, "sdkguest", sdkManifest)
	prompt := strings.Repeat("p", abi.InlinePromptMax+1)
	asked := map[string]int{}
	fetch := func(k string) ([]byte, bool) {
		asked[k]++
		switch k {
		case abi.KeySystemPrompt:
			return []byte(prompt), true
		case abi.KeyContextPrefix + "/p/AGENTS.md":
			return []byte("be nice"), true
		case abi.KeySkills:
			t.Error("skills fetched though never asked for")
		}
		return nil, false
	}
	ev := abi.BeforeAgentStartEvent{Input: "lazy", SystemPromptBytes: len(prompt), Options: abi.Options{ContextFiles: []string{"/p/AGENTS.md"}}}
	res, err := e.BeforeAgentStart(ctx, ev, fetch)
	if err != nil {
		t.Fatal(err)
	}
	if want := "4097|be nice|true"; res.Message != want {
		t.Fatalf("got %q want %q", res.Message, want)
	}
	if asked[abi.KeySystemPrompt] != 1 || asked[abi.KeyContextPrefix+"/p/AGENTS.md"] != 1 || asked["nope"] != 1 || len(asked) != 3 {
		t.Fatalf("fetch callback calls: %v", asked)
	}
}

func TestGuestLog(t *testing.T) {
	e := load1(t, "sdkguest", strings.Replace(sdkManifest, "name: sdk", "name: chatty", 1))
	if _, err := e.BeforeAgentStart(context.Background(), abi.BeforeAgentStartEvent{Input: "log"}, nil); err != nil {
		t.Fatal(err)
	}
	if !logs.has("chatty warn hello from the guest") {
		t.Fatalf("log lines: %q", logs.lines)
	}
}

func TestCommandsFromExport(t *testing.T) {
	ctx := context.Background()
	e := load1(t, "sdkguest", sdkManifest)
	if cs := e.Commands(); len(cs) != 1 || cs[0].Name != "echo" {
		t.Fatalf("commands: %+v", cs)
	}
	res, err := e.Command(ctx, abi.CommandEvent{Name: "echo", Args: "a b"})
	if err != nil || res.Show != "a b" {
		t.Fatalf("%+v %v", res, err)
	}
	_, err = e.Command(ctx, abi.CommandEvent{Name: "nope"})
	callErr(t, err, "sdk", CauseGuestError)
}

func TestAssembleEdit(t *testing.T) {
	e := load1(t, "sdkguest", sdkManifest)
	ev := realisticAssembly()
	res, err := e.Assemble(context.Background(), ev)
	if err != nil {
		t.Fatal(err)
	}
	out, err := abi.ApplyAssemble(ev, res.Ops)
	if err != nil || len(res.Ops) != 1 || !strings.HasSuffix(out.Sections[2].Text, "- Edited by sdkguest.") {
		t.Fatalf("%+v %v", res.Ops, err)
	}
}

// realisticAssembly is an ~8 KiB assembly shaped like a default prompt.
func realisticAssembly() abi.AssembleEvent {
	para := func(n int) string {
		return strings.TrimSpace(strings.Repeat("Keep changes small and explain why they are needed. ", n))
	}
	return abi.AssembleEvent{
		Sections: []abi.Section{
			{Name: "preamble", Order: 0, Text: para(4), Source: "builtin"},
			{Name: "tools", Order: 100, Text: "- read: read a file\n- bash: run a command\n- edit: edit a file\n- write: write a file", Source: "builtin"},
			{Name: "rules", Order: 200, Text: "- " + para(6) + "\n- Be concise.\n- Show file paths clearly.", Source: "builtin"},
			{Name: "docs", Order: 300, Text: para(3), Source: "builtin"},
			{Name: "project_context", Order: 500, Text: para(90), Source: "builtin"},
			{Name: "skills", Order: 600, Text: para(20), Source: "builtin"},
			{Name: "cwd", Order: 700, Text: "/home/user/project", Source: "builtin"},
		},
		Tools:     []string{"read", "bash", "edit", "write"},
		Variables: []abi.Variable{{Name: "branch", Value: ptr("main")}},
	}
}

func ptr(s string) *string { return &s }

func TestGrantStore(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := OpenGrantStore(dir)
	if err != nil || len(s.Grants()) != 0 {
		t.Fatal(err)
	}
	p := examplePkg(t, "git-branch")
	pk, _ := ReadPackage(p)
	s.Set("git-branch", GrantAll(pk.Manifest, pk.SHA256))
	if err := s.Save(); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(filepath.Join(dir, GrantsFile)); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("%v %v", st, err)
	}
	s2, err := OpenGrantStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	g, ok := s2.Get("git-branch")
	if !ok || g.SHA256 != pk.SHA256 || len(g.Files) != 1 {
		t.Fatalf("%+v", g)
	}
	// A changed module loses its grant, and the load says so.
	stale := s2.Grants()
	g.SHA256 = strings.Repeat("0", 64)
	stale["git-branch"] = g
	exts, diags := testRT.Load(ctx, []string{p}, stale)
	defer exts[0].Close(ctx)
	if len(diags) != 1 || diags[0].Kind != DiagGrant || !strings.Contains(diags[0].Message, "module changed since its grant") {
		t.Fatalf("%+v", diags)
	}
	if len(exts[0].Granted().Files) != 0 {
		t.Fatal("stale grant still in force")
	}
	s2.Remove("git-branch")
	if _, ok := s2.Get("git-branch"); ok {
		t.Fatal("not removed")
	}
	if err := os.WriteFile(filepath.Join(dir, GrantsFile), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenGrantStore(dir); err == nil {
		t.Fatal("malformed store accepted")
	}
}

func TestSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("soak test skipped with -short")
	}
	ctx := context.Background()
	// The deadline is the cap: this test is about memory, and a loaded
	// machine can starve one of 20,000 calls for seconds.
	e := load1(t, "sdkguest", "name: soak\nabi: 1\nhooks: [before_agent_start]\nlimits: {memoryMiB: 64, timeoutMs: 5000}\n")
	ev := abi.BeforeAgentStartEvent{Input: "garbage"}
	for i := 0; i < 20000; i++ {
		res, err := e.BeforeAgentStart(ctx, ev, nil)
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if res.Message != "65536" {
			t.Fatalf("call %d: %q", i, res.Message)
		}
	}
	if e.Retired() != 0 {
		t.Fatalf("retired %d", e.Retired())
	}
	e.mu.Lock()
	size := e.inst.mem.Size()
	e.mu.Unlock()
	t.Logf("guest memory after 20000 calls: %d MiB", size>>20)
}

func TestConcurrentCalls(t *testing.T) {
	ctx := context.Background()
	exts := load(t, nil,
		pkg(t, "sdkguest", "name: one\nabi: 1\nhooks: [input]\nlimits: {timeoutMs: 5000}\n"),
		pkg(t, "sdkguest", "name: two\nabi: 1\nhooks: [input]\nlimits: {timeoutMs: 5000}\n"))
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		go func() {
			e := exts[g%2]
			for i := 0; i < 50; i++ {
				res, err := e.Input(ctx, abi.InputEvent{Text: "!x"})
				if err == nil && res.Text != "X" {
					err = fmt.Errorf("got %q", res.Text)
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for g := 0; g < 8; g++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
