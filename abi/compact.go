package abi

import (
	"encoding/json"
	"errors"
)

// HookSessionBeforeCompact runs before pi summarises the older part of a
// session (a compaction): the extension may let it go on, cancel it, or
// supply the summary itself.
const HookSessionBeforeCompact = "session_before_compact"

// ExportSessionBeforeCompact handles HookSessionBeforeCompact.
const ExportSessionBeforeCompact = "pi_session_before_compact"

// CompactPreparation is what pi chose to summarise: the messages of whole
// turns (MessagesToSummarize) and, when the cut falls inside a turn, that
// turn's beginning (TurnPrefixMessages), in the transcript's JSON form;
// the entry the kept part starts at; the context's size; the previous
// summary, folded into the new one; the files read and modified.
type CompactPreparation struct {
	FirstKeptEntryID    string            `json:"firstKeptEntryId"`
	MessagesToSummarize []json.RawMessage `json:"messagesToSummarize"`
	TurnPrefixMessages  []json.RawMessage `json:"turnPrefixMessages"`
	IsSplitTurn         bool              `json:"isSplitTurn"`
	TokensBefore        int               `json:"tokensBefore"`
	PreviousSummary     *string           `json:"previousSummary,omitempty"`
	ReadFiles           []string          `json:"readFiles"`
	ModifiedFiles       []string          `json:"modifiedFiles"`
}

// SessionBeforeCompactEvent is the event of HookSessionBeforeCompact.
// Reason is "manual", "threshold" or "overflow"; CustomInstructions is
// the focus given to /compact ("" for none); WillRetry says a failed
// request is retried after the compaction.
type SessionBeforeCompactEvent struct {
	Preparation        CompactPreparation `json:"preparation"`
	CustomInstructions string             `json:"customInstructions"`
	Reason             string             `json:"reason"`
	WillRetry          bool               `json:"willRetry"`
}

// CompactionSummary is a summary an extension supplies, stored as it is
// (pi appends no file lists). FirstKeptEntryID and TokensBefore default to
// the preparation's; a FirstKeptEntryID must name an entry of the active
// branch. The entry is marked as the extension's (fromHook), so its file
// lists are not carried into later compactions.
type CompactionSummary struct {
	Summary          string `json:"summary"`
	FirstKeptEntryID string `json:"firstKeptEntryId,omitempty"`
	TokensBefore     int    `json:"tokensBefore,omitempty"`
}

// SessionBeforeCompactResult is the result of HookSessionBeforeCompact:
// nothing (pi writes the summary), Cancel (no compaction now), or a
// Compaction with the summary to store.
type SessionBeforeCompactResult struct {
	Cancel     bool               `json:"cancel,omitempty"`
	Compaction *CompactionSummary `json:"compaction,omitempty"`
}

// Check refuses a result that is both a cancel and a summary, or a summary
// with no text.
func (r SessionBeforeCompactResult) Check() error {
	switch {
	case r.Cancel && r.Compaction != nil:
		return errors.New("both cancel and a compaction: choose one")
	case r.Compaction != nil && r.Compaction.Summary == "":
		return errors.New("a compaction with an empty summary")
	}
	return nil
}
