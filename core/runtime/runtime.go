package runtime

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/piwasm/pi/core/agent"
	"github.com/piwasm/pi/core/compact"
	"github.com/piwasm/pi/core/prompt"
	"github.com/piwasm/pi/core/provider"
	"github.com/piwasm/pi/core/session"
	"github.com/piwasm/pi/internal/stackreserve"
)

// Dispositions of a submitted line, with the established harness's names.
const (
	// Started: a run began with this line.
	Started = "started"
	// Queued: the agent was working; the line waits in a queue.
	Queued = "queued"
	// Handled: nothing goes to the model (an extension command or input
	// hook consumed the line, or a command only shows text).
	Handled = "handled"
)

// Queue delivery modes.
const (
	OneAtATime = "one-at-a-time"
	All        = "all"
)

// ErrBusy is returned for what needs an idle session while the agent works.
var ErrBusy = errors.New("the agent is working; steer, queue a follow-up or abort first")

// Runtime is one long-lived session. Its methods are safe to call from any
// goroutine; events reach subscribers in the order the run produced them.
type Runtime struct {
	base   context.Context
	runner *session.Runner

	mu                    sync.Mutex
	running               bool
	cancel                context.CancelFunc
	idle                  chan struct{}
	steer                 []queued
	follow                []queued
	steerMode, followMode string
	route                 *provider.Route // applied when the next run starts
	messages              []prompt.Message
	pendingBash           []prompt.Message // direct commands run while the agent worked, recorded when the next run starts
	last                  *session.Turn
	lastErr               error
	aborting              bool
	navigating            bool // a move in the session tree is writing its summary
	navCancel             context.CancelFunc
	compaction            compact.Settings
	compactionFor         func(provider, modelID string) compact.Settings
	compactHook           CompactionHook
	summaryRetry          compact.Retry
	sessionHook           SessionHook
	// overflowTried: this prompt's one compact-and-retry is spent.
	overflowTried bool
	compacting    bool

	subMu   sync.Mutex
	subs    map[int]func(agent.Event)
	nextSub int
}

type queued struct {
	in     session.Funneled
	images []prompt.Block
	// typed is what the person typed (what a client restores on abort).
	typed string
}

// New wraps runner. ctx bounds every run (cancel it to stop the session
// for good). The runtime takes over runner.Emit, Steer and FollowUp.
func New(ctx context.Context, runner *session.Runner) *Runtime {
	rt := &Runtime{base: ctx, runner: runner, steerMode: OneAtATime, followMode: OneAtATime, subs: map[int]func(agent.Event){}, compaction: compact.Defaults}
	rt.idle = make(chan struct{})
	close(rt.idle)
	runner.Emit = rt.emit
	runner.Steer = func() []prompt.Message { return rt.drain(&rt.steer, rt.steerMode) }
	runner.FollowUp = func() []prompt.Message { return rt.drain(&rt.follow, rt.followMode) }
	runner.WillRetry = rt.recoverable
	runner.BetweenTurns = func(ctx context.Context, _ *session.Transcript) {
		if rt.overThreshold() {
			rt.compact(ctx, ReasonThreshold, "", false)
		}
	}
	rt.messages = branchMessages(runner.Transcript)
	return rt
}

// Subscribe adds fn to the event stream and returns a function that
// removes it. fn is called from the run's goroutines, one event at a time,
// sometimes with the runtime's lock held: it must not call back into the
// runtime, and should hand the event on quickly (to a channel or a writer).
func (rt *Runtime) Subscribe(fn func(agent.Event)) (unsubscribe func()) {
	rt.subMu.Lock()
	id := rt.nextSub
	rt.nextSub++
	rt.subs[id] = fn
	rt.subMu.Unlock()
	return func() {
		rt.subMu.Lock()
		delete(rt.subs, id)
		rt.subMu.Unlock()
	}
}

// Publish passes an event that did not come from the loop (a provider's
// retry notice, a direct command's output) to every subscriber.
func (rt *Runtime) Publish(e agent.Event) { rt.emit(e) }

// emit passes an event to every subscriber. Tools run in parallel and
// report from their own goroutines; the lock keeps events whole and in
// order for subscribers that write them out.
func (rt *Runtime) emit(e agent.Event) {
	if e.Type == agent.MessageEnd && e.Message != nil && e.Message.Role != "system" {
		rt.mu.Lock()
		rt.messages = append(rt.messages, *e.Message)
		rt.mu.Unlock()
	}
	rt.subMu.Lock()
	defer rt.subMu.Unlock()
	for _, fn := range rt.subs {
		fn(e)
	}
}

// Funnel runs a line through the input funnel now: an extension command
// runs at once, templates and skills expand.
func (rt *Runtime) Funnel(text string) (session.Funneled, error) {
	return session.Funnel(rt.base, rt.runner.Dispatcher, rt.runner.Loaded, text, rt.runner.NoExpand)
}

// Behavior says what Prompt does with a line while the agent works.
type Behavior string

// Behaviors.
const (
	// Refuse: a prompt while the agent works is an error (ErrBusy).
	Refuse Behavior = ""
	// Steer: deliver it after the current tool batch.
	Steer Behavior = "steer"
	// FollowUp: deliver it when the agent would otherwise stop.
	FollowUp Behavior = "followUp"
)

// Result is what became of a submitted line.
type Result struct {
	Disposition string
	// Input is what the funnel made of the line (Show is text for the
	// user when it was handled).
	Input session.Funneled
}

// Prompt submits a line. When the session is idle a run starts in the
// background; while it works, b decides whether the line steers, follows
// up, or is refused.
func (rt *Runtime) Prompt(in session.Input, b Behavior) (Result, error) {
	return rt.PromptThen(in, b, nil)
}

// PromptThen is Prompt, with started called when the line starts a run,
// before the run's first event: a front end that answers the prompt
// (RPC's response) does so ahead of the events, as the established
// harness answers once the prompt passes its preflight.
func (rt *Runtime) PromptThen(in session.Input, b Behavior, started func(Result)) (Result, error) {
	f, err := rt.Funnel(in.Text)
	if err != nil {
		return Result{}, err
	}
	if !f.Send {
		return Result{Disposition: Handled, Input: f}, nil
	}
	q := queued{in: f, images: in.Images, typed: in.Text}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.navigating {
		return Result{}, ErrBusy
	}
	if rt.running {
		switch b {
		case Steer:
			rt.steer = append(rt.steer, q)
		case FollowUp:
			rt.follow = append(rt.follow, q)
		default:
			return Result{}, ErrBusy
		}
		rt.queueChangedLocked()
		return Result{Disposition: Queued, Input: f}, nil
	}
	res := Result{Disposition: Started, Input: f}
	if started != nil {
		started(res)
	}
	rt.startLocked(q)
	return res, nil
}

// Steer queues a steering message (or starts a run when idle).
func (rt *Runtime) Steer(in session.Input) (Result, error) { return rt.Prompt(in, Steer) }

// FollowUp queues a follow-up (or starts a run when idle).
func (rt *Runtime) FollowUp(in session.Input) (Result, error) { return rt.Prompt(in, FollowUp) }

// Run submits a line and waits for the session to settle: print mode.
func (rt *Runtime) Run(in session.Input) (*session.Turn, error) {
	res, err := rt.Prompt(in, Refuse)
	if err != nil {
		return nil, err
	}
	if res.Disposition == Handled {
		return &session.Turn{Input: res.Input}, nil
	}
	return rt.Wait()
}

// DryRun builds the request a line would send, sending and recording
// nothing.
func (rt *Runtime) DryRun(in session.Input) (*session.Turn, error) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.running {
		return nil, ErrBusy
	}
	rt.applyRouteLocked()
	return rt.runner.Turn(rt.base, in, true)
}

func (rt *Runtime) applyRouteLocked() {
	if rt.route != nil {
		rt.setRouteLocked(*rt.route)
		rt.route = nil
	}
}

// setRouteLocked puts r in use, with the compaction settings for its model
// (a model's compaction.modelOverrides entry; the context window comes with
// the route). Whether automatic compaction is on stays as it is: it is the
// session's, not the model's.
func (rt *Runtime) setRouteLocked(r provider.Route) {
	changed := r.Provider != rt.runner.Route.Provider || r.ModelID != rt.runner.Route.ModelID
	rt.runner.Route = r
	if changed && rt.compactionFor != nil {
		s := rt.compactionFor(r.Provider, r.ModelID)
		s.Enabled = rt.compaction.Enabled
		rt.compaction = s
	}
}

func (rt *Runtime) startLocked(q queued) {
	if len(rt.pendingBash) > 0 {
		if err := rt.appendBashLocked(rt.pendingBash...); err != nil {
			// The session file cannot take them: the model still gets
			// the commands, in front of the line, as the record would
			// have put them.
			var notes []string
			for _, m := range rt.pendingBash {
				if !m.ExcludeFromContext {
					notes = append(notes, session.BashText(m))
				}
			}
			if len(notes) > 0 {
				q.in.Text = strings.Join(notes, "\n\n") + "\n\n" + q.in.Text
			}
		}
		rt.pendingBash = nil
	}
	rt.applyRouteLocked()
	ctx, cancel := context.WithCancel(rt.base)
	rt.running, rt.cancel, rt.idle = true, cancel, make(chan struct{})
	rt.last, rt.lastErr, rt.aborting = nil, nil, false
	go rt.run(ctx, q)
}

// run works until nothing is left: the line, then whatever a run left in
// the queues (a steering message typed as the last turn ended).
func (rt *Runtime) run(ctx context.Context, q queued) {
	// A turn's calls go deep (the provider's stream, the session's JSON
	// encoding); one copy of this still-shallow stack replaces four of a
	// deep one (internal/stackreserve).
	stackreserve.To64K()
	rt.mu.Lock()
	rt.overflowTried = false
	rt.mu.Unlock()
	if rt.overThreshold() {
		rt.compact(ctx, ReasonThreshold, "", false)
	}
	for {
		turn, err := rt.runner.TurnFunneled(ctx, q.in, q.images, false)
		if turn != nil && err != nil && ctx.Err() == nil && rt.recoverable(err, turn.Messages) {
			// One compact-and-retry: the failed attempt leaves the
			// context, the older part is summarised, and the run goes on
			// from the user's message (already in the context).
			rt.mu.Lock()
			rt.overflowTried = true
			rt.mu.Unlock()
			if omitFailed(rt.runner.Transcript) == nil {
				if _, cerr := rt.compact(ctx, ReasonOverflow, "", true); cerr == nil {
					if again, rerr := rt.runner.Continue(ctx); again != nil {
						again.Input = turn.Input
						turn, err = again, rerr
					}
				}
			}
		}
		rt.mu.Lock()
		if turn != nil {
			rt.last = turn
		}
		rt.lastErr = err
		next, ok := rt.popLocked()
		if ok && err == nil && ctx.Err() == nil {
			rt.queueChangedLocked()
			rt.mu.Unlock()
			q = next
			continue
		}
		if ok {
			// Not run after all: put it back.
			rt.steer = append([]queued{next}, rt.steer...)
		}
		aborted := errors.Is(err, agent.ErrAborted) || rt.aborting
		rt.mu.Unlock()
		// After the run, as the established harness does: compact when the
		// context grew past the threshold. It happens before agent_settled
		// (that harness reports it just after), so a client that sends
		// the next prompt on agent_settled finds the session idle.
		if !aborted && ctx.Err() == nil && rt.overThreshold() {
			rt.compact(ctx, ReasonThreshold, "", false)
		}
		rt.mu.Lock()
		rt.cancel()
		rt.running = false
		idle := rt.idle
		rt.mu.Unlock()
		rt.emit(agent.Event{Type: agent.AgentSettled, Aborted: aborted})
		close(idle)
		return
	}
}

func (rt *Runtime) popLocked() (queued, bool) {
	for _, qq := range []*[]queued{&rt.steer, &rt.follow} {
		if len(*qq) > 0 {
			q := (*qq)[0]
			*qq = (*qq)[1:]
			return q, true
		}
	}
	return queued{}, false
}

// drain hands the loop the queued messages: one, or all in mode All.
func (rt *Runtime) drain(qq *[]queued, mode string) []prompt.Message {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if len(*qq) == 0 {
		return nil
	}
	n := 1
	if mode == All {
		n = len(*qq)
	}
	out := make([]prompt.Message, 0, n)
	for _, q := range (*qq)[:n] {
		out = append(out, rt.runner.UserMessage(q.in.Text, q.images))
	}
	*qq = (*qq)[n:]
	rt.queueChangedLocked()
	return out
}

// queueChangedLocked emits queue_update under rt.mu, so updates arrive in
// the order the queue changed (emit takes rt.mu only for message_end).
func (rt *Runtime) queueChangedLocked() {
	rt.emit(agent.Event{Type: agent.QueueUpdate, Steering: texts(rt.steer), FollowUp: texts(rt.follow)})
}

func texts(q []queued) []string {
	out := make([]string, len(q))
	for i, x := range q {
		out[i] = x.typed
	}
	return out
}

// Wait blocks until the session is idle and returns how the last run
// ended.
func (rt *Runtime) Wait() (*session.Turn, error) {
	rt.mu.Lock()
	idle := rt.idle
	rt.mu.Unlock()
	<-idle
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.last, rt.lastErr
}

// Idle returns a channel closed when the current run (if any) has ended.
func (rt *Runtime) Idle() <-chan struct{} {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.idle
}

// Abort stops the running loop (or a branch summary being written) and
// waits until the session is idle. Every tool call still gets a result, so
// the transcript stays valid. Queued messages are dropped and returned, so
// a person can get their text back.
func (rt *Runtime) Abort() (steering, followUp []string) {
	rt.mu.Lock()
	steering, followUp = rt.clearLocked()
	if rt.running {
		rt.aborting = true
		rt.cancel()
	}
	if rt.navCancel != nil {
		rt.navCancel()
	}
	idle := rt.idle
	rt.mu.Unlock()
	<-idle
	return steering, followUp
}

// ClearQueue drops the queued messages and returns their text.
func (rt *Runtime) ClearQueue() (steering, followUp []string) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.clearLocked()
}

func (rt *Runtime) clearLocked() (steering, followUp []string) {
	steering, followUp = texts(rt.steer), texts(rt.follow)
	if len(rt.steer)+len(rt.follow) > 0 {
		rt.steer, rt.follow = nil, nil
		rt.queueChangedLocked()
	}
	return steering, followUp
}

// SetQueueModes sets how many queued messages go in at a time
// (OneAtATime or All); an empty mode is left as it is.
func (rt *Runtime) SetQueueModes(steer, followUp string) error {
	for _, m := range []string{steer, followUp} {
		if m != "" && m != OneAtATime && m != All {
			return fmt.Errorf("queue mode %q: want %q or %q", m, OneAtATime, All)
		}
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if steer != "" {
		rt.steerMode = steer
	}
	if followUp != "" {
		rt.followMode = followUp
	}
	return nil
}

// SetRoute switches the model. While the agent works the switch waits for
// the next run, so one run never mixes models mid-request.
func (rt *Runtime) SetRoute(r provider.Route) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.running {
		rt.route = &r
		return
	}
	rt.setRouteLocked(r)
}

// Route is the model the next request goes to.
func (rt *Runtime) Route() provider.Route {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.route != nil {
		return *rt.route
	}
	return rt.runner.Route
}

// Switch replaces the transcript (a new session, or one resumed) and
// closes the old one. It needs an idle session. Tool calls a crash left
// without results are closed first, as at start-up.
func (rt *Runtime) Switch(tr *session.Transcript) error {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.running {
		return ErrBusy
	}
	if tr.Path != "" {
		if _, err := session.CloseDangling(tr, nil); err != nil {
			return err
		}
	}
	old := rt.runner.Transcript
	rt.runner.Transcript = tr
	rt.messages = branchMessages(tr)
	rt.last, rt.lastErr = nil, nil
	if old != nil && old != tr {
		return old.Close()
	}
	return nil
}

// Transcript is the session's transcript. Read it only while idle.
func (rt *Runtime) Transcript() *session.Transcript {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.runner.Transcript
}

// Runner is the wrapped runner, for what changes only while idle (the
// prompt options after /reload).
func (rt *Runtime) Runner() *session.Runner { return rt.runner }

// State is a snapshot of the session.
type State struct {
	Running      bool
	Route        provider.Route
	SessionFile  string
	SessionID    string
	MessageCount int
	Steering     []string
	FollowUp     []string
	SteeringMode string
	FollowUpMode string
	// Compacting: a compaction is being written.
	Compacting bool
	// ContextTokens is the last assistant message's token count (input,
	// output and cache): what the conversation fills of the window.
	ContextTokens int
}

// State returns a snapshot of the session.
func (rt *Runtime) State() State {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	s := State{
		Running: rt.running && !rt.compacting, Compacting: rt.compacting, Route: rt.runner.Route,
		MessageCount: len(rt.messages),
		Steering:     texts(rt.steer), FollowUp: texts(rt.follow),
		SteeringMode: rt.steerMode, FollowUpMode: rt.followMode,
	}
	if rt.route != nil {
		s.Route = *rt.route
	}
	if tr := rt.runner.Transcript; tr != nil {
		s.SessionFile, s.SessionID = tr.Path, tr.Header.ID
	}
	for i := len(rt.messages) - 1; i >= 0; i-- {
		if m := rt.messages[i]; m.Role == "assistant" && m.Usage != nil {
			s.ContextTokens = m.Usage.TotalTokens
			break
		}
	}
	return s
}

// Messages returns the conversation's messages (without pi's system
// messages), those of the running turn included.
func (rt *Runtime) Messages() []prompt.Message {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return append([]prompt.Message(nil), rt.messages...)
}

// AgentMessages is the branch's conversation with its recorded system
// messages where the established harness's agent holds them (RPC
// get_messages), read from the session.
func (rt *Runtime) AgentMessages() []prompt.Message {
	rt.mu.Lock()
	tr := rt.runner.Transcript
	rt.mu.Unlock()
	if tr == nil {
		return rt.Messages()
	}
	return session.AgentMessages(tr.Branch())
}

func branchMessages(tr *session.Transcript) []prompt.Message {
	if tr == nil {
		return nil
	}
	return session.ContextMessages(tr.Branch())
}

// Context is the context the runtime was made with: work started for the
// session (a direct command) ends with it.
func (rt *Runtime) Context() context.Context { return rt.base }

// Reconfigure changes the runner while the session is idle (new prompt
// options and resources after a reload).
func (rt *Runtime) Reconfigure(fn func(r *session.Runner)) error {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.running {
		return ErrBusy
	}
	fn(rt.runner)
	return nil
}
