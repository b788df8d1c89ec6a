package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/piwasm/pi/core/prompt"
	"github.com/piwasm/pi/core/tool"
)

// Model streams the next assistant message. The caller builds the request
// from everything the loop has recorded so far (the loop hands it nothing:
// the transcript is the one source of a request). emit receives the
// message's pieces as they arrive; the first call to start (if any) carries
// the message's route fields. The returned message is final: StopReason is
// "stop", "toolUse", "length", "error" or "aborted". On error the message
// still holds what arrived and says why in ErrorMessage.
type Model interface {
	Stream(ctx context.Context, start func(partial prompt.Message), emit func(Delta)) (prompt.Message, error)
}

// Tools finds a tool by the name the model called.
type Tools interface {
	Get(name string) (tool.Tool, bool)
}

// Verdict is what a gate says about a call: Block with a Reason, or Args
// that replace the call's arguments (validated again), or nothing.
// Source names who decided ("permission:<rule>", "extension:<name>").
type Verdict struct {
	Block  bool
	Reason string
	Args   map[string]any
	Source string
}

// Hooks take part in every call: ToolCall may block it or replace its
// arguments (the first block wins), ToolResult may patch a result (chained
// in order), TurnEnd and AgentEnd observe. Permission rules and extension
// hooks are both Hooks. A hook that fails returns an error; whether that
// blocks the call is the hook's own policy, decided before it returns.
type Hooks interface {
	ToolCall(ctx context.Context, t tool.Tool, call tool.Call) (Verdict, error)
	ToolResult(ctx context.Context, t tool.Tool, call tool.Call, res tool.Result) (tool.Result, error)
	TurnEnd(ctx context.Context, assistant prompt.Message, results []prompt.Message)
	AgentEnd(ctx context.Context, messages []prompt.Message)
}

// Loop runs turns until the model stops calling tools.
//
// Record appends a message to the transcript; it is called for every
// message in the order the conversation has them, before the message's
// message_end event. Emit receives events (nil: none). Steer and FollowUp
// drain the queues of user messages: steering messages go in after the
// current tool batch, follow-ups when the agent would otherwise stop. Now
// stamps messages (nil: time.Now). MaxParallel caps concurrent tool calls
// (0: 8).
type Loop struct {
	Model       Model
	Tools       Tools
	Hooks       Hooks
	Record      func(prompt.Message) error
	Emit        func(Event)
	Steer       func() []prompt.Message
	FollowUp    func() []prompt.Message
	MaxParallel int
	Now         func() time.Time
	// WillRetry, when set, says whether a run that ended with err will be
	// tried again (after a compaction): agent_end says so.
	WillRetry func(err error, added []prompt.Message) bool
	// Announced are messages already recorded for this run (the system
	// message with the prompt's changes): they are emitted first, as the
	// established harness does, and not recorded again.
	Announced []prompt.Message
}

// Errors a run can end with. Both are returned after every call made so
// far has a result and agent_end was emitted.
var (
	// ErrAborted: the context ended (Esc, Ctrl-C, SIGTERM).
	ErrAborted = errors.New("aborted")
	// ErrLength: the model hit its output-token limit; its calls were not run.
	ErrLength = errors.New("the reply was cut off at the output-token limit")
)

// ModelError is a run that ended because the model request failed.
type ModelError struct{ Err error }

func (e *ModelError) Error() string { return e.Err.Error() }
func (e *ModelError) Unwrap() error { return e.Err }

// abortedText is the result every call gets when the run was aborted
// before or while it ran.
const abortedText = "Aborted: the run was stopped before this call finished."

func (l *Loop) now() int64 {
	if l.Now != nil {
		return l.Now().UnixMilli()
	}
	return time.Now().UnixMilli()
}

func (l *Loop) emit(e Event) {
	if l.Emit != nil {
		l.Emit(e)
	}
}

// Run sends prompts (user messages, already built) and loops. It returns
// the messages the run added, in order.
func (l *Loop) Run(ctx context.Context, prompts []prompt.Message) ([]prompt.Message, error) {
	r := &run{Loop: l, Announced: l.Announced}
	r.emit(Event{Type: AgentStart})
	err := r.loop(ctx, prompts)
	if l.Hooks != nil {
		l.Hooks.AgentEnd(context.WithoutCancel(ctx), r.added)
	}
	retry := err != nil && l.WillRetry != nil && l.WillRetry(err, r.added)
	r.emit(Event{Type: AgentEnd, Messages: r.added, WillRetry: retry})
	return r.added, err
}

type run struct {
	*Loop
	Announced []prompt.Message
	added     []prompt.Message
	// emitMu serialises events: tool calls run in parallel and report
	// updates and ends from their own goroutines, and consumers (a JSON
	// writer, the UI) should see one event at a time.
	emitMu sync.Mutex
}

func (r *run) emit(e Event) {
	r.emitMu.Lock()
	defer r.emitMu.Unlock()
	r.Loop.emit(e)
}

func (r *run) add(m prompt.Message) error {
	r.emit(Event{Type: MessageStart, Message: &m})
	if r.Record != nil {
		if err := r.Record(m); err != nil {
			return fmt.Errorf("record %s message: %w", m.Role, err)
		}
	}
	r.added = append(r.added, m)
	r.emit(Event{Type: MessageEnd, Message: &m})
	return nil
}

func (r *run) loop(ctx context.Context, pending []prompt.Message) error {
	for {
		r.emit(Event{Type: TurnStart})
		for _, m := range r.Announced {
			r.emit(Event{Type: MessageStart, Message: &m})
			r.added = append(r.added, m)
			r.emit(Event{Type: MessageEnd, Message: &m})
		}
		r.Announced = nil
		for _, m := range pending {
			if err := r.add(m); err != nil {
				return err
			}
		}
		pending = nil
		if ctx.Err() != nil {
			r.emit(Event{Type: TurnEnd})
			return ErrAborted
		}
		msg, err := r.stream(ctx)
		if rerr := r.recordAssistant(msg); rerr != nil {
			return rerr
		}
		switch {
		case err != nil || msg.StopReason == "error" || msg.StopReason == "aborted":
			r.emit(Event{Type: TurnEnd, Message: &msg})
			if ctx.Err() != nil || msg.StopReason == "aborted" {
				return ErrAborted
			}
			if err == nil {
				err = errors.New(msg.ErrorMessage)
			}
			return &ModelError{Err: err}
		case msg.StopReason == "length":
			// A message cut off mid-way may hold half a call: run none.
			r.emit(Event{Type: TurnEnd, Message: &msg})
			return ErrLength
		}
		calls := msg.ToolCalls()
		results, err := r.runCalls(ctx, calls)
		if err != nil {
			return err
		}
		if r.Hooks != nil {
			r.Hooks.TurnEnd(context.WithoutCancel(ctx), msg, results)
		}
		r.emit(Event{Type: TurnEnd, Message: &msg, ToolResults: results})
		if ctx.Err() != nil {
			return ErrAborted
		}
		if r.Steer != nil {
			pending = r.Steer()
		}
		if len(calls) > 0 || len(pending) > 0 {
			continue
		}
		if r.FollowUp != nil {
			pending = r.FollowUp()
		}
		if len(pending) == 0 {
			return nil
		}
	}
}

func (r *run) stream(ctx context.Context) (prompt.Message, error) {
	started := false
	var partial prompt.Message
	start := func(p prompt.Message) {
		if started {
			return
		}
		started = true
		partial = p
		partial.Role = "assistant"
		partial.StopReason = "pending"
		if partial.Content.Blocks == nil {
			partial.Content = prompt.Content{Blocks: []prompt.Block{}}
		}
		if partial.Usage == nil {
			// The established harness's message_start carries zero usage;
			// clients read message.usage without checking it is there.
			partial.Usage = &prompt.Usage{}
		}
		if partial.Timestamp == 0 {
			partial.Timestamp = r.now()
		}
		r.emit(Event{Type: MessageStart, Message: &partial})
	}
	var usage prompt.Usage
	msg, err := r.Model.Stream(ctx, start, func(d Delta) {
		start(prompt.Message{})
		r.emit(Event{Type: MessageUpdate, Delta: &d, Usage: &usage})
	})
	start(msg)
	msg.Role = "assistant"
	if msg.Content.Blocks == nil {
		msg.Content = prompt.Content{Blocks: []prompt.Block{}}
	}
	if msg.Timestamp == 0 {
		msg.Timestamp = r.now()
	}
	if err != nil && msg.StopReason != "aborted" {
		if ctx.Err() != nil {
			msg.StopReason = "aborted"
		} else {
			msg.StopReason = "error"
		}
		if msg.ErrorMessage == "" {
			msg.ErrorMessage = err.Error()
		}
	}
	if msg.StopReason == "" {
		msg.StopReason = "stop"
	}
	return msg, err
}

// recordAssistant records the final assistant message and ends it (its
// message_start was emitted when streaming began).
func (r *run) recordAssistant(m prompt.Message) error {
	if r.Record != nil {
		if err := r.Record(m); err != nil {
			return fmt.Errorf("record assistant message: %w", err)
		}
	}
	r.added = append(r.added, m)
	r.emit(Event{Type: MessageEnd, Message: &m})
	return nil
}

// prepared is one call on its way: the tool, its checked arguments, or the
// result it already has (unknown tool, invalid arguments, blocked).
type prepared struct {
	block  prompt.Block
	tool   tool.Tool
	call   tool.Call
	args   json.RawMessage
	result *tool.Result
	ran    bool
	dur    time.Duration
}

func (r *run) runCalls(ctx context.Context, calls []prompt.Block) ([]prompt.Message, error) {
	if len(calls) == 0 {
		return []prompt.Message{}, nil
	}
	preps := make([]*prepared, len(calls))
	for i, c := range calls {
		preps[i] = r.prepare(ctx, c)
	}
	r.execute(ctx, preps)
	results := make([]prompt.Message, 0, len(preps))
	for _, p := range preps {
		res := *p.result
		if res.Content == nil {
			res.Content = []tool.Part{}
		}
		isErr := res.IsError
		content := make([]prompt.Block, 0, len(res.Content))
		for _, part := range res.Content {
			content = append(content, prompt.Block{Type: part.Type, Text: part.Text, Data: part.Data, MimeType: part.MimeType})
		}
		m := prompt.Message{
			Role:       prompt.RoleToolResult,
			ToolCallID: p.block.ID,
			ToolName:   p.block.Name,
			Content:    prompt.Content{Blocks: content},
			Details:    res.Details,
			IsError:    &isErr,
			Timestamp:  r.now(),
		}
		if p.ran {
			// A call that ran records how long, as the established
			// harness's results do; one refused or skipped does not.
			ms := p.ms()
			m.DurationMs = &ms
		}
		if err := r.add(m); err != nil {
			return results, err
		}
		results = append(results, m)
	}
	return results, nil
}

// prepare finds the tool, checks the arguments and asks the hooks, in the
// order the model made the calls.
func (r *run) prepare(ctx context.Context, b prompt.Block) *prepared {
	p := &prepared{block: b, args: b.Arguments}
	if len(p.args) == 0 {
		p.args = json.RawMessage(`{}`)
	}
	r.emit(Event{Type: ToolExecutionStart, ToolCallID: b.ID, ToolName: b.Name, Args: p.args})
	fail := func(format string, a ...any) *prepared {
		res := tool.ErrorResult(format, a...)
		p.result = &res
		return p
	}
	if ctx.Err() != nil {
		return fail("%s", abortedText)
	}
	t, ok := r.Tools.Get(b.Name)
	if !ok {
		return fail("Tool %q is not available. Call one of the tools you were given.", b.Name)
	}
	p.tool = t
	if b.ArgumentsError != "" {
		// What the model sent did not parse: say that, not that the
		// empty object stood in for it lacks fields.
		return fail("Invalid arguments for tool %q: %s", b.Name, b.ArgumentsError)
	}
	args, err := t.Prepare(p.args)
	if err != nil {
		var ae *tool.ArgError
		if errors.As(err, &ae) {
			return fail("%s", err) // it names the tool already
		}
		return fail("Invalid arguments for tool %q: %v", b.Name, err)
	}
	p.call = tool.Call{ID: b.ID, Name: b.Name, Args: args}
	if r.Hooks == nil {
		return p
	}
	v, err := r.Hooks.ToolCall(ctx, t, p.call)
	if err != nil {
		return fail("Blocked: %v", err)
	}
	if v.Block {
		reason := v.Reason
		if reason == "" {
			reason = "a policy refused this call"
		}
		if v.Source != "" {
			return fail("Blocked by %s: %s", v.Source, reason)
		}
		return fail("Blocked: %s", reason)
	}
	if v.Args != nil {
		raw, err := json.Marshal(v.Args)
		if err != nil {
			return fail("Blocked: %s replaced the arguments with something that is not JSON: %v", v.Source, err)
		}
		args, err := t.Prepare(raw)
		if err != nil {
			return fail("Blocked: %s replaced the arguments with an invalid shape: %v", v.Source, err)
		}
		p.call.Args = args
	}
	return p
}

// execute runs the calls that have no result yet: all at once (capped)
// unless one of them is sequential, then one after another in order.
func (r *run) execute(ctx context.Context, preps []*prepared) {
	var todo []*prepared
	sequential := false
	for _, p := range preps {
		if p.result == nil {
			todo = append(todo, p)
			sequential = sequential || p.tool.Mode == tool.Sequential
		}
	}
	limit := r.MaxParallel
	if limit <= 0 {
		limit = 8
	}
	if sequential {
		limit = 1
	}
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for i, p := range todo {
		if limit == 1 {
			r.runOne(ctx, p)
			continue
		}
		sem <- struct{}{}
		if i == len(todo)-1 {
			// The last call runs here, alongside the others: a goroutine
			// of its own would only hand the work to another thread and
			// this one back (a turn's usual batch is one or two calls).
			r.runOne(ctx, p)
			<-sem
			continue
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			r.runOne(ctx, p)
		}()
	}
	wg.Wait()
	for _, p := range preps {
		if !p.ran {
			r.emit(Event{Type: ToolExecutionEnd, ToolCallID: p.block.ID, ToolName: p.block.Name, Result: p.result, IsError: true, DurationMs: -1})
		}
	}
}

// ms is how long the tool ran in whole milliseconds, rounded as the
// established harness rounds it.
func (p *prepared) ms() int64 {
	return max(0, p.dur.Round(time.Millisecond).Milliseconds())
}

func (r *run) runOne(ctx context.Context, p *prepared) {
	if ctx.Err() != nil {
		res := tool.ErrorResult("%s", abortedText)
		p.result = &res
		return
	}
	p.ran = true
	update := func(partial tool.Result) {
		r.emit(Event{Type: ToolExecutionUpdate, ToolCallID: p.block.ID, ToolName: p.block.Name, Args: p.args, Result: &partial})
	}
	started := time.Now()
	res, err := safeRun(ctx, p.tool, p.call, update)
	p.dur = time.Since(started)
	switch {
	case ctx.Err() != nil && (err != nil || !res.IsError):
		// The call may have finished normally just as the run was
		// stopped; only a result the tool cut short says "aborted".
		if err != nil {
			res = tool.ErrorResult("%s", abortedText)
		}
	case err != nil:
		res = tool.ErrorResult("%s failed: %v", p.block.Name, err)
	}
	if r.Hooks != nil {
		patched, herr := r.Hooks.ToolResult(context.WithoutCancel(ctx), p.tool, p.call, res)
		if herr != nil {
			res = tool.ErrorResult("The result of this call was withheld: %v", herr)
		} else {
			res = patched
		}
	}
	p.result = &res
	r.emit(Event{Type: ToolExecutionEnd, ToolCallID: p.block.ID, ToolName: p.block.Name, Result: p.result, IsError: res.IsError, DurationMs: p.ms()})
}

// safeRun runs a tool and turns a panic into an error: one broken tool
// must not take the session down.
func safeRun(ctx context.Context, t tool.Tool, c tool.Call, u tool.Update) (res tool.Result, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("the tool crashed: %v", v)
		}
	}()
	if t.Run == nil {
		return tool.Result{}, errors.New("the tool has no implementation")
	}
	return t.Run(ctx, c, u)
}
