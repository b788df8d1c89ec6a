package promptcache

import (
	"time"

	"github.com/piwasm/pi/core/provider"
)

const (
	// MaxAge ends warming during a run this long after the real request
	// whose entry it keeps.
	MaxAge = 60 * time.Minute
	// MaxIdleAge ends it between runs sooner: whether the person comes
	// back gets less likely with time.
	MaxIdleAge = 30 * time.Minute
	// MinSavings is the expected saving, in dollars, below which a refresh
	// is not sent.
	MinSavings = 0.05
	// IdleContinuation is the chance that a real request follows within the
	// entry's lifetime while the session is idle (the established harness's
	// measured constant); during a run the next request is certain.
	IdleContinuation = 0.15
)

// Modes of the cacheWarming setting.
const (
	ModeOff       = "off"
	ModeStreaming = "streaming"
	ModeIdle      = "idle"
)

// Phases a warming run is in.
const (
	PhaseStreaming = "streaming" // the agent is working
	PhaseIdle      = "idle"      // the agent waits for the person
)

// Actions a decision takes.
const (
	ActionWarm = "warm"
	ActionStop = "stop"
)

// Delay is when to refresh an entry that lives ttl: at 90% of it, keeping
// at least ten seconds in hand. An entry of ten seconds or less is not
// warmed (false).
func Delay(ttl time.Duration) (time.Duration, bool) {
	if ttl <= 10*time.Second {
		return 0, false
	}
	return max(time.Millisecond, min(ttl*9/10, ttl-10*time.Second)), true
}

// TTL is the lifetime of the entry a request with retention writes on
// route's model; false when caching is off or the model declares none.
func TTL(route provider.Route, retention string) (time.Duration, bool) {
	s := route.CacheTTL(retention)
	if s <= 0 {
		return 0, false
	}
	return time.Duration(s * float64(time.Second)), true
}

// Replayable says whether the request can be sent again with a one-token
// output cap and still hit its cache entry. Anthropic's budget thinking
// (thinking on, without adaptive thinking) derives its budget from the
// output cap, and the budget is part of what the cache is keyed on: the
// replay would miss, and could think at length besides.
func Replayable(route provider.Route) bool {
	if route.Thinking == "" || route.API != provider.APIAnthropicMessages {
		return true
	}
	return route.Compat != nil && route.Compat.ForceAdaptiveThinking
}

// Decision is whether refreshing the entry of a prompt pays for itself.
type Decision struct {
	Phase string `json:"phase"`
	// WarmCost is the refresh's price (the prompt read from the cache,
	// one output token); MissCost what the next request pays extra if the
	// entry is lost (the prompt written or sent again instead of read).
	WarmCost float64 `json:"warmCost"`
	MissCost float64 `json:"missCost"`
	// ContinuationProbability is the chance that a real request comes
	// while the entry lives.
	ContinuationProbability float64 `json:"continuationProbability"`
	ExpectedSavings         float64 `json:"expectedSavings"`
	// EconomicsAvailable: the model has prices and a prompt was sent.
	EconomicsAvailable bool   `json:"economicsAvailable"`
	Action             string `json:"action"`
}

// Evaluate decides whether a refresh of a promptTokens-token prompt on a
// model priced by cost pays for itself in phase.
func Evaluate(cost *provider.ModelCost, promptTokens int, phase string) Decision {
	hit := cost.Price(0, 0, promptTokens, 0).Total
	var missed float64
	if cost != nil && cost.CacheWrite > 0 {
		missed = cost.Price(0, 0, 0, promptTokens).Total
	} else {
		missed = cost.Price(promptTokens, 0, 0, 0).Total
	}
	d := Decision{Phase: phase, WarmCost: cost.Price(0, 1, promptTokens, 0).Total, MissCost: max(0, missed-hit), ContinuationProbability: 1}
	if phase == PhaseIdle {
		d.ContinuationProbability = IdleContinuation
	}
	d.EconomicsAvailable = promptTokens > 0 && (hit > 0 || missed > 0)
	d.ExpectedSavings = d.ContinuationProbability*d.MissCost - d.WarmCost
	d.Action = ActionStop
	if d.ExpectedSavings >= MinSavings {
		d.Action = ActionWarm
	}
	return d
}
