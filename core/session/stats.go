package session

import (
	"github.com/piwasm/pi/core/prompt"
)

// Stats are a session's counts and spend over every entry of the file
// (abandoned branches and compacted history included: what was billed),
// in the established harness's get_session_stats shape.
type Stats struct {
	UserMessages      int         `json:"userMessages"`
	AssistantMessages int         `json:"assistantMessages"`
	ToolCalls         int         `json:"toolCalls"`
	ToolResults       int         `json:"toolResults"`
	TotalMessages     int         `json:"totalMessages"`
	Tokens            TokenTotals `json:"tokens"`
	Cost              float64     `json:"cost"`
}

// TokenTotals sums usage by kind.
type TokenTotals struct {
	Input      int `json:"input"`
	Output     int `json:"output"`
	CacheRead  int `json:"cacheRead"`
	CacheWrite int `json:"cacheWrite"`
	Total      int `json:"total"`
}

func (s *Stats) add(u *prompt.Usage) {
	if u == nil {
		return
	}
	s.Tokens.Input += u.Input
	s.Tokens.Output += u.Output
	s.Tokens.CacheRead += u.CacheRead
	s.Tokens.CacheWrite += u.CacheWrite
	s.Cost += u.Cost.Total
}

// Stats counts the session's messages and sums its usage: assistant
// replies, usage a tool result reports, summaries' generation, and the
// established harness's usage entries (cache warming). The file is only
// ever appended to, so the sums are kept as entries are added (see
// Transcript.add) and nothing is read back.
func (t *Transcript) Stats() Stats {
	t.mu.Lock()
	s := t.stats
	t.mu.Unlock()
	s.Tokens.Total = s.Tokens.Input + s.Tokens.Output + s.Tokens.CacheRead + s.Tokens.CacheWrite
	return s
}

// count adds an entry of the file to the counts and sums.
func (s *Stats) count(e *Entry) {
	switch e.Type {
	case TypeUsage, TypeBranchSummary, TypeCompaction:
		s.add(e.Usage)
	case TypeMessage:
		// Every message entry counts, system ones (the prompt
		// records) included, as the established harness counts them.
		m := e.Message
		if m == nil {
			return
		}
		s.TotalMessages++
		switch m.Role {
		case "user":
			s.UserMessages++
		case "toolResult":
			s.ToolResults++
			s.add(m.Usage)
		case "assistant":
			s.AssistantMessages++
			for _, b := range m.Content.Blocks {
				if b.Type == "toolCall" {
					s.ToolCalls++
				}
			}
			s.add(m.Usage)
		}
	}
}

// AppendUsage records usage billed outside the conversation (kind
// UsageCacheWarm for a prompt-cache refresh) as the established harness's
// usage entry: it counts in Stats and never reaches a request.
func (t *Transcript) AppendUsage(kind, provider, model string, u prompt.Usage, note string) (Entry, error) {
	return t.appendEntry(Entry{Type: TypeUsage, UsageKind: kind, Provider: provider, ModelID: model, Usage: &u, Note: note})
}
