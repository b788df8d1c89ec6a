package promptcache

import (
	"context"
	"sync"
	"time"

	"github.com/piwasm/pi/core/provider"
)

// Clock is the warmer's time: the real one in pi, a fake one in tests.
type Clock interface {
	Now() time.Time
	// AfterFunc runs f after d on its own goroutine; the returned function
	// cancels it.
	AfterFunc(d time.Duration, f func()) (stop func())
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }
func (realClock) AfterFunc(d time.Duration, f func()) func() {
	t := time.AfterFunc(d, f)
	return func() { t.Stop() }
}

// Request is a real request whose cache entry may be kept warm.
type Request struct {
	Route provider.Route
	Req   provider.Request
	// Current says whether the conversation still begins with this
	// request's messages on the same model (no compaction, no move in the
	// tree, no new session, no model switch since).
	Current func() bool
}

// Config connects a Warmer to the session.
type Config struct {
	// Mode is the cacheWarming setting now (ModeOff, ModeStreaming or
	// ModeIdle).
	Mode func() string
	// Send sends a refresh and returns the reply.
	Send func(ctx context.Context, route provider.Route, req provider.Request) (provider.Response, error)
	// Record keeps a successful refresh's usage (the session's usage
	// entry); note is set when an extension overrode pi's decision.
	Record func(route provider.Route, resp provider.Response, note string)
	// PromptTokens is the prompt size of the last real reply on the
	// branch, as the provider reported it.
	PromptTokens func() int
	// Decide, when set, may replace the decision's action (an
	// extension); it returns the action to take.
	Decide func(Decision) string
	// Clock is nil for the real one.
	Clock Clock
}

// Status states of a Warmer.
const (
	StateInactive   = "inactive"
	StateScheduled  = "scheduled"
	StateRefreshing = "refreshing"
)

// Status is what /session shows of cache warming.
type Status struct {
	State  string
	Reason string // why inactive
	// NextWarmAt is when the next decision is taken (scheduled).
	NextWarmAt time.Time
	// Decision is the decision as it stands (nil before any).
	Decision          *Decision
	ExtensionOverride bool
}

// run is one request being kept warm.
type run struct {
	Request
	ttl, delay        time.Duration
	startedAt         time.Time
	nextWarmAt        time.Time
	refreshDeadline   time.Time
	phase             string
	stopTimer         func()
	refreshing        bool
	ctx               context.Context
	cancel            context.CancelFunc
	extensionOverride bool
}

// Warmer keeps the prompt cache entry of the latest real request alive by
// sending that request again, capped at one output token, before the entry
// expires, while it pays for itself. Start replaces whatever it kept warm;
// a refresh never extends the age limits, which count from the real
// request.
type Warmer struct {
	cfg Config

	mu       sync.Mutex
	run      *run
	inactive Status
	wg       sync.WaitGroup
}

// New makes a Warmer; it does nothing until Start.
func New(cfg Config) *Warmer {
	if cfg.Clock == nil {
		cfg.Clock = realClock{}
	}
	return &Warmer{cfg: cfg, inactive: Status{State: StateInactive, Reason: "no request sent yet"}}
}

func (w *Warmer) mode() string {
	if w.cfg.Mode == nil {
		return ModeIdle
	}
	return w.cfg.Mode()
}

// Start keeps the entry r writes warm, from now (r is being sent).
func (w *Warmer) Start(r Request) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.clearLocked()
	if w.mode() == ModeOff {
		w.stopLocked("cache warming is off", nil, false)
		return
	}
	if !Replayable(r.Route) {
		w.stopLocked("this request cannot be sent again safely", nil, false)
		return
	}
	ttl, ok := TTL(r.Route, r.Req.CacheRetention)
	if !ok {
		reason := "the model declares no cache lifetime"
		if r.Req.CacheRetention == provider.CacheNone {
			reason = "the request turned prompt caching off"
		}
		w.stopLocked(reason, nil, false)
		return
	}
	delay, ok := Delay(ttl)
	if !ok {
		w.stopLocked("the cache lifetime is too short to warm", nil, false)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	w.run = &run{Request: r, ttl: ttl, delay: delay, startedAt: w.cfg.Clock.Now(), phase: PhaseStreaming, ctx: ctx, cancel: cancel}
	w.scheduleLocked(w.run)
}

// Settled tells the warmer the agent stopped working: with cacheWarming
// "streaming" warming ends, with "idle" it goes on, for at most MaxIdleAge
// after the last real request.
func (w *Warmer) Settled() {
	w.mu.Lock()
	defer w.mu.Unlock()
	r := w.run
	if r == nil {
		return
	}
	if w.mode() != ModeIdle {
		w.stopLocked("the agent finished its run", nil, false)
		return
	}
	r.phase = PhaseIdle
	deadline := r.startedAt.Add(MaxIdleAge)
	if !r.refreshing && (r.nextWarmAt.After(deadline) || !w.cfg.Clock.Now().Before(deadline)) {
		w.stopLocked("the 30-minute idle limit was reached", nil, false)
	}
}

// Stop ends warming (pi exits, the session or model changes).
func (w *Warmer) Stop(reason string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopLocked(reason, nil, false)
}

// Wait waits for a refresh in flight to end (after Stop, it is
// cancelled).
func (w *Warmer) Wait() { w.wg.Wait() }

// Status is the warmer's state now.
func (w *Warmer) Status() Status {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.mode() == ModeOff {
		return Status{State: StateInactive, Reason: "cache warming is off"}
	}
	r := w.run
	if r == nil {
		return w.inactive
	}
	if r.Current != nil && !r.Current() {
		return Status{State: StateInactive, Reason: "the conversation changed"}
	}
	d := w.evaluate(r)
	if !d.EconomicsAvailable && !r.refreshing {
		return Status{State: StateInactive, Reason: "the model's prices are not known"}
	}
	s := Status{State: StateScheduled, NextWarmAt: r.nextWarmAt, Decision: &d, ExtensionOverride: r.extensionOverride}
	if r.refreshing {
		s.State = StateRefreshing
	}
	return s
}

func (w *Warmer) evaluate(r *run) Decision {
	n := 0
	if w.cfg.PromptTokens != nil {
		n = w.cfg.PromptTokens()
	}
	return Evaluate(r.Route.Cost, n, r.phase)
}

func (w *Warmer) clearLocked() {
	r := w.run
	if r == nil {
		return
	}
	w.run = nil
	if r.stopTimer != nil {
		r.stopTimer()
	}
	r.cancel()
}

func (w *Warmer) stopLocked(reason string, d *Decision, override bool) {
	w.clearLocked()
	w.inactive = Status{State: StateInactive, Reason: reason, Decision: d, ExtensionOverride: override}
}

func (w *Warmer) scheduleLocked(r *run) {
	now := w.cfg.Clock.Now()
	r.extensionOverride = false
	r.nextWarmAt = now.Add(r.delay)
	// A timer may fire late (a machine asleep, a busy process). Half the
	// margin before expiry is kept for that and for sending; later, the
	// refresh would most likely write a new entry at full price.
	r.refreshDeadline = r.nextWarmAt.Add((r.ttl - r.delay) / 2)
	limit, why := MaxAge, "the one-hour limit was reached"
	if r.phase == PhaseIdle {
		limit, why = MaxIdleAge, "the 30-minute idle limit was reached"
	}
	deadline := r.startedAt.Add(limit)
	if r.nextWarmAt.After(deadline) || !now.Before(deadline) {
		w.stopLocked(why, nil, false)
		return
	}
	r.stopTimer = w.cfg.Clock.AfterFunc(r.nextWarmAt.Sub(now), func() { w.refresh(r) })
}

// validLocked says whether r is still the run to keep warm, stopping it
// when not.
func (w *Warmer) validLocked(r *run) bool {
	if w.run != r {
		return false
	}
	switch {
	case w.mode() == ModeOff:
		w.stopLocked("cache warming is off", nil, false)
	case w.mode() == ModeStreaming && r.phase == PhaseIdle:
		w.stopLocked("the agent finished its run", nil, false)
	case r.Current != nil && !r.Current():
		w.stopLocked("the conversation changed", nil, false)
	case w.cfg.Clock.Now().After(r.refreshDeadline):
		w.stopLocked("the refresh came too late", nil, false)
	default:
		return true
	}
	return false
}

func (w *Warmer) refresh(r *run) {
	w.wg.Add(1)
	defer w.wg.Done()
	w.mu.Lock()
	r.stopTimer = nil
	if !w.validLocked(r) {
		w.mu.Unlock()
		return
	}
	d := w.evaluate(r)
	r.refreshing = true
	w.mu.Unlock()

	action := d.Action
	if w.cfg.Decide != nil {
		if a := w.cfg.Decide(d); a == ActionWarm || a == ActionStop {
			action = a
		}
	}

	w.mu.Lock()
	r.refreshing = false
	if !w.validLocked(r) {
		w.mu.Unlock()
		return
	}
	override := action != d.Action
	if action == ActionStop {
		reason := "the expected saving is below $0.05"
		switch {
		case override:
			reason = "an extension stopped it"
		case !d.EconomicsAvailable:
			reason = "the model's prices are not known"
		}
		w.stopLocked(reason, &d, override)
		w.mu.Unlock()
		return
	}
	r.extensionOverride, r.refreshing = override, true
	w.mu.Unlock()

	req := r.Req
	req.MaxTokens = 1
	// The memo belongs to the session's requests, which may be built
	// at the same time; the body comes out the same without it.
	req.ToolsMemo = nil
	resp, err := w.cfg.Send(r.ctx, r.Route, req)

	w.mu.Lock()
	r.refreshing = false
	current := w.run == r
	w.mu.Unlock()
	if !current {
		return
	}
	// Recorded without the lock: the record reaches the session's
	// subscribers, which may ask for the status.
	if err == nil && resp.StopReason != provider.StopReasonError && resp.StopReason != provider.StopReasonAborted && w.cfg.Record != nil {
		note := ""
		if override {
			note = "extension override"
		}
		w.cfg.Record(r.Route, resp, note)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.run == r {
		// A failed refresh is not retried early: warming is best
		// effort and never touches the session's own run.
		w.scheduleLocked(r)
	}
}
