package session

import (
	"bytes"
	"encoding/json"
	"testing"
)

func FuzzParseSession(f *testing.F) {
	f.Add([]byte(`{"type":"session","version":1,"id":"a","cwd":"/","timestamp":"t"}
{"type":"message","message":{"role":"system","content":"","sections":{"a":"1"},"timestamp":1}}
{"type":"projection","commits":[{"op":"append","seq":0,"text":"1"}]}
{"type":"message","message":{"role":"user","content":"hi","timestamp":2}}
{"type":"request","route":"m/x"}
{"type":"custom","x":1}
{"type":"message","message":{"ro`))
	// Another harness's system message: a system node without a commit.
	f.Add([]byte("{\"tYpe\":\"session\"}\n{\"tYpe\":\"message\",\"messAge\":{\"role\":\"system\"}}\n{\"tYpe\":\"message\",\"messAge\":{}}"))
	f.Add([]byte("{\"type\":\"session\"}\n\n\n{\"type\":\"projection\",\"commits\":[{\"op\":\"replace\",\"seq\":99,\"text\":\"\"}]}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := Parse(data)
		if err != nil {
			return
		}
		// Every entry survives a write and a re-read unchanged.
		var buf bytes.Buffer
		h, _ := json.Marshal(tr.Header)
		buf.Write(h)
		buf.WriteByte('\n')
		for _, e := range tr.Snapshot() {
			b, err := json.Marshal(e)
			if err != nil {
				t.Fatalf("marshal entry: %v", err)
			}
			buf.Write(b)
			buf.WriteByte('\n')
		}
		again, err := Parse(buf.Bytes())
		if err != nil {
			t.Fatalf("re-read: %v", err)
		}
		if len(again.Snapshot()) != len(tr.Snapshot()) || len(again.Problems) != 0 {
			t.Fatalf("round trip lost entries: %d -> %d, problems %+v", len(tr.Snapshot()), len(again.Snapshot()), again.Problems)
		}
		// Replaying never panics and never yields more system nodes than
		// projection commits, plus the one head slot another harness's
		// system messages (or a compaction's copy of them) take.
		commits := 0
		for _, e := range tr.Snapshot() {
			commits += len(e.Commits)
		}
		nodes := SystemNodes(History(tr.Snapshot()))
		if len(nodes) > commits+1 {
			t.Fatalf("%d system nodes from %d commits", len(nodes), commits)
		}
		for k := 0; ; k++ {
			if _, ok := RequestAt(tr.Snapshot(), k); !ok {
				break
			}
		}
	})
}
