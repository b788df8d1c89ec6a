package session

import (
	"context"
	"fmt"
	"time"

	"github.com/piwasm/pi/core/prompt"
	"github.com/piwasm/pi/core/provider"
	"github.com/piwasm/pi/core/resources"
	"github.com/piwasm/pi/hooks"
)

// Runner runs turns of one session: input funnel, prompt pipeline,
// transcript updates, projection and the model request.
type Runner struct {
	Transcript *Transcript
	// Dispatcher runs extension hooks; nil means no extensions.
	Dispatcher *hooks.Dispatcher
	Loaded     *resources.Loaded
	// Options are the base prompt options (before extensions).
	Options prompt.Options
	Route   provider.Route
	// Client sends requests; it is not used for dry runs.
	Client   *provider.Client
	NoExpand bool
	// MaxTokens caps the reply (0: the route's or provider's default).
	MaxTokens int
	// Now stamps messages; nil means time.Now.
	Now func() time.Time
}

// Turn is what one input line led to.
type Turn struct {
	Input    Funneled
	Prepared *Prepared
	// Patch is the system message appended for this turn, if any.
	Patch    *prompt.Message
	Commits  []ProjectionCommit
	Request  provider.Request
	Body     []byte
	Response provider.Response
	// Sent is false when nothing went to the model (a handled input or a
	// show-only command), or for a dry run.
	Sent bool
}

func (r *Runner) now() int64 {
	if r.Now != nil {
		return r.Now().UnixMilli()
	}
	return time.Now().UnixMilli()
}

// Turn runs one input line. With dryRun the request is built (and its body
// returned) but neither sent nor written to the transcript. onDelta receives
// the reply as it streams.
func (r *Runner) Turn(ctx context.Context, line string, dryRun bool, onDelta func(string)) (*Turn, error) {
	t := &Turn{}
	in, err := Funnel(ctx, r.Dispatcher, r.Loaded, line, r.NoExpand)
	if err != nil {
		return nil, err
	}
	t.Input = in
	if !in.Send {
		return t, nil
	}
	p, err := Prepare(ctx, r.Dispatcher, r.Options, in.Text)
	if err != nil {
		return nil, err
	}
	t.Prepared = p

	tr := r.Transcript
	if dryRun {
		tr = &Transcript{Header: tr.Header, Entries: append([]Entry(nil), tr.Entries...)}
	}
	if err := r.record(tr, t, p, in); err != nil {
		return nil, err
	}

	var forced *string
	if p.Forced != nil {
		forced = &p.Forced.Text
	}
	t.Request = provider.Request{
		Model:     r.Route.ModelID,
		Messages:  Messages(History(tr.Entries), forced),
		MaxTokens: r.MaxTokens,
		Stream:    true,
	}
	if t.Body, err = provider.DryRun(r.Route, t.Request); err != nil {
		return nil, fmt.Errorf("build request: %w", err)
	}
	if dryRun {
		return t, nil
	}
	if r.Client == nil {
		return nil, fmt.Errorf("no model client configured")
	}
	t.Sent = true
	resp, err := r.Client.Stream(ctx, r.Route, t.Request, onDelta)
	t.Response = resp
	if err != nil {
		if aerr := tr.Append(Entry{Type: TypeError, Text: err.Error()}); aerr != nil {
			return t, fmt.Errorf("%w (and recording it failed: %v)", err, aerr)
		}
		return t, err
	}
	reply := prompt.Message{Role: "assistant", Content: prompt.TextContent(resp.Text), Timestamp: r.now()}
	if err := tr.Append(Entry{Type: TypeMessage, Message: &reply}); err != nil {
		return t, err
	}
	return t, nil
}

// record appends, in order: the system message with the sections that
// changed, the projection of the rendered prompt, the runtime-context
// snapshot when it changed, injected messages, the user's message and the
// request marker.
func (r *Runner) record(tr *Transcript, t *Turn, p *Prepared, in Funneled) error {
	prev, hadSystem := CurrentSystem(tr.Entries)
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
	startsSeries := hadSystem && toolsChanged
	nodes := SystemNodes(History(tr.Entries))
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

	switch last := lastContext(tr.Entries); {
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
		msg := prompt.Message{Role: "user", Content: prompt.TextContent(m.Text), Timestamp: r.now()}
		if err := tr.Append(Entry{Type: TypeMessage, Message: &msg, Extension: m.Extension}); err != nil {
			return err
		}
	}
	user := prompt.Message{Role: "user", Content: prompt.TextContent(in.Text), Timestamp: r.now()}
	if err := tr.Append(Entry{Type: TypeMessage, Message: &user}); err != nil {
		return err
	}
	req := Entry{Type: TypeRequest, Route: r.Route.Provider + "/" + r.Route.ModelID, API: r.Route.API}
	if p.Forced != nil {
		req.Forced = p.Forced.Extension
	}
	return tr.Append(req)
}

func toolDiff(prev []prompt.ToolRef, next []prompt.ToolDecl) (added, removed []prompt.ToolRef) {
	had := map[string]bool{}
	for _, t := range prev {
		had[t.Name] = true
	}
	has := map[string]bool{}
	for _, t := range next {
		has[t.Name] = true
		if !had[t.Name] {
			added = append(added, prompt.ToolRef{Name: t.Name})
		}
	}
	for _, t := range prev {
		if !has[t.Name] {
			removed = append(removed, prompt.ToolRef{Name: t.Name})
		}
	}
	return added, removed
}
