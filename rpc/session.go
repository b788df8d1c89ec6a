package rpc

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/piwasm/pi/core/compact"
	"github.com/piwasm/pi/core/runtime"
	"github.com/piwasm/pi/core/session"
)

// The session commands: the tree (get_entries, get_tree, navigate_tree),
// forks and clones, the name, and statistics, in the established
// harness's shapes. navigate_tree is pi's: the established harness offers
// tree navigation to RPC clients only through its SDK; its options here
// are that call's.

// handleSession answers a session command; it reports false for a command
// that is not one.
func (s *Server) handleSession(c rpcCommand) bool {
	rt := s.h.Runtime
	switch c.Type {
	case "get_entries":
		tr := rt.Transcript()
		entries := tr.Snapshot()
		if c.Since != nil {
			i := indexOf(entries, *c.Since)
			if i < 0 {
				s.respond(c, nil, fmt.Errorf("Entry not found: %s", *c.Since))
				return true
			}
			entries = entries[i+1:]
		}
		if entries == nil {
			entries = []session.Entry{}
		}
		s.respond(c, map[string]any{"entries": entries, "leafId": nullable(tr.LeafID())}, nil)
	case "get_tree":
		tr := rt.Transcript()
		s.respond(c, map[string]any{"tree": treeNodes(tr.TreeLines()), "leafId": nullable(tr.LeafID())}, nil)
	case "get_fork_messages":
		s.respond(c, map[string]any{"messages": rt.Transcript().ForkMessages()}, nil)
	case "fork":
		text, err := rt.Fork(c.EntryID, false)
		s.respondCancellable(c, map[string]any{"text": text}, err)
	case "clone":
		leaf := rt.Transcript().LeafID()
		if leaf == "" {
			s.respond(c, nil, errors.New("Cannot clone session: no current entry selected"))
			return true
		}
		_, err := rt.Fork(leaf, true)
		s.respondCancellable(c, nil, err)
	case "set_session_name":
		name := strings.TrimSpace(c.Name)
		if name == "" {
			s.respond(c, nil, errors.New("Session name cannot be empty"))
			return true
		}
		var stored string
		err := rt.Edit(func(tr *session.Transcript) error {
			if err := tr.SetName(name); err != nil {
				return err
			}
			stored = tr.Name()
			return nil
		})
		if err == nil {
			s.out.emit(map[string]any{"type": "session_info_changed", "name": stored})
		}
		s.respond(c, nil, err)
	case "get_session_stats":
		s.respond(c, s.stats(), nil)
	case "navigate_tree":
		if c.TargetID == "" {
			s.respond(c, nil, errors.New("navigate_tree needs targetId"))
			return true
		}
		// A summary may take a while: it runs beside the command loop, so
		// an abort can stop it.
		s.work.Add(1)
		go func() {
			defer s.work.Done()
			res, err := rt.Navigate(s.ctx, c.TargetID, runtime.NavigateOptions{Summarize: c.Summarize, Summarizer: s.h.Summarizer,
				Instructions: c.CustomInstructions, Replace: c.ReplaceInstructions, Label: c.Label})
			switch {
			case errors.Is(err, context.Canceled):
				// The established harness's navigateTree result for a
				// summary aborted.
				s.respond(c, map[string]any{"cancelled": true, "aborted": true}, nil)
				return
			case err != nil:
				s.respond(c, nil, err)
				return
			}
			data := map[string]any{"cancelled": false}
			if res.EditorText != "" {
				data["editorText"] = res.EditorText
			}
			if res.Summary != nil {
				data["summaryEntry"] = res.Summary
			}
			s.respond(c, data, nil)
		}()
	default:
		return false
	}
	return true
}

func indexOf(entries []session.Entry, id string) int {
	for i, e := range entries {
		if e.ID == id {
			return i
		}
	}
	return -1
}

func nullable(id string) *string {
	if id == "" {
		return nil
	}
	return &id
}

// treeNode is a node as get_tree returns it.
type treeNode struct {
	Entry          session.Entry `json:"entry"`
	Children       []treeNode    `json:"children"`
	Label          string        `json:"label,omitempty"`
	LabelTimestamp string        `json:"labelTimestamp,omitempty"`
}

func treeNodes(nodes []*session.TreeNode) []treeNode {
	out := make([]treeNode, 0, len(nodes))
	// Depth first with an explicit stack: a long session is a deep tree.
	type frame struct {
		src []*session.TreeNode
		dst *[]treeNode
	}
	stack := []frame{{nodes, &out}}
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, n := range f.src {
			*f.dst = append(*f.dst, treeNode{Entry: n.Entry, Children: make([]treeNode, 0, len(n.Children)), Label: n.Label, LabelTimestamp: n.LabelAt})
		}
		for i, n := range f.src {
			if len(n.Children) > 0 {
				stack = append(stack, frame{n.Children, &(*f.dst)[i].Children})
			}
		}
	}
	return out
}

// sessionStats is get_session_stats' answer.
type sessionStats struct {
	SessionFile string `json:"sessionFile,omitempty"`
	SessionID   string `json:"sessionId"`
	session.Stats
	ContextUsage *contextUsage `json:"contextUsage,omitempty"`
}

type contextUsage struct {
	Tokens        *int     `json:"tokens"`
	ContextWindow int      `json:"contextWindow"`
	Percent       *float64 `json:"percent"`
}

func (s *Server) stats() sessionStats {
	rt := s.h.Runtime
	tr := rt.Transcript()
	out := sessionStats{SessionFile: tr.Path, SessionID: tr.Header.ID, Stats: tr.Stats()}
	window := rt.Route().ContextWindow
	if window <= 0 {
		return out
	}
	out.ContextUsage = &contextUsage{ContextWindow: window}
	branch := tr.Branch()
	if !answeredSinceCompaction(branch) {
		// The usage before a compaction no longer describes the
		// context; it is unknown until the next reply.
		return out
	}
	tokens := compact.ContextTokens(branch)
	percent := float64(tokens) / float64(window) * 100
	out.ContextUsage.Tokens, out.ContextUsage.Percent = &tokens, &percent
	return out
}

// answeredSinceCompaction reports whether an assistant reply with usage
// follows the latest compaction on the branch (true without one).
func answeredSinceCompaction(branch []session.Entry) bool {
	for i := len(branch) - 1; i >= 0; i-- {
		e := branch[i]
		switch {
		case e.Type == session.TypeCompaction:
			return false
		case e.Type == session.TypeMessage && e.Message.Role == "assistant" && e.Message.Usage != nil &&
			e.Message.StopReason != "error" && e.Message.StopReason != "aborted":
			return true
		}
	}
	return true
}
