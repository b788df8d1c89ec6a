package prompt

// Node is a system message already in the request history: its position
// (sequence number) and its text; a nil Text marks multi-block or non-text
// content, which counts as active and never equals a rendered string.
type Node struct {
	Seq  int     `json:"seq"`
	Text *string `json:"text"`
}

// Commit is one change to the request history: append a new system message,
// or replace the content of the node at Seq.
type Commit struct {
	Op   string `json:"op"`
	Seq  int    `json:"seq,omitempty"`
	Text string `json:"text"`
}

// Commit operations.
const (
	OpAppend  = "append"
	OpReplace = "replace"
)

func (n Node) active() bool { return n.Text == nil || *n.Text != "" }

func (n Node) equals(s string) bool { return n.Text != nil && *n.Text == s }

// Decide is how a newly rendered prompt enters the request history. nodes are
// the system messages already there, in order; inHistory says whether the
// route accepts system messages mid-conversation; startsSeries whether this
// request starts a new cached series (after compaction or a tool change).
//
//   - No node yet: append one, even empty, to reserve the slot.
//   - Route not capable, a new series, or an empty prompt: normalize. Later
//     active nodes are emptied (latest first), then the head takes the full
//     text unless it already has it.
//   - Capable and continuing: nothing when the latest non-empty node (the head
//     if none) already says the same, else append.
func Decide(nodes []Node, rendered string, inHistory, startsSeries bool) []Commit {
	if len(nodes) == 0 {
		return []Commit{{Op: OpAppend, Text: rendered}}
	}
	if !inHistory || startsSeries || rendered == "" {
		var out []Commit
		for i := len(nodes) - 1; i >= 1; i-- {
			if nodes[i].active() {
				out = append(out, Commit{Op: OpReplace, Seq: nodes[i].Seq, Text: ""})
			}
		}
		if !nodes[0].equals(rendered) {
			out = append(out, Commit{Op: OpReplace, Seq: nodes[0].Seq, Text: rendered})
		}
		return out
	}
	latest := nodes[0]
	for i := len(nodes) - 1; i >= 0; i-- {
		if nodes[i].active() {
			latest = nodes[i]
			break
		}
	}
	if latest.equals(rendered) {
		return nil
	}
	return []Commit{{Op: OpAppend, Text: rendered}}
}
