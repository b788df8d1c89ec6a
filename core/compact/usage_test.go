package compact

import (
	"encoding/json"
	"testing"

	"github.com/piwasm/pi/core/prompt"
	"github.com/piwasm/pi/core/provider"
)

// TestSummaryUsageAsPeer: a summary request's usage is recorded as a
// reply's is (reasoning tokens, the total priced by pi), and two requests'
// usages add up as the established harness adds them: a count either side
// has is kept, and the total is the provider's only when both sides' are.
func TestSummaryUsageAsPeer(t *testing.T) {
	m := Model{}
	_, one, err := m.answer(provider.Response{Text: "s", StopReason: "stop",
		Usage: provider.Usage{InputTokens: 10, OutputTokens: 2, ReasoningTokens: 1, ReasoningReported: true, Reported: true}}, nil, "summary")
	if err != nil {
		t.Fatal(err)
	}
	yes := true
	billed := prompt.Usage{Input: 5, TotalTokens: 5, Cost: prompt.Cost{Total: 0.5, TotalFromProvider: &yes}}
	for _, c := range []struct {
		u    prompt.Usage
		want string
	}{
		{one, `{"input":10,"output":2,"cacheRead":0,"cacheWrite":0,"reasoning":1,"totalTokens":12,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0,"totalFromProvider":false}}`},
		{addUsage(one, billed), `{"input":15,"output":2,"cacheRead":0,"cacheWrite":0,"reasoning":1,"totalTokens":17,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.5,"totalFromProvider":false}}`},
		{addUsage(billed, billed), `{"input":10,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":10,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":1,"totalFromProvider":true}}`},
	} {
		got, err := json.Marshal(c.u)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != c.want {
			t.Errorf("\n got %s\nwant %s", got, c.want)
		}
	}
}
