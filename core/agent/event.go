package agent

import (
	"bytes"
	"encoding/json"

	"github.com/piwasm/pi/core/prompt"
	"github.com/piwasm/pi/core/tool"
)

// Event types, as the established harness names them.
const (
	AgentStart          = "agent_start"
	AgentEnd            = "agent_end"
	TurnStart           = "turn_start"
	TurnEnd             = "turn_end"
	MessageStart        = "message_start"
	MessageUpdate       = "message_update"
	MessageEnd          = "message_end"
	ToolExecutionStart  = "tool_execution_start"
	ToolExecutionUpdate = "tool_execution_update"
	ToolExecutionEnd    = "tool_execution_end"
	AutoRetryStart      = "auto_retry_start"
	AutoRetryEnd        = "auto_retry_end"
	QueueUpdate         = "queue_update"
	// CompactionStart and CompactionEnd bracket a compaction; Reason is
	// "manual", "threshold" or "overflow".
	CompactionStart = "compaction_start"
	CompactionEnd   = "compaction_end"
	// A failed summary request (compaction or branch summary) is tried
	// again: Scheduled before the wait (Attempt, MaxAttempts, DelayMs,
	// ErrorMessage), AttemptStart when it is sent again (Source
	// "compaction" with its Reason, or "branchSummary"), Finished once
	// when the retrying is over.
	SummarizationRetryScheduled    = "summarization_retry_scheduled"
	SummarizationRetryAttemptStart = "summarization_retry_attempt_start"
	SummarizationRetryFinished     = "summarization_retry_finished"
	// AgentSettled: the session will not go on by itself (no queued
	// messages left); Aborted says whether the run was stopped.
	AgentSettled = "agent_settled"
	// EntryAppended: the session recorded an entry outside a run's
	// messages (a prompt-cache refresh's usage); Entry is its line.
	EntryAppended = "entry_appended"
)

// Delta is one piece of a streaming assistant message (the established
// harness's assistantMessageEvent, without cumulative snapshots).
//
// Type is text_start, text_delta, text_end, thinking_start,
// thinking_delta, thinking_end, toolcall_start, toolcall_delta or
// toolcall_end. ContentIndex is the block the piece belongs to; Delta the
// appended text or argument fragment; Content a finished block's text; ID
// and ToolName name a starting tool call; ToolCall is the finished call.
type Delta struct {
	Type         string
	ContentIndex int
	Delta        string
	Content      string
	ID           string
	ToolName     string
	ToolCall     *prompt.Block
}

// MarshalJSON writes exactly the fields the type carries.
func (d Delta) MarshalJSON() ([]byte, error) {
	w := newObj(d.Type)
	w.field("contentIndex", d.ContentIndex)
	switch d.Type {
	case "text_delta", "thinking_delta", "toolcall_delta":
		w.field("delta", d.Delta)
	case "text_end", "thinking_end":
		w.field("content", d.Content)
	case "toolcall_start":
		w.field("id", d.ID)
		w.field("toolName", d.ToolName)
	case "toolcall_end":
		w.field("toolCall", d.ToolCall)
	}
	return w.close()
}

// Event is one record of the stream every mode consumes: JSON mode prints
// it, the terminal UI draws it. Only the fields of its Type are set.
type Event struct {
	Type string

	// message_start, message_end, turn_end (the assistant message)
	Message *prompt.Message
	// message_update
	Delta *Delta
	Usage *prompt.Usage
	// turn_end
	ToolResults []prompt.Message
	// agent_end
	Messages []prompt.Message
	// tool_execution_*
	ToolCallID string
	ToolName   string
	Args       json.RawMessage
	Result     *tool.Result
	IsError    bool
	// DurationMs is how long the tool ran; negative when it did not run.
	DurationMs int64
	// auto_retry_*, summarization_retry_scheduled
	Attempt, MaxAttempts int
	DelayMs              int64
	ErrorMessage         string
	Success              bool
	// queue_update
	Steering, FollowUp []string
	// agent_settled, compaction_end
	Aborted bool
	// agent_end, compaction_end: the run (or prompt) is tried again
	// after a compaction.
	WillRetry bool
	// compaction_*
	Reason     string
	Compaction *CompactionResult
	// summarization_retry_attempt_start: "compaction" or "branchSummary"
	Source string
	// entry_appended
	Entry json.RawMessage
}

// CompactionResult is a finished compaction as compaction_end and RPC
// compact report it.
type CompactionResult struct {
	Summary              string        `json:"summary"`
	FirstKeptEntryID     string        `json:"firstKeptEntryId"`
	TokensBefore         int           `json:"tokensBefore"`
	EstimatedTokensAfter int           `json:"estimatedTokensAfter"`
	Usage                *prompt.Usage `json:"usage,omitempty"`
	Details              any           `json:"details,omitempty"`
}

// MarshalJSON writes the event in the established harness's JSON-mode
// shape: the type first, then exactly the fields of that type.
func (e Event) MarshalJSON() ([]byte, error) {
	w := newObj(e.Type)
	switch e.Type {
	case MessageStart, MessageEnd:
		w.field("message", e.Message)
	case MessageUpdate:
		u := e.Usage
		if u == nil {
			u = &prompt.Usage{}
		}
		w.field("usage", u)
		w.field("assistantMessageEvent", e.Delta)
	case TurnEnd:
		w.field("message", e.Message)
		w.field("toolResults", nonNil(e.ToolResults))
	case AgentEnd:
		w.field("messages", nonNil(e.Messages))
		w.field("willRetry", e.WillRetry)
	case ToolExecutionStart:
		w.field("toolCallId", e.ToolCallID)
		w.field("toolName", e.ToolName)
		w.field("args", rawOrEmpty(e.Args))
	case ToolExecutionUpdate:
		w.field("toolCallId", e.ToolCallID)
		w.field("toolName", e.ToolName)
		w.field("args", rawOrEmpty(e.Args))
		w.field("partialResult", e.Result)
	case ToolExecutionEnd:
		w.field("toolCallId", e.ToolCallID)
		w.field("toolName", e.ToolName)
		w.field("result", e.Result)
		w.field("isError", e.IsError)
		if e.DurationMs >= 0 {
			w.field("durationMs", e.DurationMs)
		}
	case AutoRetryStart:
		w.field("attempt", e.Attempt)
		w.field("maxAttempts", e.MaxAttempts)
		w.field("delayMs", e.DelayMs)
		w.field("errorMessage", e.ErrorMessage)
	case SummarizationRetryScheduled:
		w.field("attempt", e.Attempt)
		w.field("maxAttempts", e.MaxAttempts)
		w.field("delayMs", e.DelayMs)
		w.field("errorMessage", e.ErrorMessage)
	case SummarizationRetryAttemptStart:
		w.field("source", e.Source)
		if e.Reason != "" {
			w.field("reason", e.Reason)
		}
	case AutoRetryEnd:
		w.field("success", e.Success)
		w.field("attempt", e.Attempt)
		if !e.Success {
			w.field("finalError", e.ErrorMessage)
		}
	case QueueUpdate:
		w.field("steering", nonNilS(e.Steering))
		w.field("followUp", nonNilS(e.FollowUp))
	case AgentSettled:
		w.field("aborted", e.Aborted)
	case EntryAppended:
		w.field("entry", rawOrEmpty(e.Entry))
	case CompactionStart:
		w.field("reason", e.Reason)
	case CompactionEnd:
		w.field("reason", e.Reason)
		if e.Compaction != nil {
			w.field("result", e.Compaction)
		}
		w.field("aborted", e.Aborted)
		w.field("willRetry", e.WillRetry)
		if e.ErrorMessage != "" {
			w.field("errorMessage", e.ErrorMessage)
		}
	}
	return w.close()
}

func nonNil(m []prompt.Message) []prompt.Message {
	if m == nil {
		return []prompt.Message{}
	}
	return m
}

func nonNilS(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func rawOrEmpty(r json.RawMessage) json.RawMessage {
	if len(r) == 0 {
		return json.RawMessage(`{}`)
	}
	return r
}

// obj writes a JSON object field by field, keeping the order the
// established harness uses (encoding/json would sort map keys and cannot
// omit by type).
type obj struct {
	buf bytes.Buffer
	err error
}

func newObj(typ string) *obj {
	o := &obj{}
	o.buf.WriteString(`{"type":`)
	b, _ := json.Marshal(typ)
	o.buf.Write(b)
	return o
}

func (o *obj) field(name string, v any) {
	if o.err != nil {
		return
	}
	b, err := marshal(v)
	if err != nil {
		o.err = err
		return
	}
	o.buf.WriteString(`,"`)
	o.buf.WriteString(name)
	o.buf.WriteString(`":`)
	o.buf.Write(b)
}

func (o *obj) close() ([]byte, error) {
	if o.err != nil {
		return nil, o.err
	}
	o.buf.WriteByte('}')
	return o.buf.Bytes(), nil
}

// marshal encodes without HTML escaping, as JSON.stringify does, so the
// stream carries "<" and "&" as they are.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}
