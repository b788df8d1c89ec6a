package compact

import (
	"context"

	"github.com/piwasm/pi/core/prompt"
	"github.com/piwasm/pi/core/session"
)

// branchPreamble opens every stored branch summary (the established
// harness's wording, so the model reads the same either way).
const branchPreamble = "The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\n"

// NoContent is the summary of a branch with nothing to summarise.
const NoContent = "No content to summarize"

const branchPrompt = `Write structured notes on this conversation branch, to be read when the user comes back to it later. Use exactly these headings:

## Goal
[What the user tried to do on this branch]

## Constraints & Preferences
- [Requirements, constraints and preferences the user stated]
- [Or "(none)" if there were none]

## Progress
### Done
- [x] [Work finished, changes made]

### In Progress
- [ ] [Work begun but not finished]

### Blocked
- [What stopped progress, if anything]

## Key Decisions
- **[Decision]**: [Why, briefly]

## Next Steps
1. [What would carry this work on]

Keep every section short. Quote file paths, function names and error messages exactly.`

// BranchEntries are the entries a move from oldLeaf to target leaves
// behind: from oldLeaf back to (not including) the deepest entry both
// paths share, oldest first. entries is the whole session (every branch).
func BranchEntries(entries []session.Entry, oldLeaf, target string) []session.Entry {
	if oldLeaf == "" {
		return nil
	}
	byID := make(map[string]int, len(entries))
	for i, e := range entries {
		if e.ID != "" {
			byID[e.ID] = i
		}
	}
	onTarget := map[string]bool{}
	for id := target; id != "" && !onTarget[id]; {
		onTarget[id] = true
		i, ok := byID[id]
		if !ok {
			break
		}
		id = entries[i].ParentID
	}
	var out []session.Entry
	seen := map[string]bool{}
	for id := oldLeaf; id != "" && !onTarget[id] && !seen[id]; {
		seen[id] = true
		i, ok := byID[id]
		if !ok {
			break
		}
		out = append(out, entries[i])
		id = entries[i].ParentID
	}
	for l, r := 0, len(out)-1; l < r; l, r = l+1, r-1 {
		out[l], out[r] = out[r], out[l]
	}
	return out
}

// BranchOptions say how to summarise a branch.
type BranchOptions struct {
	Model Model
	// ContextWindow is the model's window (0: 128,000); the branch is
	// summarised newest first up to the window less Settings.ReserveTokens.
	ContextWindow int
	Settings      BranchSettings
	// Focus is added to the instructions, or replaces them with
	// ReplaceInstructions.
	Focus               string
	ReplaceInstructions bool
}

// BranchSummary is a finished branch summary.
type BranchSummary struct {
	Summary string
	Usage   prompt.Usage
	Files   session.FileLists
	// Empty: there was nothing to summarise (Summary says so, no model
	// was asked).
	Empty bool
}

// SummarizeBranch summarises the entries a navigation leaves behind (see
// BranchEntries), as the established harness does: tool results left out,
// earlier summaries as their text, file lists from the calls and from
// branch summaries inside; newest first until the budget is spent (a
// summary still goes in while under 90% of it).
func SummarizeBranch(ctx context.Context, entries []session.Entry, o BranchOptions) (BranchSummary, error) {
	window := o.ContextWindow
	if window <= 0 {
		window = 128000
	}
	budget := window - o.Settings.ReserveTokens
	ops := newFileOps()
	edits := map[string]session.Entry{}
	for _, e := range entries {
		if e.Type == session.TypeBranchSummary && !e.FromHook && e.Files != nil {
			for _, f := range e.Files.ReadFiles {
				ops.read[f] = true
			}
			for _, f := range e.Files.ModifiedFiles {
				ops.edited[f] = true
			}
		}
		if e.Type == session.TypeContextEdit {
			edits[e.TargetID] = e
		}
	}
	var nodes []session.Node
	total := 0
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		if e.Type == session.TypeMessage && e.Message != nil && (e.Message.Role == prompt.RoleToolResult || e.Message.Role == "system") {
			continue
		}
		one := []session.Entry{e}
		if ed, ok := edits[e.ID]; ok {
			one = append(one, ed)
		}
		var got []session.Node
		for _, n := range session.History(one) {
			if n.Role != "system" {
				got = append(got, n)
			}
		}
		if len(got) == 0 {
			continue
		}
		ops.add(got)
		t := 0
		for _, n := range got {
			t += Estimate(n)
		}
		if budget > 0 && total+t > budget {
			if (e.Type == session.TypeCompaction || e.Type == session.TypeBranchSummary) && float64(total) < float64(budget)*0.9 {
				nodes = append(got, nodes...)
				total += t
			}
			break
		}
		nodes = append(got, nodes...)
		total += t
	}
	if len(nodes) == 0 {
		return BranchSummary{Summary: NoContent, Empty: true, Files: session.FileLists{ReadFiles: []string{}, ModifiedFiles: []string{}}}, nil
	}
	instructions := branchPrompt
	switch {
	case o.ReplaceInstructions && o.Focus != "":
		instructions = o.Focus
	case o.Focus != "":
		instructions += "\n\nAdditional focus: " + o.Focus
	}
	text, usage, err := o.Model.ask(ctx, "<conversation>\n"+Serialize(nodes)+"\n</conversation>\n\n"+instructions, "Branch summarization")
	if err != nil {
		return BranchSummary{}, err
	}
	files := ops.lists()
	return BranchSummary{Summary: branchPreamble + text + fileTags(files), Usage: usage, Files: files}, nil
}

// Entry is the branch_summary entry for s; fromID is the leaf the
// navigation left ("root" when there was none). Append it as a child of
// the new leaf.
func (s BranchSummary) Entry(fromID string) session.Entry {
	if fromID == "" {
		fromID = "root"
	}
	u := s.Usage
	files := s.Files
	e := session.Entry{Type: session.TypeBranchSummary, Summary: s.Summary, FromID: fromID, Files: &files}
	if !s.Empty {
		e.Usage = &u
	}
	return e
}
