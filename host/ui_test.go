package host

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/piwasm/pi/abi"
)

// fakeUI answers questions from a script and records them.
type fakeUI struct {
	mu     sync.Mutex
	asked  []Question
	answer func(ctx context.Context, q Question) Answer
}

func (f *fakeUI) Ask(ctx context.Context, q Question) Answer {
	f.mu.Lock()
	f.asked = append(f.asked, q)
	f.mu.Unlock()
	if f.answer == nil {
		return Answer{Cancelled: true}
	}
	return f.answer(ctx, q)
}

func (f *fakeUI) questions() []Question {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Question(nil), f.asked...)
}

// uiRuntime is a runtime whose questions go to ui (sharing the test
// compilation cache).
func uiRuntime(t *testing.T, ui UI) *Runtime {
	t.Helper()
	rt, err := NewRuntime(context.Background(), Config{AgentDir: agentDir, ProjectRoot: projectRoot, UI: ui})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close(context.Background()) })
	return rt
}

func loadOn(t *testing.T, rt *Runtime, grants Grants, dir string) *Extension {
	t.Helper()
	exts, diags := rt.Load(context.Background(), []string{dir}, grants)
	for _, d := range diags {
		if d.Kind != DiagGrant {
			t.Fatalf("diagnostic: %s", d)
		}
	}
	if len(exts) != 1 {
		t.Fatalf("loaded %d extensions", len(exts))
	}
	return exts[0]
}

const greeterManifest = "name: greeter\nabi: 1\nhooks: [command]\ncommands:\n  - name: greet\nlimits:\n  timeoutMs: 300\n"

func TestUIQuestionsAreAnsweredByTheUI(t *testing.T) {
	ui := &fakeUI{answer: func(ctx context.Context, q Question) Answer {
		if dl, ok := ctx.Deadline(); !ok || time.Until(dl) > QuestionTimeout {
			t.Errorf("question without its own deadline: %v %v", dl, ok)
		}
		switch q.Kind {
		case AskSelect:
			// The person takes longer than the guest's whole deadline
			// (300 ms): the call's clock is paused meanwhile.
			time.Sleep(500 * time.Millisecond)
			return Answer{Value: "casual"}
		case AskInput:
			return Answer{Value: "Ada"}
		case AskConfirm:
			return Answer{Confirmed: true}
		}
		return Answer{}
	}}
	e := loadOn(t, uiRuntime(t, ui), nil, pkg(t, "greeter", greeterManifest))
	res, err := e.Command(context.Background(), abi.CommandEvent{Name: "greet"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Send != "Write a short casual greeting for Ada." {
		t.Fatalf("result %+v", res)
	}
	var kinds []string
	for _, q := range ui.questions() {
		if q.Extension != "greeter" {
			t.Errorf("question from %q", q.Extension)
		}
		kinds = append(kinds, q.Kind+":"+q.Title+q.Message)
	}
	want := "select:Which tone? input:Whom to greet? confirm:Send the greeting request?A casual greeting for Ada notify:sending a casual greeting for Ada"
	if got := strings.Join(kinds, " "); got != want {
		t.Fatalf("questions\n got %s\nwant %s", got, want)
	}
	if q := ui.questions()[0]; strings.Join(q.Options, ",") != "formal,casual" {
		t.Fatalf("options %v", q.Options)
	}
	if _, pure := (handler{e: e}).MemoIdentity(); pure {
		t.Fatal("an extension that asks the person is memoised")
	}
}

func TestUIDefaultAnswers(t *testing.T) {
	for _, tc := range []struct {
		name string
		ui   UI
	}{
		{"no UI", nil},
		{"cancelled", &fakeUI{}},
		{"not an option", &fakeUI{answer: func(context.Context, Question) Answer { return Answer{Value: "rude"} }}},
		{"question deadline", &fakeUI{answer: func(ctx context.Context, _ Question) Answer {
			<-ctx.Done() // never answers; ends with the (shortened) deadline
			return Answer{Value: "casual"}
		}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rt := uiRuntime(t, tc.ui)
			e := loadOn(t, rt, nil, pkg(t, "greeter", greeterManifest))
			ctx := context.Background()
			if tc.name == "question deadline" {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, 200*time.Millisecond) // the session's context
				defer cancel()
			}
			res, err := e.Command(ctx, abi.CommandEvent{Name: "greet"})
			if tc.name == "question deadline" {
				// The session ended while the question was open: the
				// question ended with it (the default answer), and the call
				// either finished with that answer or was canceled with
				// its session.
				if dl, _ := ctx.Deadline(); time.Now().Sub(dl) > 5*time.Second {
					t.Fatal("the question outlived its session")
				}
				if err != nil {
					// The session's context ended by its deadline, which
					// the call reports as its own (as before questions).
					if ce := (*CallError)(nil); !errors.As(err, &ce) || ce.Cause != CauseTimeout && ce.Cause != CauseCanceled {
						t.Fatalf("want the call stopped with its session, got %v", err)
					}
					return
				}
			}
			if err != nil || res.Show != "greet: no tone chosen, nothing sent" || res.Send != "" {
				t.Fatalf("%+v %v", res, err)
			}
		})
	}
}

func TestUIFloodIsCappedAndStoppedByTheDeadline(t *testing.T) {
	ui := &fakeUI{answer: func(context.Context, Question) Answer { return Answer{Confirmed: true} }}
	rt := uiRuntime(t, ui)
	m := strings.Replace(hostileManifest, "timeoutMs: 5000", "timeoutMs: 500", 1)
	e := loadOn(t, rt, Grants{"hostile": {Files: []string{"allowed.txt", "ok/*.txt"}}}, pkg(t, "hostile", m))
	_, err := e.BeforeAgentStart(context.Background(), abi.BeforeAgentStartEvent{Input: "ui-flood"}, nil)
	callErr(t, err, "hostile", CauseTimeout)
	if n := len(ui.questions()); n != abi.MaxUIQuestions {
		t.Fatalf("%d questions reached the person, want %d", n, abi.MaxUIQuestions)
	}
}

func TestUIQuestionsAreEscaped(t *testing.T) {
	for _, tc := range []struct {
		kind, req string
		ok        bool
		title     string
		options   string
	}{
		{AskConfirm, `{"title":"\u001b[2Jwipe?"}`, true, `\x1b[2Jwipe?`, ""},
		{AskSelect, `{"title":"t","options":["a\u202eb","c"]}`, true, "t", `a\u202eb,c`},
		{AskSelect, `{"title":"t"}`, false, "", ""},
		{AskSelect, `{"title":"t","options":["a","a"]}`, false, "", ""},
		{AskConfirm, `{"message":"no title"}`, false, "", ""},
		{AskNotify, `{"message":"m","level":"shout"}`, false, "", ""},
		{AskNotify, `{"message":"m"}`, true, "", ""},
		{AskInput, `not json`, false, "", ""},
	} {
		q, _, ok := parseQuestion(tc.kind, tc.req)
		if ok != tc.ok || ok && (q.Title != tc.title || strings.Join(q.Options, ",") != tc.options) {
			t.Errorf("%s %s: ok %v title %q options %q", tc.kind, tc.req, ok, q.Title, q.Options)
		}
	}
}

func TestCallDeadlinePauses(t *testing.T) {
	d := newCallDeadline(context.Background(), 50*time.Millisecond)
	defer d.cancel()
	d.pause()
	select {
	case <-d.Done():
		t.Fatal("deadline passed while paused")
	case <-time.After(100 * time.Millisecond):
	}
	d.resume()
	<-d.Done()
	if d.Err() != context.DeadlineExceeded {
		t.Fatalf("err %v", d.Err())
	}
}

// Print mode: dialogs get their default answers, notifications go to
// stderr escaped.
func TestDefaultUI(t *testing.T) {
	var b strings.Builder
	d := &DefaultUI{W: &b}
	q, _, _ := parseQuestion(AskNotify, `{"message":"done\u001b]0;pwned\u0007","level":"warning"}`)
	q.Extension = "x"
	if a := d.Ask(context.Background(), q); !a.Cancelled {
		t.Fatalf("notify answer %+v", a)
	}
	if got := b.String(); got != `[x] warning: done\x1b]0;pwned\a`+"\n" && got != `[x] warning: done\x1b]0;pwned\x07`+"\n" {
		t.Fatalf("stderr %q", got)
	}
	for _, kind := range []string{AskSelect, AskConfirm, AskInput} {
		if a := d.Ask(context.Background(), Question{Kind: kind, Title: "t", Options: []string{"a"}}); !a.Cancelled || a.Confirmed || a.Value != "" {
			t.Fatalf("%s: %+v", kind, a)
		}
	}
}

// A guest of a stock Extism PDK asks through the block functions.
func TestUIBlockFunctions(t *testing.T) {
	for _, tc := range []struct {
		ui   UI
		want string
	}{
		{&fakeUI{answer: func(_ context.Context, q Question) Answer { return Answer{Value: q.Options[1]} }}, "chose right"},
		{nil, "no answer (-1)"},
	} {
		rt := uiRuntime(t, tc.ui)
		m := strings.Replace(hostileManifest, "mode: ok", "mode: ui-block", 1)
		e := loadOn(t, rt, Grants{"hostile": {Files: []string{"allowed.txt", "ok/*.txt"}}}, pkg(t, "hostile", m))
		res, err := e.BeforeAgentStart(context.Background(), abi.BeforeAgentStartEvent{}, nil)
		if err != nil || len(res.Ops) != 1 || res.Ops[0].Text != tc.want {
			t.Fatalf("want %q, got %+v %v", tc.want, res, err)
		}
	}
}

// TestParseQuestionStatusAndWidget: the fire-and-forget requests are
// checked as the dialogs are: a widget's placement is one of the two the
// established harness knows and its lines are capped; texts are escaped;
// an editor needs a title.
func TestParseQuestionStatusAndWidget(t *testing.T) {
	for _, c := range []struct {
		kind, req string
		ok        bool
	}{
		{AskStatus, `{"key":"k","text":"busy"}`, true},
		{AskStatus, `{}`, true}, // the main entry, removed
		{AskWidget, `{"lines":["a","b"],"placement":"belowEditor"}`, true},
		{AskWidget, `{"lines":["a"],"placement":"sideways"}`, false},
		{AskWidget, `{"lines":[` + strings.Repeat(`"x",`, maxUIOptions) + `"x"]}`, false},
		{AskEditor, `{"prefill":"x"}`, false},
		{AskEditor, `{"title":"t","prefill":"a\nb"}`, true},
		{AskTitle, `{"title":""}`, true},
		{AskEditorText, `{"text":"draft"}`, true},
	} {
		if _, _, ok := parseQuestion(c.kind, c.req); ok != c.ok {
			t.Errorf("%s %s: ok %v, want %v", c.kind, c.req, ok, c.ok)
		}
	}
	q, _, _ := parseQuestion(AskWidget, `{"key":"k\u001b[2J","lines":["x\u001b[31m"]}`)
	if strings.ContainsRune(q.Title+strings.Join(q.Lines, ""), 0x1b) {
		t.Errorf("escape sequences reach the screen: %q %q", q.Title, q.Lines)
	}
	if q, _, _ := parseQuestion(AskEditor, `{"title":"t","prefill":"a\nb"}`); q.Prefill != "a\nb" {
		t.Errorf("the prefill lost its line break: %q", q.Prefill)
	}
}

// Hostile case (issue 32): a flood of dialogs and notifications spread
// over many calls (a hook that notifies on every event), each call within
// its own cap. Across calls an extension shows at most uiBudgetMax a
// minute; the rest take the default answer, and the person is told once.
func TestUIFloodAcrossCallsIsBounded(t *testing.T) {
	ui := &fakeUI{answer: func(context.Context, Question) Answer { return Answer{Confirmed: true} }}
	rt := uiRuntime(t, ui)
	m := strings.Replace(hostileManifest, "timeoutMs: 5000", "timeoutMs: 300", 1)
	e := loadOn(t, rt, Grants{"hostile": {Files: []string{"allowed.txt", "ok/*.txt"}}}, pkg(t, "hostile", m))
	for range 4 {
		_, err := e.BeforeAgentStart(context.Background(), abi.BeforeAgentStartEvent{Input: "ui-flood"}, nil)
		callErr(t, err, "hostile", CauseTimeout)
	}
	qs := ui.questions()
	if len(qs) != uiBudgetMax+1 {
		t.Fatalf("%d questions reached the person, want %d and one notice", len(qs), uiBudgetMax)
	}
	last := qs[len(qs)-1]
	if last.Kind != AskNotify || last.Extension != "hostile" || last.Level != "warning" || !strings.Contains(last.Message, "asks too often") {
		t.Fatalf("the person was not told: %+v", last)
	}
}

func TestUIBudget(t *testing.T) {
	var b uiBudget
	t0 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range uiBudgetMax {
		if ok, tell := b.allow(t0.Add(time.Duration(i) * time.Second)); !ok || tell {
			t.Fatalf("question %d refused", i)
		}
	}
	at := t0.Add(uiBudgetMax * time.Second)
	if ok, tell := b.allow(at); ok || !tell {
		t.Fatalf("over the budget: ok %v tell %v", ok, tell)
	}
	if ok, tell := b.allow(at.Add(time.Second)); ok || tell {
		t.Fatalf("told twice: ok %v tell %v", ok, tell)
	}
	// A minute after the first, one slot is free again.
	if ok, _ := b.allow(t0.Add(uiBudgetWindow)); !ok {
		t.Fatal("the window did not move")
	}
	if ok, _ := b.allow(t0.Add(uiBudgetWindow)); ok {
		t.Fatal("two slots for one")
	}
}
