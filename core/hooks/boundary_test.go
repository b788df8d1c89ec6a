package hooks

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/core/prompt"
)

// badSection sets an interpolated section naming a variable nobody sets.
func badSection(name, policy string) *fake {
	return &fake{name: name, policy: policy, hooks: []string{abi.HookBeforeAgentStart, abi.HookAssemble},
		start: func(abi.BeforeAgentStartEvent, Fetcher) (abi.BeforeAgentStartResult, error) {
			return abi.BeforeAgentStartResult{Ops: []abi.Op{{Op: abi.OpSetSection, Name: "greet", Text: "hi {{usr}}", Interpolate: true}}}, nil
		},
		assemble: func(abi.AssembleEvent, Fetcher) (abi.AssembleResult, error) {
			return abi.AssembleResult{Ops: []abi.Op{{Op: abi.OpSetSection, Name: "greet2", Text: "hi {{usr}}", Interpolate: true}}}, nil
		}}
}

// policy sets a section and fails the run if it cannot.
func policy(name string) *fake {
	return &fake{name: name, policy: PolicyAbort, hooks: []string{abi.HookBeforeAgentStart, abi.HookAssemble},
		start: func(abi.BeforeAgentStartEvent, Fetcher) (abi.BeforeAgentStartResult, error) {
			return abi.BeforeAgentStartResult{Ops: []abi.Op{{Op: abi.OpSetSection, Name: "policy", Text: "be safe"}}}, nil
		},
		assemble: func(abi.AssembleEvent, Fetcher) (abi.AssembleResult, error) { return abi.AssembleResult{}, nil }}
}

func run(t *testing.T, d *Dispatcher, opts prompt.Options) (prompt.Rendered, error) {
	t.Helper()
	res, err := d.BeforeAgentStart(context.Background(), "hi", opts)
	if err != nil {
		return prompt.Rendered{}, err
	}
	a, err := prompt.Build(res.Options)
	if err != nil {
		t.Fatal(err)
	}
	if a, err = d.Assemble(context.Background(), a); err != nil {
		return prompt.Rendered{}, err
	}
	return prompt.Render(a)
}

// Issue: a skip extension whose section named an unknown variable stopped
// every run, was not named, and (placed before an abort extension) made the
// policy abort. Its output is now checked at its own boundary.
func TestSkipExtensionCannotStopARun(t *testing.T) {
	d := New([]Handler{badSection("greeter", PolicySkip), policy("guard")})
	r, err := run(t, d, prompt.Options{Cwd: "/p"})
	if err != nil {
		t.Fatalf("the run stopped: %v", err)
	}
	if !strings.Contains(r.Text, "be safe") || strings.Contains(r.Text, "{{usr}}") {
		t.Fatalf("prompt:\n%s", r.Text)
	}
	diags := d.Diagnostics()
	if len(diags) != 2 {
		t.Fatalf("diagnostics: %+v", diags)
	}
	for i, hook := range []string{abi.HookBeforeAgentStart, abi.HookAssemble} {
		if diags[i].Extension != "greeter" || !strings.Contains(diags[i].Message, "failed in "+hook) || !strings.Contains(diags[i].Message, "usr") {
			t.Errorf("diagnostic %d does not name the extension and the cause: %+v", i, diags[i])
		}
	}
}

// An abort extension failing the same way aborts, naming itself.
func TestAbortExtensionWithBadSectionAborts(t *testing.T) {
	d := New([]Handler{badSection("strict", PolicyAbort)})
	_, err := run(t, d, prompt.Options{Cwd: "/p"})
	var ae *AbortError
	if !errors.As(err, &ae) || ae.Extension != "strict" || !errors.Is(err, ErrInvalidResult) {
		t.Fatalf("got %v", err)
	}
}

// A typo in the configuration is not blamed on the first extension.
func TestConfigurationErrorIsNotBlamedOnAnExtension(t *testing.T) {
	opts := prompt.Options{Cwd: "/p", Sections: []prompt.SectionSpec{{Name: "greet", Text: "hi {{usr}}", Interpolate: true, Source: "settings"}}}
	d := New([]Handler{policy("innocent")})
	_, err := run(t, d, opts)
	var ae *AbortError
	if err == nil || errors.As(err, &ae) || strings.Contains(err.Error(), "innocent") || !strings.Contains(err.Error(), "settings") {
		t.Fatalf("got %v", err)
	}
	if len(d.Diagnostics()) != 0 {
		t.Fatalf("an extension was blamed: %+v", d.Diagnostics())
	}
}

// Issue: a transient failure (a deadline on a loaded machine) removed a
// skip extension's sections for one turn and the model was told they no
// longer applied. Within a run, its last good result is kept, and the
// diagnostic says so.
func TestSkippedFailureKeepsLastGoodResult(t *testing.T) {
	fail := false
	team := &fake{name: "team", hooks: []string{abi.HookBeforeAgentStart, abi.HookAssemble},
		start: func(abi.BeforeAgentStartEvent, Fetcher) (abi.BeforeAgentStartResult, error) {
			if fail {
				return abi.BeforeAgentStartResult{}, errors.New("stopped after its deadline")
			}
			return abi.BeforeAgentStartResult{Ops: []abi.Op{{Op: abi.OpSetSection, Name: "team", Text: "team rules"}}}, nil
		},
		assemble: func(abi.AssembleEvent, Fetcher) (abi.AssembleResult, error) {
			if fail {
				return abi.AssembleResult{}, errors.New("stopped after its deadline")
			}
			return abi.AssembleResult{Ops: []abi.Op{{Op: abi.OpSetSection, Name: "late", Text: "late rules"}}}, nil
		}}
	d := New([]Handler{team})
	first, err := run(t, d, prompt.Options{Cwd: "/p"})
	if err != nil {
		t.Fatal(err)
	}
	fail = true
	second, err := run(t, d, prompt.Options{Cwd: "/p"})
	if err != nil {
		t.Fatal(err)
	}
	if second.Text != first.Text || !strings.Contains(second.Text, "team rules") || !strings.Contains(second.Text, "late rules") {
		t.Fatalf("the prompt changed after a transient failure:\n%s\n---\n%s", first.Text, second.Text)
	}
	diags := d.Diagnostics()
	if len(diags) != 2 || !strings.Contains(diags[0].Message, "last good result in this run is kept") || !strings.Contains(diags[1].Message, "failed in "+abi.HookAssemble) {
		t.Fatalf("diagnostics: %+v", diags)
	}
	// A new dispatcher (a new run) has nothing to keep: the failure skips.
	d2 := New([]Handler{team})
	third, err := run(t, d2, prompt.Options{Cwd: "/p"})
	if err != nil || strings.Contains(third.Text, "team rules") {
		t.Fatalf("%v\n%s", err, third.Text)
	}
}
