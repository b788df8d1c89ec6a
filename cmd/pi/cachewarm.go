package main

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/piwasm/pi/core/agent"
	"github.com/piwasm/pi/core/promptcache"
	"github.com/piwasm/pi/core/provider"
	"github.com/piwasm/pi/core/runtime"
	"github.com/piwasm/pi/core/session"
	"github.com/piwasm/pi/core/settings"
)

// startCacheWarming keeps the provider's prompt cache of the session's
// latest request warm as settings cacheWarming says (core/promptcache). The
// refreshes go through their own client with no retries: a refresh that
// fails is not worth a second request. It returns the warmer, which the
// caller stops when pi leaves the session.
func startCacheWarming(rt *runtime.Runtime, runner *session.Runner, client *provider.Client, values *settings.Settings) *promptcache.Warmer {
	// The transcript of the request being kept warm: a refresh is
	// recorded there, even should the session switch meanwhile.
	var warmed atomic.Pointer[session.Transcript]
	refresher := &provider.Client{HTTP: client.HTTP, Version: client.Version, IdleTimeout: client.IdleTimeout, Retry: provider.RetryPolicy{MaxAttempts: -1}}
	w := promptcache.New(promptcache.Config{
		Mode: func() string { return warmingMode(values) },
		Send: func(ctx context.Context, route provider.Route, req provider.Request) (provider.Response, error) {
			return refresher.StreamEvents(ctx, route, req, nil)
		},
		Record: func(route provider.Route, resp provider.Response, note string) {
			tr := warmed.Load()
			if tr == nil || tr != rt.Transcript() {
				return
			}
			// The model that answered, as the established harness records
			// it (a router may name another than the one asked for).
			model := route.ModelID
			if resp.ResponseModel != "" {
				model = resp.ResponseModel
			}
			e, err := tr.AppendUsage(session.UsageCacheWarm, route.Provider, model, *session.UsageOf(route, resp.Usage), note)
			if err != nil {
				return
			}
			if line, err := e.MarshalJSON(); err == nil {
				rt.Publish(agent.Event{Type: agent.EntryAppended, Entry: line})
			}
		},
		PromptTokens: func() int { return lastPromptTokens(rt.Transcript().Branch()) },
	})
	runner.OnRequest = func(tr *session.Transcript, leaf string, route provider.Route, req provider.Request) {
		warmed.Store(tr)
		w.Start(promptcache.Request{Route: route, Req: req, Current: func() bool {
			now := rt.Route()
			return rt.Transcript() == tr && now.Provider == route.Provider && now.ModelID == route.ModelID && extends(tr.Branch(), leaf)
		}})
	}
	rt.Subscribe(func(e agent.Event) {
		if e.Type == agent.AgentSettled {
			w.Settled()
		}
	})
	return w
}

// extends says whether the branch still carries, unchanged, the
// conversation up to leaf: leaf is on it and nothing after it rewrote the
// context (a compaction, a branch summary, an edit).
func extends(branch []session.Entry, leaf string) bool {
	for i := len(branch) - 1; i >= 0; i-- {
		switch e := branch[i]; {
		case e.ID == leaf:
			return true
		case e.Type == session.TypeCompaction || e.Type == session.TypeBranchSummary || e.Type == session.TypeContextEdit:
			return false
		}
	}
	return false
}

// lastPromptTokens is the prompt size the provider reported for the
// branch's last reply.
func lastPromptTokens(branch []session.Entry) int {
	for i := len(branch) - 1; i >= 0; i-- {
		if m := branch[i].Message; branch[i].Type == session.TypeMessage && m != nil && m.Role == "assistant" && m.Usage != nil {
			return m.Usage.Input + m.Usage.CacheRead + m.Usage.CacheWrite
		}
	}
	return 0
}

// cacheWarmingSummary is /session's cache warming lines: the setting, the
// warmer's state and, once a decision has numbers, what a miss and a
// refresh cost.
func cacheWarmingSummary(w *promptcache.Warmer, values *settings.Settings) string {
	mode := warmingMode(values)
	s := w.Status()
	out := "warming  " + mode + ": " + promptcache.FormatStatus(s, time.Now())
	if d := s.Decision; d != nil && d.EconomicsAvailable {
		out += fmt.Sprintf("\n         a cache miss would cost $%.3f more; a refresh costs $%.3f", d.MissCost, d.WarmCost)
	}
	return out
}

// warmingMode is the cacheWarming setting; a value it does not know (the
// settings model reports it) leaves the default, as in the established
// harness.
func warmingMode(values *settings.Settings) string {
	switch m := values.String("cacheWarming"); m {
	case promptcache.ModeOff, promptcache.ModeStreaming, promptcache.ModeIdle:
		return m
	}
	return promptcache.ModeIdle
}
