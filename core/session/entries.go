package session

import (
	"encoding/json"
	"fmt"

	"github.com/piwasm/pi/core/prompt"
)

// readTreeFields reads the fields of the established harness's context
// entries (compaction, branch_summary, custom_message, context_edit, label,
// session_info). A field of the wrong shape is an error, so the line is
// reported and skipped rather than half-read.
func (e *Entry) readTreeFields(w *wireEntry) error {
	switch w.Type {
	case TypeCompaction, TypeBranchSummary:
		if w.Summary != nil {
			e.Summary = *w.Summary
		}
		e.FirstKeptEntryID, e.FromID = w.FirstKeptEntryID, w.FromID
		if w.TokensBefore != nil {
			e.TokensBefore = *w.TokensBefore
		}
		e.SystemMessage, e.Usage = w.SystemMessage, w.Usage
		e.FromHook = w.FromHook != nil && *w.FromHook
		if len(w.Details) > 0 && string(w.Details) != "null" {
			var f FileLists
			// Details an extension supplied may have any shape: only
			// file lists are read, anything else is left in Raw.
			if json.Unmarshal(w.Details, &f) == nil {
				e.Files = &f
			}
		}
	case TypeCustomMessage:
		e.CustomType, e.Content = w.CustomType, w.Content
		e.Display = w.Display != nil && *w.Display
	case TypeContextEdit:
		e.TargetID = w.TargetID
		if len(w.Replacement) > 0 && string(w.Replacement) != "null" {
			var r struct {
				Content prompt.Content `json:"content"`
			}
			if err := json.Unmarshal(w.Replacement, &r); err != nil {
				return fmt.Errorf("context_edit replacement: %w", err)
			}
			e.Replacement = &r.Content
		}
	case TypeLabel:
		e.TargetID = w.TargetID
		if w.Label != nil {
			e.Label = *w.Label
		}
	case TypeSessionInfo:
		if w.Name != nil {
			e.Name = *w.Name
		}
	case TypeUsage:
		e.UsageKind, e.ModelID, e.Usage, e.Note = w.Kind, w.Model, w.Usage, w.Note
	}
	return nil
}

// writeTreeFields is readTreeFields the other way, for entries pi writes.
func (e Entry) writeTreeFields(w *wireEntry) {
	switch e.Type {
	case TypeCompaction, TypeBranchSummary:
		summary := e.Summary
		w.Summary = &summary
		w.Usage = e.Usage
		fromHook := e.FromHook
		w.FromHook = &fromHook
		if e.Files != nil {
			f := *e.Files
			if f.ReadFiles == nil {
				f.ReadFiles = []string{}
			}
			if f.ModifiedFiles == nil {
				f.ModifiedFiles = []string{}
			}
			w.Details, _ = json.Marshal(f)
		}
		if e.Type == TypeCompaction {
			tokens := e.TokensBefore
			w.FirstKeptEntryID, w.TokensBefore, w.SystemMessage = e.FirstKeptEntryID, &tokens, e.SystemMessage
		} else {
			w.FromID = e.FromID
		}
	case TypeCustomMessage:
		w.CustomType, w.Content = e.CustomType, e.Content
		display := e.Display
		w.Display = &display
	case TypeContextEdit:
		w.TargetID = e.TargetID
		w.Replacement = json.RawMessage("null")
		if e.Replacement != nil {
			w.Replacement, _ = json.Marshal(struct {
				Content prompt.Content `json:"content"`
			}{*e.Replacement})
		}
	case TypeLabel:
		// A label entry without a label clears it, written (as the
		// established harness writes it) without the key.
		w.TargetID = e.TargetID
		if label := e.Label; label != "" {
			w.Label = &label
		}
	case TypeSessionInfo:
		name := e.Name
		w.Name = &name
	case TypeUsage:
		w.Kind, w.Provider, w.Model, w.Usage, w.Note = e.UsageKind, e.Provider, e.ModelID, e.Usage, e.Note
	}
}
