package hooks

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/core/prompt"
)

// fake is an in-process handler driven by functions, standing in for a WASM
// extension.
type fake struct {
	name     string
	policy   string
	hooks    []string
	commands []abi.CommandInfo
	start    func(abi.BeforeAgentStartEvent, Fetcher) (abi.BeforeAgentStartResult, error)
	assemble func(abi.AssembleEvent, Fetcher) (abi.AssembleResult, error)
	input    func(abi.InputEvent) (abi.InputResult, error)
	command  func(abi.CommandEvent) (abi.CommandResult, error)
}

func (f *fake) Name() string { return f.name }
func (f *fake) Handles(h string) bool {
	for _, x := range f.hooks {
		if x == h {
			return true
		}
	}
	return false
}
func (f *fake) FailurePolicy() string {
	if f.policy == "" {
		return PolicySkip
	}
	return f.policy
}
func (f *fake) Commands() []abi.CommandInfo { return f.commands }
func (f *fake) BeforeAgentStart(_ context.Context, ev abi.BeforeAgentStartEvent, fe Fetcher) (abi.BeforeAgentStartResult, error) {
	return f.start(ev, fe)
}
func (f *fake) Assemble(_ context.Context, ev abi.AssembleEvent, fe Fetcher) (abi.AssembleResult, error) {
	return f.assemble(ev, fe)
}
func (f *fake) Input(_ context.Context, ev abi.InputEvent, _ Fetcher) (abi.InputResult, error) {
	return f.input(ev)
}
func (f *fake) Command(_ context.Context, ev abi.CommandEvent, _ Fetcher) (abi.CommandResult, error) {
	return f.command(ev)
}

func ptr[T any](v T) *T { return &v }

func render(t *testing.T, o prompt.Options) prompt.Rendered {
	t.Helper()
	a, err := prompt.Build(o)
	if err != nil {
		t.Fatal(err)
	}
	r, err := prompt.Render(a)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestBeforeAgentStartChain(t *testing.T) {
	base := prompt.Options{Cwd: "/p", ContextFiles: []prompt.ContextFile{{Path: "/p/AGENTS.md", Content: "be nice"}}}
	first := &fake{name: "first", hooks: []string{abi.HookBeforeAgentStart},
		start: func(ev abi.BeforeAgentStartEvent, fe Fetcher) (abi.BeforeAgentStartResult, error) {
			if got, ok := fe(abi.KeyContextPrefix + "/p/AGENTS.md"); !ok || string(got) != "be nice" {
				t.Errorf("fetch context: %q %v", got, ok)
			}
			if in, ok := fe(abi.KeyInput); !ok || string(in) != "hi" || ev.Input != "" {
				t.Errorf("input must be served lazily: inline %q, fetched %q", ev.Input, in)
			}
			return abi.BeforeAgentStartResult{
				Ops:         []abi.Op{{Op: abi.OpSetSection, Name: "team", Text: "<team>\nT\n</team>", Order: ptr(250.0)}},
				Message:     "hello from first",
				ForcePrompt: ptr("forced by first"),
			}, nil
		}}
	second := &fake{name: "second", hooks: []string{abi.HookBeforeAgentStart},
		start: func(ev abi.BeforeAgentStartEvent, _ Fetcher) (abi.BeforeAgentStartResult, error) {
			found := false
			for _, s := range ev.Options.Sections {
				found = found || (s.Name == "team" && s.Source == "extension:first")
			}
			if !found {
				t.Errorf("second did not see first's section: %+v", ev.Options.Sections)
			}
			// first forced the prompt: as in the established harness, the
			// next handler's systemPrompt is the forced text.
			if ev.SystemPrompt != "forced by first" {
				t.Errorf("second saw the prompt %.80q, want first's forced prompt", ev.SystemPrompt)
			}
			return abi.BeforeAgentStartResult{
				Ops:         []abi.Op{{Op: abi.OpAddGuideline, Text: "Mind the policy."}, {Op: abi.OpRemoveSection, Name: "docs"}},
				ForcePrompt: ptr("forced by second"),
			}, nil
		}}
	broken := &fake{name: "broken", hooks: []string{abi.HookBeforeAgentStart},
		start: func(abi.BeforeAgentStartEvent, Fetcher) (abi.BeforeAgentStartResult, error) {
			return abi.BeforeAgentStartResult{Ops: []abi.Op{{Op: abi.OpSetSection, Name: "ok", Text: "x"}, {Op: abi.OpSetSection, Name: "Bad Name", Text: "x"}}}, nil
		}}
	d := New([]Handler{first, broken, second})
	res, err := d.BeforeAgentStart(context.Background(), "hi", base)
	if err != nil {
		t.Fatal(err)
	}
	r := render(t, res.Options)
	var names []string
	for _, s := range r.Sections {
		names = append(names, s.Name+"@"+s.Source)
	}
	want := "preamble@builtin,tools@builtin,rules@builtin,team@extension:first,project_context@builtin,cwd@builtin"
	if strings.Join(names, ",") != want {
		t.Fatalf("sections\n got %s\nwant %s", strings.Join(names, ","), want)
	}
	if !strings.Contains(r.Text, "Mind the policy.") {
		t.Error("guideline missing")
	}
	if strings.Contains(r.Text, "<ok>") || strings.Contains(r.Text, "\nx\n") {
		t.Error("a result with an invalid op was partly applied")
	}
	if res.Forced == nil || res.Forced.Text != "forced by second" || res.Forced.Extension != "second" {
		t.Errorf("last forced prompt must win: %+v", res.Forced)
	}
	if len(res.Messages) != 1 || res.Messages[0].Text != "hello from first" {
		t.Errorf("messages %+v", res.Messages)
	}
	if diags := d.Diagnostics(); len(diags) != 1 || diags[0].Extension != "broken" {
		t.Errorf("diagnostics %+v", diags)
	}
}

func TestFailurePolicies(t *testing.T) {
	boom := errors.New("trap: unreachable")
	mk := func(policy string) *fake {
		return &fake{name: "guard", policy: policy, hooks: []string{abi.HookBeforeAgentStart, abi.HookAssemble},
			start: func(abi.BeforeAgentStartEvent, Fetcher) (abi.BeforeAgentStartResult, error) {
				return abi.BeforeAgentStartResult{}, boom
			},
			assemble: func(abi.AssembleEvent, Fetcher) (abi.AssembleResult, error) { return abi.AssembleResult{}, boom },
		}
	}
	base := prompt.Options{Cwd: "/p"}
	d := New([]Handler{mk(PolicySkip)})
	res, err := d.BeforeAgentStart(context.Background(), "", base)
	if err != nil {
		t.Fatal(err)
	}
	if render(t, res.Options).Text != render(t, base).Text {
		t.Error("skip changed the prompt")
	}
	a, _ := prompt.Build(base)
	out, err := d.Assemble(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	r1, _ := prompt.Render(out)
	if r1.Text != render(t, base).Text {
		t.Error("skipped assemble changed the prompt")
	}
	if len(d.Diagnostics()) != 2 || !strings.Contains(d.Diagnostics()[0].Message, "guard") {
		t.Errorf("%+v", d.Diagnostics())
	}

	d = New([]Handler{mk(PolicyAbort)})
	_, err = d.BeforeAgentStart(context.Background(), "", base)
	var ae *AbortError
	if !errors.As(err, &ae) || ae.Extension != "guard" || !errors.Is(err, boom) {
		t.Fatalf("want abort naming guard, got %v", err)
	}
	_, err = d.Assemble(context.Background(), a)
	if !errors.As(err, &ae) || ae.Hook != abi.HookAssemble {
		t.Fatalf("want abort in assemble, got %v", err)
	}
}

func TestAssembleWaterfallPolicyGuard(t *testing.T) {
	policy := "<policy>\nNo secrets in output.\n</policy>"
	remover := &fake{name: "remover", hooks: []string{abi.HookAssemble},
		assemble: func(ev abi.AssembleEvent, _ Fetcher) (abi.AssembleResult, error) {
			return abi.AssembleResult{Ops: []abi.Op{{Op: abi.OpRemoveSection, Name: "policy"}, {Op: abi.OpSetVariable, Name: "who", Value: ptr("me")}}}, nil
		}}
	guard := &fake{name: "guard", policy: PolicyAbort, hooks: []string{abi.HookAssemble},
		assemble: func(ev abi.AssembleEvent, _ Fetcher) (abi.AssembleResult, error) {
			for _, s := range ev.Sections {
				if s.Name == "policy" && s.Text == policy {
					return abi.AssembleResult{}, nil
				}
			}
			return abi.AssembleResult{Ops: []abi.Op{{Op: abi.OpSetSection, Name: "policy", Text: policy, Order: ptr(150.0)}}}, nil
		}}
	o := prompt.Options{Cwd: "/p", Sections: []prompt.SectionSpec{{Name: "policy", Text: policy, Order: ptr(150.0), Source: "extension:guard"}}}
	a, err := prompt.Build(o)
	if err != nil {
		t.Fatal(err)
	}
	d := New([]Handler{remover, guard})
	out, err := d.Assemble(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	s, ok := out.Section("policy")
	if !ok || s.Text != policy || s.Source != "extension:guard" || s.Order != 150 {
		t.Fatalf("policy not restored: %+v %v", s, ok)
	}
	if len(out.Variables) != 1 || *out.Variables[0].Value != "me" {
		t.Errorf("variables %+v", out.Variables)
	}
	if _, ok := a.Section("policy"); !ok {
		t.Error("waterfall mutated its input")
	}
}

func TestInputChainAndCommands(t *testing.T) {
	up := &fake{name: "up", hooks: []string{abi.HookInput}, input: func(ev abi.InputEvent) (abi.InputResult, error) {
		return abi.InputResult{Action: abi.ActionTransform, Text: strings.ToUpper(ev.Text)}, nil
	}}
	stop := &fake{name: "stop", hooks: []string{abi.HookInput}, input: func(ev abi.InputEvent) (abi.InputResult, error) {
		if strings.HasPrefix(ev.Text, "!") {
			return abi.InputResult{Action: abi.ActionHandled, Text: "done: " + ev.Text}, nil
		}
		return abi.InputResult{}, nil
	}}
	never := &fake{name: "never", hooks: []string{abi.HookInput}, input: func(ev abi.InputEvent) (abi.InputResult, error) {
		if strings.HasPrefix(ev.Text, "!") {
			t.Error("handled input reached a later handler")
		}
		return abi.InputResult{Action: "explode"}, nil
	}}
	d := New([]Handler{up, stop, never})
	out, err := d.Input(context.Background(), "!go")
	if err != nil || !out.Handled || out.Text != "done: !GO" {
		t.Fatalf("%+v %v", out, err)
	}
	out, err = d.Input(context.Background(), "plain")
	if err != nil || out.Handled || out.Text != "PLAIN" {
		t.Fatalf("%+v %v", out, err)
	}
	if len(d.Diagnostics()) != 1 || d.Diagnostics()[0].Extension != "never" {
		t.Errorf("bad action must be a skipped failure: %+v", d.Diagnostics())
	}

	run := func(tag string) func(abi.CommandEvent) (abi.CommandResult, error) {
		return func(ev abi.CommandEvent) (abi.CommandResult, error) {
			return abi.CommandResult{Send: tag + ":" + ev.Name + ":" + ev.Args}, nil
		}
	}
	a := &fake{name: "a", hooks: []string{abi.HookCommand}, commands: []abi.CommandInfo{{Name: "standup"}, {Name: "deploy"}}, command: run("a")}
	b := &fake{name: "b", hooks: []string{abi.HookCommand}, commands: []abi.CommandInfo{{Name: "standup"}}, command: run("b")}
	d = New([]Handler{a, b})
	var names []string
	for _, c := range d.Commands() {
		names = append(names, c.Name)
	}
	if strings.Join(names, ",") != "standup:1,deploy,standup:2" {
		t.Fatal(names)
	}
	c, args, ok := d.FindCommand("/standup:2   3 days")
	if !ok {
		t.Fatal("not found")
	}
	res, err := d.RunCommand(context.Background(), c, args, "/p")
	if err != nil || res.Send != "b:standup:3 days" {
		t.Fatalf("%+v %v", res, err)
	}
	if _, _, ok := d.FindCommand("/standup x"); ok {
		t.Error("ambiguous bare name must not resolve")
	}
}

// filtered is a fake that only wants inputs starting with "?".
type filtered struct{ *fake }

func (filtered) WantsInput(in string) bool { return strings.HasPrefix(in, "?") }

func TestInputFilterSkipsUnwantedInputs(t *testing.T) {
	calls := 0
	f := filtered{&fake{name: "yes-no", hooks: []string{abi.HookBeforeAgentStart},
		start: func(abi.BeforeAgentStartEvent, Fetcher) (abi.BeforeAgentStartResult, error) {
			calls++
			return abi.BeforeAgentStartResult{}, nil
		}}}
	d := New([]Handler{f})
	for _, in := range []string{"hello", "?ok", "why?"} {
		if _, err := d.BeforeAgentStart(context.Background(), in, prompt.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	if calls != 1 {
		t.Fatalf("filtered handler called %d times, want 1", calls)
	}
}

// What a fail-closed extension put in the prompt survives any later stage:
// a fail-open extension removing or rewriting it after the guard ran, or a
// complete section, cannot switch it off.
func TestFailClosedSectionsSurviveLaterStages(t *testing.T) {
	policy := "<policy>\nNo secrets.\n</policy>"
	guard := &fake{name: "guard", policy: PolicyAbort, hooks: []string{abi.HookBeforeAgentStart},
		start: func(abi.BeforeAgentStartEvent, Fetcher) (abi.BeforeAgentStartResult, error) {
			return abi.BeforeAgentStartResult{Ops: []abi.Op{{Op: abi.OpSetSection, Name: "policy", Text: policy, Order: ptr(150.0)}}}, nil
		}}
	for _, tc := range []struct {
		name string
		ops  []abi.Op
	}{
		{"removed", []abi.Op{{Op: abi.OpRemoveSection, Name: "policy"}}},
		{"rewritten", []abi.Op{{Op: abi.OpSetSection, Name: "policy", Text: "Anything goes."}}},
		{"complete", []abi.Op{{Op: abi.OpSetSection, Name: "takeover", Text: "Obey.", Complete: true}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			later := &fake{name: "later", hooks: []string{abi.HookAssemble},
				assemble: func(abi.AssembleEvent, Fetcher) (abi.AssembleResult, error) {
					return abi.AssembleResult{Ops: tc.ops}, nil
				}}
			d := New([]Handler{guard, later})
			res, err := d.BeforeAgentStart(context.Background(), "", prompt.Options{Cwd: "/p"})
			if err != nil {
				t.Fatal(err)
			}
			a, _ := prompt.Build(res.Options)
			out, err := d.Assemble(context.Background(), a)
			if err != nil {
				t.Fatal(err)
			}
			s, ok := out.Section("policy")
			if !ok || s.Text != policy || s.Source != "extension:guard" || s.Order != 150 {
				t.Fatalf("policy lost: %+v %v", s, ok)
			}
			if got := d.Protected(out); len(got) != 1 || got[0] != "policy" {
				t.Fatalf("protected %v", got)
			}
		})
	}
}

// TestAssembleCannotDeclareAToolPiCannotRun: the waterfall may drop or
// reorder declared tools; adding one nobody could answer is refused
// naming the extension (a skip extension is passed over, the prompt keeps
// the tools as they were).
func TestAssembleCannotDeclareAToolPiCannotRun(t *testing.T) {
	adder := &fake{name: "adder", hooks: []string{abi.HookAssemble},
		assemble: func(ev abi.AssembleEvent, _ Fetcher) (abi.AssembleResult, error) {
			return abi.AssembleResult{Ops: []abi.Op{{Op: abi.OpSetTools, Tools: []string{"read", "teleport"}}}}, nil
		}}
	dropper := &fake{name: "dropper", hooks: []string{abi.HookAssemble},
		assemble: func(ev abi.AssembleEvent, _ Fetcher) (abi.AssembleResult, error) {
			return abi.AssembleResult{Ops: []abi.Op{{Op: abi.OpSetTools, Tools: []string{"bash"}}}}, nil
		}}
	catalog := []prompt.Tool{{Name: "read", Parameters: []byte(`{}`)}, {Name: "bash", Parameters: []byte(`{}`)}}
	a, err := prompt.Build(prompt.Options{Cwd: "/p", Tools: []string{"read", "bash"}, Catalog: catalog})
	if err != nil {
		t.Fatal(err)
	}
	d := New([]Handler{adder})
	out, err := d.Assemble(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Tools) != 2 || out.Tools[0].Name != "read" || out.Tools[1].Name != "bash" {
		t.Fatalf("tools after a refused declaration: %+v", out.Tools)
	}
	diags := fmt.Sprint(d.Diagnostics())
	if !strings.Contains(diags, "adder") || !strings.Contains(diags, "teleport") {
		t.Fatalf("diagnostic does not name the extension and the tool: %s", diags)
	}
	out, err = New([]Handler{dropper}).Assemble(context.Background(), a)
	if err != nil || len(out.Tools) != 1 || out.Tools[0].Name != "bash" {
		t.Fatalf("dropping a tool: %v %+v", err, out.Tools)
	}
}
