//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/piwasm/pi/internal/scripted"
)

// Prices at which a 100,000-token prompt is worth keeping warm between
// runs (ten times Anthropic's Sonnet prices), and at which it is not.
const (
	priceyCost = `{"input": 30, "output": 150, "cacheRead": 3, "cacheWrite": 37.5}`
	cheapCost  = `{"input": 0.3, "output": 1.5, "cacheRead": 0.03, "cacheWrite": 0.375}`
)

// warmModel serves replies as Anthropic's API from a model that declares an
// 11-second cache lifetime (so a refresh is due one second after a
// request) at the given prices, with cacheWarming set as given ("" leaves
// the default). Refreshes (max_tokens 1) are answered apart, so they do
// not use up the script; the log has every request in order.
func warmModel(t *testing.T, c *cli, cost, mode string, replies []scripted.Reply) *requestLog {
	t.Helper()
	log := &requestLog{script: &scripted.Server{Replies: replies}, warm: &scripted.Server{Fallback: "ok", FallbackPromptTokens: 100}}
	srv := httptest.NewServer(log)
	t.Cleanup(srv.Close)
	files := map[string]string{"models.json": `{"providers":{"mock":{"baseUrl":"` + srv.URL + `","api":"anthropic-messages","apiKey":"k",
		"models":[{"id":"mock-1","cost":` + cost + `,"promptCache":{"short":11}}]}}}`}
	if mode != "" {
		files["settings.json"] = `{"cacheWarming":"` + mode + `"}`
	}
	writeFiles(t, c.agentDir, files)
	return log
}

// requestLog passes a run's requests to the script and refreshes to warm.
type requestLog struct {
	script, warm *scripted.Server
	mu           sync.Mutex
	bodies       [][]byte
}

func (l *requestLog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	l.mu.Lock()
	l.bodies = append(l.bodies, body)
	l.mu.Unlock()
	r.Body = io.NopCloser(bytes.NewReader(body))
	var probe struct {
		MaxTokens int `json:"max_tokens"`
	}
	_ = json.Unmarshal(body, &probe)
	if probe.MaxTokens == 1 {
		l.warm.ServeHTTP(w, r)
		return
	}
	l.script.ServeHTTP(w, r)
}

// Requests are the bodies received so far, in order.
func (l *requestLog) Requests() [][]byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([][]byte(nil), l.bodies...)
}

// rpcProcess runs the test binary as pi in RPC mode, in its own process.
func rpcProcess(t *testing.T, c *cli) *rpcClient {
	t.Helper()
	cmd := exec.Command(os.Args[0], "--mode", "rpc")
	cmd.Env = append(os.Environ(), "PI_TEST_AS_PI=1", "PI_CODING_AGENT_DIR="+c.agentDir, "HOME="+c.home)
	cmd.Dir = c.home
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	rc := &rpcClient{t: t, in: in, records: make(chan map[string]any, 1024), done: make(chan int, 1)}
	go rc.read(out, func() {})
	t.Cleanup(func() {
		in.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	return rc
}

// bodies decodes the request bodies the model received.
func bodies(t *testing.T, s *requestLog) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, raw := range s.Requests() {
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

// A session left idle after a run on a model worth warming sends the run's
// last request again, capped at one output token, before the cache entry
// expires; its usage counts in the session's totals, and the conversation
// the next prompt sends does not carry it.
func TestCacheWarmingRefreshesAnIdleSession(t *testing.T) {
	c := newCLI(t)
	s := warmModel(t, c, priceyCost, "", []scripted.Reply{
		{Text: "First answer.", PromptTokens: 100, CacheWrite: 100000},
		{Text: "Second answer.", PromptTokens: 100, CacheRead: 100000},
	})
	rc := rpcProcess(t, c)
	rc.send(`{"id":"p1","type":"prompt","message":"hello"}`)
	rc.response("p1")
	rc.event("agent_settled")
	appended := rc.event("entry_appended")
	entry, _ := appended["entry"].(map[string]any)
	// The model the reply named (the scripted server says "scripted"), as the established harness records it.
	if entry["type"] != "usage" || entry["kind"] != "cache_warm" || entry["provider"] != "mock" || entry["model"] != "scripted" {
		t.Fatalf("entry_appended: %v", appended)
	}
	got := bodies(t, s)
	if len(got) < 2 {
		t.Fatalf("%d requests, want the run's and a refresh", len(got))
	}
	real, refresh := got[0], got[1]
	if refresh["max_tokens"] != float64(1) {
		t.Errorf("refresh max_tokens = %v, want 1", refresh["max_tokens"])
	}
	// Apart from the cap the refresh is the request itself, so the
	// provider finds its cached prefix.
	refresh["max_tokens"] = real["max_tokens"]
	a, _ := json.Marshal(real)
	b, _ := json.Marshal(refresh)
	if !bytes.Equal(a, b) {
		t.Errorf("the refresh differs from the request:\n%s\n%s", a, b)
	}
	rc.send(`{"id":"st","type":"get_session_stats"}`)
	stats := rc.response("st")["data"].(map[string]any)
	tokens := stats["tokens"].(map[string]any)
	// The run's 100 input tokens and the refresh's 100 (at least one).
	if in := tokens["input"].(float64); in < 200 {
		t.Errorf("session input tokens %v: the refresh is not counted", in)
	}
	if cost := stats["cost"].(float64); cost <= 0 {
		t.Errorf("session cost %v: the model's prices were not applied", cost)
	}
	n := len(s.Requests())
	rc.send(`{"id":"p2","type":"prompt","message":"again"}`)
	rc.response("p2")
	rc.until("the second answer", func(r map[string]any) bool {
		return r["type"] == "message_end" && strings.Contains(toJSON(r), "Second answer.")
	})
	var next map[string]any
	for _, b := range bodies(t, s)[n:] {
		if b["max_tokens"] != float64(1) {
			next = b
		}
	}
	if msgs := next["messages"].([]any); len(msgs) != 3 {
		t.Errorf("the next request carries %d messages, want user, assistant, user: %v", len(msgs), msgs)
	}
}

// Nothing is sent after the run with cacheWarming "off", with "streaming",
// or on a model whose prices do not make a refresh worth it; the same
// session with the default and the same prices is refreshed.
func TestCacheWarmingOnlyWhenWorthIt(t *testing.T) {
	for _, c := range []struct {
		name, cost, mode string
		warm             bool
	}{
		{"default", priceyCost, "", true},
		{"off", priceyCost, "off", false},
		{"streaming", priceyCost, "streaming", false},
		{"cheap model", cheapCost, "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cl := newCLI(t)
			s := warmModel(t, cl, c.cost, c.mode, []scripted.Reply{{Text: "Only answer.", PromptTokens: 100, CacheWrite: 100000}})
			rc := rpcProcess(t, cl)
			rc.send(`{"id":"p1","type":"prompt","message":"hello"}`)
			rc.response("p1")
			rc.event("agent_settled")
			settled := len(s.Requests())
			if c.warm {
				// Due a second after the request; a loaded machine may
				// take longer to get there.
				for deadline := time.Now().Add(30 * time.Second); len(s.Requests()) < 2; time.Sleep(50 * time.Millisecond) {
					if time.Now().After(deadline) {
						t.Fatalf("no refresh within 30 seconds")
					}
				}
				return
			}
			// Three seconds leave a refresh due after one time to come.
			// (With "streaming" a run slowed past a second by a loaded
			// machine may rightly refresh before it settles.)
			time.Sleep(3 * time.Second)
			if n := len(s.Requests()); n != settled || (c.mode != "streaming" && n != 1) {
				t.Errorf("%d requests, %d when the run settled; want only the run's", n, settled)
			}
		})
	}
}

// Print mode warms only while its run works (a tool outlasting the refresh
// delay), as the established harness does, and sends nothing once the
// run is over: pi exits.
func TestCacheWarmingInPrintMode(t *testing.T) {
	c := newCLI(t)
	s := warmModel(t, c, priceyCost, "", []scripted.Reply{
		{Calls: []scripted.Call{{ID: "c1", Name: "bash", Args: json.RawMessage(`{"command":"sleep 3"}`)}}, PromptTokens: 100, CacheWrite: 100000},
		{Text: "Done.", PromptTokens: 100, CacheRead: 100000},
	})
	out, errOut, code := c.runPi(nil, "-p", "wait a little")
	if code != 0 || !strings.Contains(out, "Done.") {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	got := bodies(t, s)
	refreshes := 0
	for _, b := range got {
		if b["max_tokens"] == float64(1) {
			refreshes++
		}
	}
	if refreshes == 0 || len(got) != 2+refreshes {
		t.Errorf("%d requests, %d of them refreshes: want the run's two and a refresh during the tool", len(got), refreshes)
	}
	time.Sleep(1500 * time.Millisecond)
	if n := len(s.Requests()); n != len(got) {
		t.Errorf("%d requests after pi exited", n-len(got))
	}
}
