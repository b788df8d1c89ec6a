package promptcache

import (
	"context"
	"math"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/piwasm/pi/core/provider"
)

// fakeClock fires timers when the test moves time on.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
}

type fakeTimer struct {
	at      time.Time
	f       func()
	stopped bool
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) AfterFunc(d time.Duration, f func()) func() {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{at: c.now.Add(d), f: f}
	c.timers = append(c.timers, t)
	return func() {
		c.mu.Lock()
		t.stopped = true
		c.mu.Unlock()
	}
}

// advance moves the clock to now+d, firing each timer due on the way at
// its own time, in order.
func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	end := c.now.Add(d)
	c.mu.Unlock()
	for {
		c.mu.Lock()
		sort.Slice(c.timers, func(i, j int) bool { return c.timers[i].at.Before(c.timers[j].at) })
		var next *fakeTimer
		for i, t := range c.timers {
			if !t.stopped && !t.at.After(end) {
				next = t
				c.timers = append(c.timers[:i], c.timers[i+1:]...)
				break
			}
		}
		if next == nil {
			c.now = end
			c.mu.Unlock()
			return
		}
		c.now = next.at
		c.mu.Unlock()
		next.f()
	}
}

// pricey costs enough that a 500,000-token prompt is worth keeping warm
// while idle (Anthropic's Sonnet prices).
var pricey = &provider.ModelCost{Rates: provider.Rates{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}}

type harness struct {
	clock   *fakeClock
	w       *Warmer
	mode    string
	current bool
	prompt  int
	sent    []provider.Request
	sentAt  []time.Duration
	records []string
	decide  func(Decision) string
	start   time.Time
}

func newHarness(mode string) *harness {
	h := &harness{clock: &fakeClock{now: time.Unix(1_000_000, 0)}, mode: mode, current: true, prompt: 500000}
	h.start = h.clock.now
	h.w = New(Config{
		Mode: func() string { return h.mode },
		Send: func(_ context.Context, _ provider.Route, req provider.Request) (provider.Response, error) {
			h.sent = append(h.sent, req)
			h.sentAt = append(h.sentAt, h.clock.Now().Sub(h.start))
			return provider.Response{StopReason: provider.StopReasonStop, Usage: provider.Usage{InputTokens: 3, CacheReadTokens: h.prompt, OutputTokens: 1}}, nil
		},
		Record:       func(_ provider.Route, _ provider.Response, note string) { h.records = append(h.records, note) },
		PromptTokens: func() int { return h.prompt },
		Decide: func(d Decision) string {
			if h.decide != nil {
				return h.decide(d)
			}
			return d.Action
		},
		Clock: h.clock,
	})
	return h
}

func (h *harness) request(ttl float64, cost *provider.ModelCost) Request {
	return Request{
		Route:   provider.Route{Provider: "p", ModelID: "m", API: provider.APIAnthropicMessages, Cost: cost, PromptCache: &provider.PromptCache{Short: ttl}},
		Req:     provider.Request{Model: "m", MaxTokens: 64000, Stream: true, SessionID: "s", Messages: []provider.Message{{Role: "user", Content: "hi"}}},
		Current: func() bool { return h.current },
	}
}

func TestDelay(t *testing.T) {
	for _, c := range []struct {
		ttl, want time.Duration
		ok        bool
	}{{300 * time.Second, 270 * time.Second, true}, {time.Hour, 3240 * time.Second, true}, {60 * time.Second, 50 * time.Second, true},
		{11 * time.Second, time.Second, true}, {10 * time.Second, 0, false}, {0, 0, false}} {
		got, ok := Delay(c.ttl)
		if got != c.want || ok != c.ok {
			t.Errorf("Delay(%v) = %v, %v; want %v, %v", c.ttl, got, ok, c.want, c.ok)
		}
	}
}

func TestEvaluate(t *testing.T) {
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	d := Evaluate(pricey, 500000, PhaseIdle)
	// Read 0.15, written 1.875: a miss costs 1.725 more; a refresh 0.15
	// plus one output token.
	if !near(d.WarmCost, 0.150015) || !near(d.MissCost, 1.725) || !near(d.ExpectedSavings, 0.15*1.725-0.150015) || d.Action != ActionWarm || !d.EconomicsAvailable {
		t.Errorf("idle, 500k tokens: %+v", d)
	}
	if d := Evaluate(pricey, 200000, PhaseIdle); d.Action != ActionStop {
		t.Errorf("idle, 200k tokens: %+v", d)
	}
	if d := Evaluate(pricey, 200000, PhaseStreaming); d.Action != ActionWarm || d.ContinuationProbability != 1 {
		t.Errorf("streaming, 200k tokens: %+v", d)
	}
	// Without a cache-write price a miss is paid as input.
	noWrite := &provider.ModelCost{Rates: provider.Rates{Input: 3, CacheRead: 0.3}}
	if d := Evaluate(noWrite, 100000, PhaseStreaming); !near(d.MissCost, 0.27) {
		t.Errorf("no cache-write price: %+v", d)
	}
	if d := Evaluate(nil, 500000, PhaseStreaming); d.EconomicsAvailable || d.Action != ActionStop {
		t.Errorf("no prices: %+v", d)
	}
}

// With "idle", an eligible request is refreshed before each expiry, during
// the run and after it, until 30 minutes after the real request.
func TestIdleWarmingUntilTheLimit(t *testing.T) {
	h := newHarness(ModeIdle)
	h.w.Start(h.request(300, pricey))
	if s := h.w.Status(); s.State != StateScheduled || s.NextWarmAt != h.start.Add(270*time.Second) {
		t.Fatalf("status after start: %+v", s)
	}
	h.clock.advance(269 * time.Second)
	if len(h.sent) != 0 {
		t.Fatalf("refreshed before 90%% of the lifetime")
	}
	h.w.Settled()
	h.clock.advance(2 * time.Hour)
	want := []time.Duration{270, 540, 810, 1080, 1350, 1620}
	if len(h.sentAt) != len(want) {
		t.Fatalf("refreshes at %v, want %v seconds", h.sentAt, want)
	}
	for i, at := range h.sentAt {
		if at != want[i]*time.Second {
			t.Errorf("refresh %d at %v, want %ds", i, at, want[i])
		}
		req := h.sent[i]
		if req.MaxTokens != 1 || req.Model != "m" || req.SessionID != "s" || !req.Stream || len(req.Messages) != 1 {
			t.Errorf("refresh %d is not the request capped at one token: %+v", i, req)
		}
	}
	if len(h.records) != len(want) {
		t.Errorf("%d refreshes recorded, want %d", len(h.records), len(want))
	}
	if s := h.w.Status(); s.State != StateInactive || !strings.Contains(s.Reason, "30-minute") {
		t.Errorf("status at the end: %+v", s)
	}
}

func TestNoWarming(t *testing.T) {
	cheap := &provider.ModelCost{Rates: provider.Rates{Input: 0.1, Output: 0.4, CacheRead: 0.01, CacheWrite: 0.1}}
	cases := []struct {
		name   string
		mode   string
		ttl    float64
		cost   *provider.ModelCost
		before func(r *Request) // changes the request
		after  func(h *harness) // happens once it is sent
		reason string
	}{
		{"off", ModeOff, 300, pricey, nil, nil, "off"},
		{"streaming after the run", ModeStreaming, 300, pricey, nil, nil, "finished its run"},
		{"cheap model", ModeIdle, 300, cheap, nil, nil, "under $0.050: stop"},
		{"no prices", ModeIdle, 300, nil, nil, nil, "prices"},
		{"no lifetime", ModeIdle, 0, pricey, nil, nil, "no cache lifetime"},
		{"caching off", ModeIdle, 300, pricey, func(r *Request) { r.Req.CacheRetention = provider.CacheNone }, nil, "caching off"},
		{"budget thinking", ModeIdle, 300, pricey, func(r *Request) { r.Route.Thinking = "high" }, nil, "cannot be sent again"},
		{"conversation changed", ModeIdle, 300, pricey, nil, func(h *harness) { h.current = false }, "conversation changed"},
		{"stopped", ModeIdle, 300, pricey, nil, func(h *harness) { h.w.Stop("pi exits") }, "pi exits"},
		{"setting turned off", ModeIdle, 300, pricey, nil, func(h *harness) { h.mode = ModeOff }, "off"},
		{"extension says stop", ModeIdle, 300, pricey, nil, func(h *harness) { h.decide = func(Decision) string { return ActionStop } }, "extension"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(c.mode)
			r := h.request(c.ttl, c.cost)
			if c.before != nil {
				c.before(&r)
			}
			h.w.Start(r)
			if c.after != nil {
				c.after(h)
			}
			h.w.Settled()
			h.clock.advance(2 * time.Hour)
			if len(h.sent) != 0 {
				t.Errorf("sent %d refreshes", len(h.sent))
			}
			s := h.w.Status()
			if got := FormatStatus(s, h.clock.Now()); s.State != StateInactive || !strings.Contains(got, c.reason) {
				t.Errorf("status %q (%+v) does not say %q", got, s, c.reason)
			}
		})
	}
}

// An extension can make pi warm where it would not; the usage entry then
// says so.
func TestExtensionOverride(t *testing.T) {
	h := newHarness(ModeIdle)
	h.prompt = 1000
	h.decide = func(Decision) string { return ActionWarm }
	h.w.Start(h.request(300, pricey))
	h.clock.advance(271 * time.Second)
	if len(h.records) != 1 || h.records[0] != "extension override" {
		t.Fatalf("records = %q", h.records)
	}
}

// With "streaming", a long tool call keeps its request warm during the
// run; the run's end stops it.
func TestStreamingWarmsDuringTheRun(t *testing.T) {
	h := newHarness(ModeStreaming)
	h.prompt = 200000 // not worth it idle, worth it while the agent works
	h.w.Start(h.request(300, pricey))
	h.clock.advance(300 * time.Second)
	if len(h.sent) != 1 {
		t.Fatalf("%d refreshes during the run, want 1", len(h.sent))
	}
	h.w.Settled()
	h.clock.advance(time.Hour)
	if len(h.sent) != 1 {
		t.Errorf("%d refreshes after the run, want none more", len(h.sent)-1)
	}
}

func TestFormatStatus(t *testing.T) {
	now := time.Unix(0, 0)
	d := Evaluate(pricey, 500000, PhaseIdle)
	got := FormatStatus(Status{State: StateScheduled, NextWarmAt: now.Add(95 * time.Second), Decision: &d}, now)
	if got != "Next decision in 1m 35s (15% chance of a next request, expected saving $0.109, at least $0.050: warm)" {
		t.Errorf("scheduled: %q", got)
	}
	if got := FormatStatus(Status{State: StateInactive, Reason: "cache warming is off"}, now); got != "Inactive (cache warming is off)" {
		t.Errorf("inactive: %q", got)
	}
	if got := FormatWarmed(0.0015, ""); got != "Prompt cache kept warm: $0.0015" {
		t.Errorf("warmed: %q", got)
	}
	if got := FormatWarmed(0.15, "extension override"); got != "Prompt cache kept warm (extension override): $0.150" {
		t.Errorf("warmed: %q", got)
	}
}
