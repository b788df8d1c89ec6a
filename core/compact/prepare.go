package compact

import (
	"encoding/json"
	"sort"

	"github.com/piwasm/pi/core/session"
)

// projected is one entry of the rebuilt context with the conversation
// nodes it contributes (none for metadata; pi's prompt nodes are prompt
// state and count as none).
type projected struct {
	index int // into the branch
	entry *session.Entry
	nodes []session.Node
}

// project lists the entries of the rebuilt context in order, as the
// established harness's projection does: with a compaction, the latest
// one first (contributing its summary), then the kept entries (system
// messages left out) and those after it; otherwise every entry.
func project(branch []session.Entry) ([]projected, []session.Node) {
	nodes := session.History(branch)
	by := make(map[int][]session.Node, len(nodes))
	for _, n := range nodes {
		if n.Role != "system" && n.Entry >= 0 {
			by[n.Entry] = append(by[n.Entry], n)
		}
	}
	add := func(out []projected, i int) []projected {
		return append(out, projected{index: i, entry: &branch[i], nodes: by[i]})
	}
	c := -1
	for i := len(branch) - 1; i >= 0; i-- {
		if branch[i].Type == session.TypeCompaction {
			c = i
			break
		}
	}
	out := make([]projected, 0, len(branch))
	if c < 0 {
		for i := range branch {
			out = add(out, i)
		}
		return out, nodes
	}
	out = add(out, c)
	kept := c
	for i := 0; i < c; i++ {
		if branch[i].ID != "" && branch[i].ID == branch[c].FirstKeptEntryID {
			kept = i
			break
		}
	}
	for i := kept; i < c; i++ {
		if e := branch[i]; e.Type == session.TypeMessage && e.Message != nil && e.Message.Role == "system" {
			continue
		}
		p := projected{index: i, entry: &branch[i]}
		if branch[i].Type != session.TypeCompaction {
			p.nodes = by[i]
		}
		out = append(out, p)
	}
	for i := c + 1; i < len(branch); i++ {
		out = add(out, i)
	}
	return out, nodes
}

// cutPoint: a user, assistant, command, extension or summary message may
// start the kept part; a tool result never (it must follow its call).
func cutPoint(p projected) bool {
	if p.entry.Type == session.TypeCompaction {
		return false
	}
	for _, n := range p.nodes {
		if n.Kind != "toolResult" {
			return true
		}
	}
	return false
}

// turnStart: what begins a turn (anything the user side says).
func turnStart(p projected) bool {
	if p.entry.Type == session.TypeCompaction {
		return false
	}
	for _, n := range p.nodes {
		switch n.Kind {
		case "assistant", "toolResult", "system":
		default:
			return true
		}
	}
	return false
}

// visible reports whether an entry contributes to the context when no
// edit touches it.
func visible(e *session.Entry) bool {
	switch e.Type {
	case session.TypeMessage:
		return e.Message != nil && e.Message.Role != "system" && !e.Message.ExcludeFromContext
	case session.TypeCustomMessage, session.TypeContext, session.TypeCompaction:
		return true
	case session.TypeBranchSummary:
		return e.Summary != ""
	}
	return false
}

// Preparation is what a compaction will summarise and keep.
type Preparation struct {
	// FirstKeptEntryID is the entry the kept part starts at.
	FirstKeptEntryID string
	// ToSummarize are the whole turns to summarise (after the previous
	// compaction); TurnPrefix the start of a turn the cut splits.
	ToSummarize, TurnPrefix []session.Node
	SplitTurn               bool
	// TokensBefore is the context's size now.
	TokensBefore int
	// PreviousSummary is the latest compaction's summary, folded into
	// the new one; HasPrevious says there is one.
	PreviousSummary string
	HasPrevious     bool
	// Files are the files the summarised part read and changed, with
	// those of the previous compaction.
	Files session.FileLists
	// KeptTokens estimates the kept part's size (for the context's size
	// after the compaction).
	KeptTokens int
}

// Prepare chooses what a compaction of branch summarises: the newest
// keepRecent tokens (about) stay, cut at a turn boundary where possible,
// otherwise inside a turn whose beginning is then summarised on its own.
// recovery allows moving the cut past a failed attempt an overflow left
// omitted. It returns nil when there is nothing to summarise (the branch
// ends with a compaction, or everything is recent).
func Prepare(branch []session.Entry, keepRecent int, recovery bool) *Preparation {
	if len(branch) == 0 || branch[len(branch)-1].Type == session.TypeCompaction {
		return nil
	}
	entries, nodes := project(branch)
	start := 0
	prev := -1
	if len(entries) > 0 && entries[0].entry.Type == session.TypeCompaction {
		prev, start = 0, 1
	}
	end := len(entries)
	var cuts []int
	for i := start; i < end; i++ {
		if cutPoint(entries[i]) {
			cuts = append(cuts, i)
		}
	}
	cut := start
	exceeded := false
	if len(cuts) > 0 {
		cut = cuts[0]
		sum := 0
		for i := end - 1; i >= start; i-- {
			t := 0
			for _, n := range entries[i].nodes {
				t += Estimate(n)
			}
			if t == 0 {
				continue
			}
			sum += t
			if sum >= keepRecent {
				exceeded = true
				cut = cuts[len(cuts)-1]
				for _, c := range cuts {
					if c >= i {
						cut = c
						break
					}
				}
				break
			}
		}
	}
	if recovery && exceeded && recoverySuffix(entries[cut+1:end]) {
		cut++
	}
	for cut > start {
		p := entries[cut-1]
		if p.entry.Type == session.TypeCompaction || len(p.nodes) > 0 {
			break
		}
		cut--
	}
	if cut >= len(entries) || entries[cut].entry.ID == "" {
		return nil
	}
	p := &Preparation{FirstKeptEntryID: entries[cut].entry.ID}
	historyEnd := cut
	if cut < end && !turnStart(entries[cut]) {
		for i := cut; i >= start; i-- {
			if turnStart(entries[i]) {
				p.SplitTurn, historyEnd = true, i
				break
			}
		}
	}
	for _, e := range entries[start:historyEnd] {
		p.ToSummarize = append(p.ToSummarize, e.nodes...)
	}
	if p.SplitTurn {
		for _, e := range entries[historyEnd:cut] {
			p.TurnPrefix = append(p.TurnPrefix, e.nodes...)
		}
	}
	if len(p.ToSummarize) == 0 && len(p.TurnPrefix) == 0 {
		return nil
	}
	ops := newFileOps()
	if prev >= 0 {
		c := entries[prev].entry
		p.PreviousSummary, p.HasPrevious = c.Summary, true
		if !c.FromHook && c.Files != nil {
			for _, f := range c.Files.ReadFiles {
				ops.read[f] = true
			}
			for _, f := range c.Files.ModifiedFiles {
				ops.edited[f] = true
			}
		}
	}
	ops.add(p.ToSummarize)
	ops.add(p.TurnPrefix)
	p.Files = ops.lists()
	p.TokensBefore = contextTokens(branch, nodes)
	for _, e := range entries[cut:] {
		for _, n := range e.nodes {
			p.KeptTokens += Estimate(n)
		}
	}
	return p
}

// recoverySuffix: everything after the cut is a failed attempt an
// overflow recovery left out of the context, and the edits that did so.
func recoverySuffix(suffix []projected) bool {
	omitted := false
	for _, e := range suffix {
		switch {
		case e.entry.Type == session.TypeCompaction:
			return false
		case e.entry.Type == session.TypeContextEdit:
			if e.entry.Replacement != nil {
				return false
			}
		case visible(e.entry) && len(e.nodes) > 0:
			return false
		case visible(e.entry):
			if e.entry.Type == session.TypeMessage && e.entry.Message.Role == "assistant" {
				omitted = true
			}
		}
	}
	return omitted
}

// fileOps collects the paths of read, write and edit calls.
type fileOps struct{ read, written, edited map[string]bool }

func newFileOps() *fileOps {
	return &fileOps{read: map[string]bool{}, written: map[string]bool{}, edited: map[string]bool{}}
}

func (f *fileOps) add(nodes []session.Node) {
	for _, n := range nodes {
		if n.Kind != "assistant" || n.Msg == nil {
			continue
		}
		for _, c := range n.Msg.ToolCalls() {
			var a struct {
				Path any `json:"path"`
			}
			if json.Unmarshal(c.Arguments, &a) != nil {
				continue
			}
			path, ok := a.Path.(string)
			if !ok || path == "" {
				continue
			}
			switch c.Name {
			case "read":
				f.read[path] = true
			case "write":
				f.written[path] = true
			case "edit":
				f.edited[path] = true
			}
		}
	}
}

// lists: modified = edited ∪ written; read = read − modified; both sorted.
func (f *fileOps) lists() session.FileLists {
	mod := map[string]bool{}
	for p := range f.edited {
		mod[p] = true
	}
	for p := range f.written {
		mod[p] = true
	}
	out := session.FileLists{ReadFiles: []string{}, ModifiedFiles: []string{}}
	for p := range mod {
		out.ModifiedFiles = append(out.ModifiedFiles, p)
	}
	for p := range f.read {
		if !mod[p] {
			out.ReadFiles = append(out.ReadFiles, p)
		}
	}
	sort.Strings(out.ModifiedFiles)
	sort.Strings(out.ReadFiles)
	return out
}
