package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/piwasm/pi/core/agent"
	"github.com/piwasm/pi/core/hooks"
	"github.com/piwasm/pi/core/prompt"
	"github.com/piwasm/pi/core/provider"
	"github.com/piwasm/pi/core/resources"
	"github.com/piwasm/pi/core/tool"
)

// Runner runs one session: input funnel, prompt pipeline, transcript
// updates, and the agent loop whose every request is projected from the
// transcript.
type Runner struct {
	Transcript *Transcript
	// Dispatcher runs extension hooks; nil means no extensions.
	Dispatcher *hooks.Dispatcher
	Loaded     *resources.Loaded
	// Options are the base prompt options (before extensions). Their
	// Catalog should describe Tools.
	Options prompt.Options
	Route   provider.Route
	// Client sends requests; it is not used for dry runs or when Model is
	// set.
	Client *provider.Client
	// Model, when set, answers instead of Client (the replay provider).
	Model ModelFunc
	// Tools are the tools pi can run; a declared tool must be one of them.
	Tools *tool.Registry
	// Hooks gate and patch tool calls (permissions, extensions); nil: none.
	Hooks agent.Hooks
	// Emit receives the run's events; nil: none.
	Emit func(agent.Event)
	// Context, when set, may change the conversation each request carries
	// (without it, the Dispatcher's extensions that declare the context
	// hook do): it gets the messages without the system
	// prompt and returns the list to send, or nil to send them as they
	// are. An error stops the request.
	Context func(ctx context.Context, msgs []prompt.Message) ([]prompt.Message, error)
	// Steer and FollowUp drain the queues of user messages a person typed
	// while the agent worked (agent.Loop's fields of the same names); nil:
	// none.
	Steer       func() []prompt.Message
	FollowUp    func() []prompt.Message
	NoExpand    bool
	MaxTokens   int
	MaxParallel int
	// CacheRetention is the prompt-cache retention requests ask for
	// (provider.CacheLong for PI_CACHE_RETENTION=long); "" is the
	// provider's default.
	CacheRetention string
	// Now stamps messages; nil means time.Now.
	Now func() time.Time
	// Refresh, when set, gives the prompt options for a turn about to be
	// prepared, from the base Options: tools that come and go during a
	// session (an MCP server's) join the selection and catalog here. It
	// may wait, bounded, for them.
	Refresh func(ctx context.Context, o prompt.Options) prompt.Options
	// BetweenTurns, when set, runs before each request of a run but the
	// first (after a tool batch's results are recorded): the runtime
	// compacts there when the context has grown past its threshold.
	BetweenTurns func(ctx context.Context, tr *Transcript)
	// WillRetry, when set, says whether a run that ended with err will be
	// tried again (overflow recovery); agent_end reports it.
	WillRetry func(err error, added []prompt.Message) bool
	// OnRequest, when set, hears of each request of a run as it is sent
	// to the provider (not a replay's): its prompt cache entry may be kept
	// warm. leaf is the transcript entry the request was projected up to.
	OnRequest func(tr *Transcript, leaf string, route provider.Route, req provider.Request)

	// last is the prompt of the latest run, which Continue goes on with.
	last *Prepared

	// toolsMemo keeps the tool declarations checked and encoded from one
	// request to the next.
	toolsMemo provider.ToolsMemo
}

// ModelFunc answers a request in place of a provider: the replay provider
// and tests use it. It streams like provider.Client.StreamEvents.
type ModelFunc func(ctx context.Context, req provider.Request, onEvent func(provider.StreamEvent)) (provider.Response, error)

// Turn is what one input line led to.
type Turn struct {
	Input    Funneled
	Prepared *Prepared
	// Patch is the system message appended for this turn, if any.
	Patch   *prompt.Message
	Commits []ProjectionCommit
	// Request and Body are the first request of the run (for dry runs and
	// tests).
	Request provider.Request
	Body    []byte
	// Messages are the messages the run added; Final is the last
	// assistant message.
	Messages []prompt.Message
	Final    *prompt.Message
	// Sent is false when nothing went to the model (a handled input or a
	// show-only command), or for a dry run.
	Sent bool
}

// Text is the text of the final assistant message.
func (t *Turn) Text() string {
	if t.Final == nil {
		return ""
	}
	return t.Final.Content.Text()
}

func (r *Runner) now() int64 {
	return r.clock().UnixMilli()
}

// clock is the runner's time: Now when set (a test's clock), else the
// wall clock with its monotonic reading, which durations are measured by.
func (r *Runner) clock() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

// Input is one message from the user: text and attached images.
type Input struct {
	Text   string
	Images []prompt.Block
}

// Turn runs one input line through the agent loop until the model stops
// calling tools. With dryRun the first request is built (and its body
// returned) but neither sent nor written to the transcript.
func (r *Runner) Turn(ctx context.Context, input Input, dryRun bool) (*Turn, error) {
	in, err := Funnel(ctx, r.Dispatcher, r.Loaded, input.Text, r.NoExpand)
	if err != nil {
		return nil, err
	}
	return r.TurnFunneled(ctx, in, input.Images, dryRun)
}

// TurnFunneled is Turn for a line already through the input funnel: a
// long-lived session funnels a line as soon as it is typed (an extension
// command runs at once, even while the agent works) and runs it later.
func (r *Runner) TurnFunneled(ctx context.Context, in Funneled, images []prompt.Block, dryRun bool) (*Turn, error) {
	t := &Turn{Input: in}
	if !in.Send {
		return t, nil
	}
	opts := r.Options
	if r.Refresh != nil {
		opts = r.Refresh(ctx, opts)
	}
	p, err := Prepare(ctx, r.Dispatcher, opts, in.Text)
	if err != nil {
		return nil, err
	}
	t.Prepared = p
	if err := r.checkDeclared(p.Assembly); err != nil {
		return nil, err
	}

	tr := r.Transcript
	if dryRun {
		tr = tr.scratch()
	}
	if err := r.record(tr, t, p); err != nil {
		return nil, err
	}
	user := r.UserMessage(in.Text, images)
	if dryRun {
		if err := tr.Append(Entry{Type: TypeMessage, Message: &user}); err != nil {
			return nil, err
		}
		t.Request = r.request(tr, p)
		if t.Body, err = provider.DryRun(r.Route, t.Request); err != nil {
			return nil, fmt.Errorf("build request: %w", err)
		}
		return t, nil
	}
	if r.Client == nil && r.Model == nil {
		return nil, errors.New("no model client configured")
	}
	t.Sent = true
	r.last = p
	return r.runLoop(ctx, tr, p, t, []prompt.Message{user})
}

// Continue runs the loop again on the transcript as it stands, with the
// prompt of the latest run and no new message: what a run retried after a
// compaction does (the user's message is already in the context).
func (r *Runner) Continue(ctx context.Context) (*Turn, error) {
	if r.last == nil {
		return nil, errors.New("nothing to continue: no run yet")
	}
	if r.Client == nil && r.Model == nil {
		return nil, errors.New("no model client configured")
	}
	t := &Turn{Prepared: r.last, Sent: true}
	return r.runLoop(ctx, r.Transcript, r.last, t, nil)
}

func (r *Runner) runLoop(ctx context.Context, tr *Transcript, p *Prepared, t *Turn, prompts []prompt.Message) (*Turn, error) {
	loop := &agent.Loop{
		Model:       &model{r: r, tr: tr, p: p, t: t},
		Tools:       r.Tools,
		Hooks:       r.Hooks,
		Emit:        r.Emit,
		MaxParallel: r.MaxParallel,
		Now:         r.Now,
		Steer:       r.Steer,
		FollowUp:    r.FollowUp,
		WillRetry:   r.WillRetry,
		Record: func(m prompt.Message) error {
			return tr.Append(Entry{Type: TypeMessage, Message: &m})
		},
	}
	if r.Tools == nil {
		loop.Tools = tool.NewRegistry()
	}
	if t.Patch != nil {
		loop.Announced = []prompt.Message{*t.Patch}
	}
	msgs, err := loop.Run(ctx, prompts)
	t.Messages = msgs
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "assistant" {
			t.Final = &msgs[i]
			break
		}
	}
	return t, err
}

// UserMessage is a user message as the session records it, stamped now.
func (r *Runner) UserMessage(text string, images []prompt.Block) prompt.Message {
	return prompt.Message{Role: "user", Content: userContent(text, images), Timestamp: r.now()}
}

// userContent is a user message's content as the established harness
// writes it: a list of blocks, the text first, then the images.
func userContent(text string, images []prompt.Block) prompt.Content {
	blocks := []prompt.Block{{Type: "text", Text: text}}
	return prompt.Content{Blocks: append(blocks, images...)}
}

// checkDeclared refuses a prompt that declares a tool pi cannot run: the
// model would call it and nobody would answer.
func (r *Runner) checkDeclared(a *prompt.Assembly) error {
	for _, d := range a.Tools {
		if r.Tools == nil {
			return fmt.Errorf("the prompt declares tool %q but no tools can run here", d.Name)
		}
		if _, ok := r.Tools.Get(d.Name); !ok {
			return fmt.Errorf("the prompt declares tool %q, which pi cannot run (not a built-in or extension tool)", d.Name)
		}
	}
	return nil
}

// request builds the next request from the transcript: the projected
// history and the declared tools.
func (r *Runner) request(tr *Transcript, p *Prepared) provider.Request {
	var forced *string
	if p.Forced != nil {
		forced = &p.Forced.Text
	}
	req := provider.Request{
		Model:     r.Route.ModelID,
		Messages:  tr.requestMessages(forced),
		MaxTokens: r.MaxTokens,
		Stream:    true,
		// Keys the provider's prompt cache and session affinity headers.
		SessionID:      tr.Header.ID,
		CacheRetention: r.CacheRetention,
		ToolsMemo:      &r.toolsMemo,
	}
	for _, d := range p.Assembly.Tools {
		req.Tools = append(req.Tools, provider.ToolSpec{Name: d.Name, Description: d.Description, Parameters: d.Parameters})
	}
	return req
}

// model is the agent loop's view of the provider: each call marks a
// request in the transcript, projects the transcript into it and streams
// the reply.
type model struct {
	r     *Runner
	tr    *Transcript
	p     *Prepared
	t     *Turn
	calls int
}

func (m *model) Stream(ctx context.Context, start func(prompt.Message), emit func(agent.Delta)) (prompt.Message, error) {
	r, tr, p := m.r, m.tr, m.p
	if m.calls > 0 && r.BetweenTurns != nil {
		r.BetweenTurns(ctx, tr)
	}
	m.calls++
	// The declarations are re-checked before every request: a tool that
	// vanished (an extension reloaded) must not stay declared.
	if err := r.checkDeclared(p.Assembly); err != nil {
		return prompt.Message{}, err
	}
	if err := r.recordRoute(tr); err != nil {
		return prompt.Message{}, err
	}
	req := Entry{Type: TypeRequest, Route: r.Route.Provider + "/" + r.Route.ModelID, API: r.Route.API}
	if p.Forced != nil {
		req.Forced = p.Forced.Extension
	}
	if err := tr.Append(req); err != nil {
		return prompt.Message{}, err
	}
	preq := r.request(tr, p)
	{
		msgs, err := r.applyContext(ctx, tr, preq.Messages)
		if err != nil {
			return prompt.Message{}, err
		}
		preq.Messages = msgs
	}
	if r.Dispatcher.HasProviderRequestHooks() {
		preq.Patch = providerPatch(r.Dispatcher, r.Route)
	}
	if m.t.Body == nil {
		m.t.Request = preq
		m.t.Body, _ = provider.DryRun(r.Route, preq)
	}
	head := prompt.Message{Role: "assistant", API: r.Route.API, Provider: r.Route.Provider, Model: r.Route.ModelID}
	// The reply is stamped and timed from the request, as the established
	// harness does (its timestamp is when the reply began).
	began := r.clock()
	start(head)
	b := &blocks{}
	onEvent := func(ev provider.StreamEvent) {
		b.add(ev)
		emit(agent.Delta{Type: ev.Type, ContentIndex: ev.ContentIndex, Delta: ev.Delta, Content: ev.Content, ID: ev.ID, ToolName: ev.ToolName, ToolCall: b.call(ev)})
	}
	var resp provider.Response
	var err error
	if r.Model != nil {
		resp, err = r.Model(ctx, preq, onEvent)
	} else {
		if r.OnRequest != nil {
			r.OnRequest(tr, tr.LeafID(), r.Route, preq)
		}
		resp, err = r.Client.StreamEvents(ctx, r.Route, preq, onEvent)
	}
	out := head
	out.Content = prompt.Content{Blocks: b.final(resp)}
	if resp.ThinkingSignature != "" {
		// Anthropic takes thinking back only with its signature: keep it
		// on the (last) thinking block so the next request can send it.
		for i := len(out.Content.Blocks) - 1; i >= 0; i-- {
			if out.Content.Blocks[i].Type == "thinking" {
				out.Content.Blocks[i].Signature = resp.ThinkingSignature
				break
			}
		}
	}
	out.StopReason = resp.StopReason
	u := resp.Usage
	out.Usage = UsageOf(r.Route, u)
	out.Timestamp = began.UnixMilli()
	out.ResponseID, out.ResponseModel, out.RawStopReason = resp.ResponseID, resp.ResponseModel, resp.RawStopReason
	ms := max(0, r.clock().Sub(began).Round(time.Millisecond).Milliseconds())
	out.DurationMs = &ms
	out.ThinkingLevel = r.Route.Thinking
	if out.ThinkingLevel == "" {
		out.ThinkingLevel = "off"
	}
	if err != nil {
		out.ErrorMessage = scrub(err.Error(), p)
		if ctx.Err() != nil {
			out.StopReason = "aborted"
		} else {
			out.StopReason = "error"
		}
		return out, errors.New(out.ErrorMessage)
	}
	return out, nil
}

// Complete sends one request on the runner's route (or to its Model) and
// returns the whole answer: what a compaction's summary request uses.
func (r *Runner) Complete(ctx context.Context, req provider.Request) (provider.Response, error) {
	if r.Model != nil {
		return r.Model(ctx, req, func(provider.StreamEvent) {})
	}
	if r.Client == nil {
		return provider.Response{}, errors.New("no model client configured")
	}
	return r.Client.StreamEvents(ctx, r.Route, req, func(provider.StreamEvent) {})
}

// scrub keeps a forced prompt out of an error message that quotes the
// request: the forced text must never reach the session file.
func scrub(msg string, p *Prepared) string {
	if p.Forced != nil && p.Forced.Text != "" && strings.Contains(msg, p.Forced.Text) {
		return strings.ReplaceAll(msg, p.Forced.Text, "[forced prompt withheld]")
	}
	return msg
}

// blocks rebuilds an assistant message's content from its stream events,
// in content-index order, so text, thinking and tool calls keep the order
// the model produced them in.
type blocks struct {
	list []prompt.Block
}

func (b *blocks) at(i int) *prompt.Block {
	for len(b.list) <= i {
		b.list = append(b.list, prompt.Block{})
	}
	return &b.list[i]
}

func (b *blocks) add(ev provider.StreamEvent) {
	if ev.ContentIndex < 0 || ev.ContentIndex > 1<<16 {
		return
	}
	blk := b.at(ev.ContentIndex)
	switch ev.Type {
	case "text_start":
		blk.Type = "text"
	case "text_delta":
		blk.Type = "text"
		blk.Text += ev.Delta
	case "text_end":
		blk.Type, blk.Text = "text", ev.Content
	case "thinking_start":
		blk.Type = "thinking"
	case "thinking_delta":
		blk.Type = "thinking"
		blk.Thinking += ev.Delta
	case "thinking_end":
		blk.Type, blk.Thinking = "thinking", ev.Content
	case "toolcall_start":
		blk.Type, blk.ID, blk.Name = "toolCall", ev.ID, ev.ToolName
	case "toolcall_delta":
		blk.Type = "toolCall"
		blk.Arguments = append(blk.Arguments, ev.Delta...)
	case "toolcall_end":
		if ev.ToolCall != nil {
			blk.Type, blk.ID, blk.Name = "toolCall", ev.ToolCall.ID, ev.ToolCall.Name
			blk.Arguments = append([]byte(nil), ev.ToolCall.Arguments...)
			blk.ArgumentsError = ev.ToolCall.ArgumentsError
		}
	}
}

func (b *blocks) call(ev provider.StreamEvent) *prompt.Block {
	if ev.Type != "toolcall_end" || ev.ContentIndex < 0 || ev.ContentIndex >= len(b.list) {
		return nil
	}
	c := b.list[ev.ContentIndex]
	return &c
}

// final returns the content, falling back to the assembled response when
// the stream carried no block events (a provider that reports only the
// end result).
func (b *blocks) final(resp provider.Response) []prompt.Block {
	out := make([]prompt.Block, 0, len(b.list))
	for _, blk := range b.list {
		if blk.Type != "" {
			out = append(out, blk)
		}
	}
	if len(out) > 0 {
		return out
	}
	if resp.Thinking != "" {
		out = append(out, prompt.Block{Type: "thinking", Thinking: resp.Thinking})
	}
	if resp.Text != "" {
		out = append(out, prompt.Block{Type: "text", Text: resp.Text})
	}
	for _, c := range resp.ToolCalls {
		out = append(out, prompt.Block{Type: "toolCall", ID: c.ID, Name: c.Name, Arguments: c.Arguments, ArgumentsError: c.ArgumentsError})
	}
	return out
}

// record appends, in order: the system message with the sections and tool
// declarations that changed, the projection of the rendered prompt, the
// runtime-context snapshot when it changed and injected messages. The
// user's message follows (the loop records it).
func (r *Runner) record(tr *Transcript, t *Turn, p *Prepared) error {
	branch := tr.Branch()
	// A session another harness started: its prompt is not ours, so ours
	// begins a new series and takes the head slot.
	foreign := Foreign(branch)
	prev, hadSystem := CurrentSystem(branch)
	next := prompt.SectionsOf(p.Rendered)
	patch := prompt.DiffSections(prev.Sections, next)
	added, removed := toolDiff(prev.ToolsAdded, p.Assembly.Tools)
	toolsChanged := len(added) > 0 || len(removed) > 0
	if !hadSystem || patch != nil || toolsChanged {
		m := prompt.Message{Role: "system", Content: prompt.TextContent(""), Sections: patch, ToolsAdded: added, ToolsRemoved: removed, Timestamp: r.now()}
		if err := tr.Append(Entry{Type: TypeMessage, Message: &m}); err != nil {
			return err
		}
		t.Patch = &m
	}

	inHistory := r.Route.AcceptsSystemInHistory()
	startsSeries := hadSystem && toolsChanged || foreign
	nodes := SystemNodes(tr.history())
	// An update note only makes sense after a system message that said
	// something: after an empty head the full prompt goes out.
	said := false
	for _, n := range nodes {
		said = said || n.Text == nil || *n.Text != ""
	}
	decided := prompt.Decide(nodes, p.Rendered.Text, inHistory, startsSeries)
	if len(decided) > 0 {
		commits := make([]ProjectionCommit, len(decided))
		for i, c := range decided {
			commits[i] = ProjectionCommit{Op: c.Op, Seq: c.Seq, Text: c.Text}
			// A continuing in-history update carries only a note about what
			// changed, so the cached prefix before it stays byte-identical.
			if c.Op == prompt.OpAppend && said && inHistory && patch != nil {
				note := prompt.UpdateNote(patch)
				commits[i].Content = &note
			}
		}
		if err := tr.Append(Entry{Type: TypeProjection, Commits: commits, InHistory: inHistory, StartsSeries: startsSeries}); err != nil {
			return err
		}
		t.Commits = commits
	}

	branch, hist := tr.Projected()
	switch last := lastContext(branch, hist); {
	case p.Contexts != "" && p.Contexts != last:
		if err := tr.Append(Entry{Type: TypeContext, Text: p.Contexts}); err != nil {
			return err
		}
	case p.Contexts == "" && last != "" && last != prompt.ContextClearedNote:
		// The context went away: say so, or the last snapshot would keep
		// applying.
		if err := tr.Append(Entry{Type: TypeContext, Text: prompt.ContextClearedNote}); err != nil {
			return err
		}
	}
	for _, m := range p.Messages {
		msg := prompt.Message{Role: "user", Content: userContent(m.Text, nil), Timestamp: r.now()}
		if err := tr.Append(Entry{Type: TypeMessage, Message: &msg, Extension: m.Extension}); err != nil {
			return err
		}
	}
	return nil
}

// toolDiff compares the declared tools with the replayed declarations: a
// new tool, or one whose description or parameters changed, is added
// (with both, so a replay can rebuild the request); a vanished one removed.
func toolDiff(prev []prompt.ToolRef, next []prompt.ToolDecl) (added, removed []prompt.ToolRef) {
	had := map[string]prompt.ToolRef{}
	for _, t := range prev {
		had[t.Name] = t
	}
	has := map[string]bool{}
	for _, t := range next {
		has[t.Name] = true
		old, ok := had[t.Name]
		if !ok || old.Description != t.Description || string(old.Parameters) != string(t.Parameters) {
			added = append(added, prompt.ToolRef{Name: t.Name, Description: t.Description, Parameters: t.Parameters})
		}
	}
	for _, t := range prev {
		if !has[t.Name] {
			removed = append(removed, prompt.ToolRef{Name: t.Name})
		}
	}
	return added, removed
}

// CloseDangling gives every tool call of the branch's last assistant
// message that has no result an "aborted" error result, so a session cut
// off in the middle of a tool call (a crash, kill -9) continues with a
// valid history. It returns how many calls it closed.
func CloseDangling(tr *Transcript, now func() time.Time) (int, error) {
	branch := tr.Branch()
	last := -1
	for i := len(branch) - 1; i >= 0; i-- {
		if m := branch[i].Message; branch[i].Type == TypeMessage && m != nil && m.Role == "assistant" {
			last = i
			break
		}
	}
	if last < 0 {
		return 0, nil
	}
	answered := map[string]bool{}
	for _, e := range branch[last+1:] {
		if m := e.Message; e.Type == TypeMessage && m != nil && m.Role == prompt.RoleToolResult {
			answered[m.ToolCallID] = true
		}
	}
	if now == nil {
		now = time.Now
	}
	n := 0
	for _, c := range branch[last].Message.ToolCalls() {
		if answered[c.ID] {
			continue
		}
		yes := true
		m := prompt.Message{Role: prompt.RoleToolResult, ToolCallID: c.ID, ToolName: c.Name, IsError: &yes,
			Content:   prompt.Content{Blocks: []prompt.Block{{Type: "text", Text: "Aborted: pi stopped before this call finished, so it has no result. Check the files it may have touched before you repeat it."}}},
			Timestamp: now().UnixMilli()}
		if err := tr.Append(Entry{Type: TypeMessage, Message: &m}); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// recordRoute writes model_change and thinking_level_change entries when
// the model or thinking level differs from what the branch last recorded,
// as the established harness does, so a session continued by either
// harness without naming a model goes on with this one.
func (r *Runner) recordRoute(tr *Transcript) error {
	if r.Route.API == "replay" || r.Route.Provider == "" || r.Route.ModelID == "" {
		return nil
	}
	prov, model, level := tr.routeRecord()
	if prov != r.Route.Provider || model != r.Route.ModelID {
		if err := tr.Append(Entry{Type: TypeModelChange, Provider: r.Route.Provider, ModelID: r.Route.ModelID}); err != nil {
			return err
		}
	}
	want := r.Route.Thinking
	if want == "" {
		want = "off"
	}
	if level != want {
		return tr.Append(Entry{Type: TypeThinkingChange, ThinkingLevel: want})
	}
	return nil
}

// UsageOf is a provider's usage as a message records it, priced at the
// route's model's rates (zeros without a models.json "cost").
func UsageOf(route provider.Route, u provider.Usage) *prompt.Usage {
	long := 0
	if u.CacheWrite1hReported {
		long = u.CacheWrite1hTokens
	}
	p := route.Cost.PriceWrites(u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens, long)
	out := &prompt.Usage{Input: u.InputTokens, Output: u.OutputTokens, CacheRead: u.CacheReadTokens, CacheWrite: u.CacheWriteTokens,
		TotalTokens: u.InputTokens + u.OutputTokens + u.CacheReadTokens + u.CacheWriteTokens,
		Cost:        prompt.Cost{Input: p.Input, Output: p.Output, CacheRead: p.CacheRead, CacheWrite: p.CacheWrite, Total: p.Total}}
	if u.ReasoningReported {
		out.Reasoning = &u.ReasoningTokens // u is a copy: the pointer is the usage's own
	}
	if u.CacheWrite1hReported {
		out.CacheWrite1h = &u.CacheWrite1hTokens
	}
	switch {
	case u.Billed:
		out.Cost.Total = u.BilledTotal
		out.Cost.TotalFromProvider = &u.Billed
	case u.Reported:
		// Priced from the models.json rates, not billed by the provider.
		out.Cost.TotalFromProvider = new(bool)
	}
	return out
}
