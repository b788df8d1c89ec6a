package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"

	"github.com/piwasm/pi/internal/scripted"
)

// TestAssistantMessageFieldsAsPeer: the assistant message pi reports in
// JSON mode (message_end) has the members the established harness's has,
// in its order, with its values — the response id and the model that
// answered, the raw stop reason, the reasoning tokens, whether the
// provider billed the total, the thinking level — for each API the
// scripted model speaks; only the timestamp and the duration differ. The
// content is left out of the comparison.
func TestAssistantMessageFieldsAsPeer(t *testing.T) {
	node, peerCLI := peerHarness(t)
	for _, api := range []string{"openai-completions", "openai-responses", "anthropic-messages"} {
		t.Run(api, func(t *testing.T) {
			c := newCLI(t)
			s := &scripted.Server{Fallback: "one", Restart: true}
			srv := httptest.NewServer(s)
			t.Cleanup(srv.Close)
			writeFiles(t, c.agentDir, map[string]string{
				"models.json": `{"providers":{"mock":{"baseUrl":"` + srv.URL + `/v1","api":"` + api + `","apiKey":"k","models":[{"id":"m"}]}}}`,
			})
			args := []string{"--mode", "json", "-p", "--no-session", "--model", "mock/m", "hi"}
			out, stderr, code := c.run(args...)
			if code != 0 {
				t.Fatalf("pi: exit %d\n%s", code, stderr)
			}
			cmd := exec.Command(node, append([]string{peerCLI}, args...)...)
			cmd.Dir = c.home
			cmd.Env = c.peerEnv()
			peerOut, err := cmd.Output()
			if err != nil {
				t.Fatalf("the established harness: %v", err)
			}
			got, want := assistantEnd(t, out), assistantEnd(t, string(peerOut))
			if got != want {
				t.Errorf("message_end differs\n  pi: %s\npeer: %s", got, want)
			}
		})
	}
}

// assistantEnd is the message of the last assistant message_end in a
// JSON-mode stream, its members in order, with the timestamp and the
// duration (which differ from run to run) blanked.
func assistantEnd(t *testing.T, stream string) string {
	t.Helper()
	var last string
	sc := bufio.NewScanner(strings.NewReader(stream))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var ev struct {
			Type    string          `json:"type"`
			Message json.RawMessage `json:"message"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Type != "message_end" || !bytes.Contains(ev.Message, []byte(`"role":"assistant"`)) {
			continue
		}
		last = string(ev.Message)
	}
	if last == "" {
		t.Fatalf("no assistant message_end in:\n%s", stream)
	}
	var b strings.Builder
	dec := json.NewDecoder(strings.NewReader(last))
	blank := false
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch v := tok.(type) {
		case json.Delim:
			b.WriteString(v.String())
		case string:
			if blank {
				b.WriteString("_ ")
				blank = false
				continue
			}
			b.WriteString(v)
			b.WriteString(" ")
		default:
			if blank {
				b.WriteString("_ ")
				blank = false
				continue
			}
			fmt.Fprintf(&b, "%v ", v)
		}
		if s, ok := tok.(string); ok && dec.More() && (s == "timestamp" || s == "durationMs") {
			blank = true
		}
		if s, ok := tok.(string); ok && s == "content" && !blank {
			// The content blocks are compared elsewhere (the Responses
			// API's text signatures are not kept by pi yet).
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				break
			}
			b.WriteString("_ ")
		}
	}
	return b.String()
}
