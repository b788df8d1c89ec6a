package provider

import (
	"bytes"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"
)

// chunkReader hands out data in pieces of the given sizes (cycling), so a
// parse sees frames split at arbitrary points.
type chunkReader struct {
	data  []byte
	sizes []byte
	i     int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := 1
	if len(c.sizes) > 0 {
		n = int(c.sizes[c.i%len(c.sizes)])%64 + 1
		c.i++
	}
	n = min(n, len(p), len(c.data))
	copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

func parseEvents(t *testing.T, r io.Reader) []sseEvent {
	t.Helper()
	evs, err := readAll(t, r)
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	return evs
}

// FuzzSSE checks that the reader never panics, that how the input is cut
// into reads never changes the events, and that data written as SSE comes
// back whole: payloads separated by NUL are encoded one data line per line
// and must be returned with their line breaks normalised to "\n".
func FuzzSSE(f *testing.F) {
	f.Add([]byte("data: a\n\ndata: b\r\ndata: c\r\n\r\n: c\nevent: x\ndata: [DONE]\n\n"), []byte{3, 1, 7})
	f.Add([]byte("\xef\xbb\xbfdata:x\rdata: y\r\r"), []byte{0})
	f.Add([]byte("hello\x00multi\nline\r\npayload\x00\x00 lead space\x00trail\r"), []byte{1, 2})
	f.Add([]byte(anthropicReply), []byte{5})
	f.Fuzz(func(t *testing.T, input, sizes []byte) {
		whole := parseEvents(t, bytes.NewReader(input))
		split := parseEvents(t, &chunkReader{data: input, sizes: sizes})
		if !reflect.DeepEqual(whole, split) {
			t.Fatalf("split reads changed the events:\nwhole %#v\nsplit %#v", whole, split)
		}

		payloads := strings.Split(string(input), "\x00")
		if len(payloads) > 50 {
			payloads = payloads[:50]
		}
		var stream strings.Builder
		want := make([]string, len(payloads))
		for i, p := range payloads {
			lines := strings.Split(strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(p), "\n")
			want[i] = strings.Join(lines, "\n")
			if i%2 == 1 {
				stream.WriteString(": comment\r\nevent: e\r\n")
			}
			for _, l := range lines {
				stream.WriteString("data: " + l + "\n")
			}
			stream.WriteString("\n")
		}
		evs := parseEvents(t, &chunkReader{data: []byte(stream.String()), sizes: sizes})
		if len(evs) != len(want) {
			t.Fatalf("got %d events, want %d", len(evs), len(want))
		}
		for i, ev := range evs {
			if ev.Data != want[i] {
				t.Fatalf("event %d: data %q, want %q", i, ev.Data, want[i])
			}
		}
	})
}

// FuzzModelsJSON checks that parsing and resolving arbitrary models.json
// content never panics, that a resolved route is the model asked for, that
// only OpenAI-style routes whose compat says so claim mid-history system
// messages, and that selection, scoping and listing never panic.
func FuzzModelsJSON(f *testing.F) {
	seed, _ := os.ReadFile("testdata/models.json")
	f.Add(seed, "ollama/qwen")
	f.Add([]byte(`{"providers":{"openai":{"models":[{"id":"gpt"}]},"a/b":{"baseUrl":"x","api":"anthropic-messages","models":[{"id":"c"}]}}}`), "gpt:high")
	f.Add([]byte(`{"providers":{"p":{"apiKey":"$K","headers":{"h":"${K}"},"models":[{"id":"m","api":"openai-completions","baseUrl":"http://h"}]}}}`), "*")
	f.Add([]byte(`{"providers":{"":{"models":[{"id":"/"}]}}}`), "/")
	f.Add([]byte(`{"providers":{"p":{"baseUrl":"http://h","api":"openai-responses","apiKey":"!echo k","compat":{"supportsMidConvoSystemMessages":true},
		"models":[{"id":"m","reasoning":true,"thinkingLevelMap":{"high":null,"off":"none"},"samplingParams":{"top_k":1},"samplingParamsByThinkingLevel":{"low":{"top_k":2}}}]}}, // c
		}`), "p/m:low")
	f.Add([]byte(`{"providers":{"google":{"modelOverrides":{"gemini-4":{"reasoning":true}}},"azure":{"baseUrl":"https://r.openai.azure.com","models":[{"id":"d","api":"openai-completions"}]}}}`), "google/gemini-4:max")
	env := fakeEnv(map[string]string{"K": "v"})
	f.Fuzz(func(t *testing.T, data []byte, pattern string) {
		m, err := ParseModels(data, env)
		if err != nil {
			return
		}
		m.values.noCommands = true
		specs := append(m.Specs(), "", "openai/x", "anthropic/x", "x", pattern)
		for _, spec := range specs {
			r, err := m.Resolve(spec)
			if err != nil {
				continue
			}
			if p, id, ok := strings.Cut(strings.TrimSpace(spec), "/"); ok && r.Provider == p && !strings.EqualFold(r.ModelID, strings.TrimSpace(id)) && p != "azure" {
				t.Fatalf("Resolve(%q) gave model %q", spec, r.ModelID)
			}
			if r.AcceptsSystemInHistory() && (r.Compat == nil || !r.Compat.MidConvoSystemMessages) {
				t.Fatalf("Resolve(%q): claims system messages in history without compat", spec)
			}
			if r.Thinking != "" && !r.Reasoning {
				t.Fatalf("Resolve(%q): thinking %q on a model without reasoning", spec, r.Thinking)
			}
			_, _ = r.Endpoint()
			_, _ = DescribeRequest(r)
			_, _ = DryRun(r, Request{Messages: []Message{{Role: RoleSystem, Content: "s"}, {Role: RoleUser, Content: "x"}}})
		}
		_, _ = m.Select(Selection{Model: pattern})
		_, _ = m.Scope(strings.Split(pattern, ","))
		_ = FormatModelList(m.ListModels(pattern))
	})
}
