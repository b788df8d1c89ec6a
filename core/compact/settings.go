package compact

import (
	"encoding/json"
	"fmt"

	"github.com/piwasm/pi/core/settings"
)

// Settings are the compaction settings of settings.json ("compaction").
type Settings struct {
	// Enabled turns automatic compaction (threshold and overflow) on; a
	// manual compaction runs either way.
	Enabled bool
	// ReserveTokens is the part of the window kept free: compaction starts
	// when the context exceeds the window less this.
	ReserveTokens int
	// KeepRecentTokens is roughly how much of the newest conversation is
	// kept verbatim.
	KeepRecentTokens int
}

// Defaults are the established harness's.
var Defaults = Settings{Enabled: true, ReserveTokens: 16384, KeepRecentTokens: 20000}

// BranchSettings are the branch-summary settings ("branchSummary").
type BranchSettings struct {
	ReserveTokens int
	SkipPrompt    bool
}

// BranchDefaults are the established harness's.
var BranchDefaults = BranchSettings{ReserveTokens: 16384}

// rawSettings is the "compaction" object of settings.json.
type rawSettings struct {
	Enabled          *bool                       `json:"enabled"`
	ReserveTokens    *json.Number                `json:"reserveTokens"`
	KeepRecentTokens *json.Number                `json:"keepRecentTokens"`
	ModelOverrides   map[string]rawModelOverride `json:"modelOverrides"`
}

type rawModelOverride struct {
	ReserveTokens    *json.Number `json:"reserveTokens"`
	KeepRecentTokens *json.Number `json:"keepRecentTokens"`
}

// Parse reads the "compaction" object of settings.json (raw may be nil)
// for the model provider/modelID: each token value comes from the model's
// override, else the plain setting, else the default. A value that is not
// a non-negative whole number is an error naming the key.
func Parse(raw json.RawMessage, provider, modelID string) (Settings, error) {
	s := Defaults
	if len(raw) == 0 || string(raw) == "null" {
		return s, nil
	}
	var r rawSettings
	if err := json.Unmarshal(raw, &r); err != nil {
		return s, fmt.Errorf("compaction: %w", err)
	}
	if r.Enabled != nil {
		s.Enabled = *r.Enabled
	}
	var err error
	set := func(dst *int, n *json.Number, key string) {
		if n == nil || err != nil {
			return
		}
		v, e := n.Int64()
		if e != nil || v < 0 || v > 1<<53-1 {
			err = fmt.Errorf("compaction.%s: %s is not a non-negative whole number", key, n.String())
			return
		}
		*dst = int(v)
	}
	set(&s.ReserveTokens, r.ReserveTokens, "reserveTokens")
	set(&s.KeepRecentTokens, r.KeepRecentTokens, "keepRecentTokens")
	if o, ok := r.ModelOverrides[provider+"/"+modelID]; ok {
		set(&s.ReserveTokens, o.ReserveTokens, "modelOverrides."+provider+"/"+modelID+".reserveTokens")
		set(&s.KeepRecentTokens, o.KeepRecentTokens, "modelOverrides."+provider+"/"+modelID+".keepRecentTokens")
	}
	return s, err
}

// ParseBranch reads the "branchSummary" object of settings.json.
func ParseBranch(raw json.RawMessage) (BranchSettings, error) {
	s := BranchDefaults
	if len(raw) == 0 || string(raw) == "null" {
		return s, nil
	}
	var r struct {
		ReserveTokens *json.Number `json:"reserveTokens"`
		SkipPrompt    *bool        `json:"skipPrompt"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return s, fmt.Errorf("branchSummary: %w", err)
	}
	if r.SkipPrompt != nil {
		s.SkipPrompt = *r.SkipPrompt
	}
	if r.ReserveTokens != nil {
		v, err := r.ReserveTokens.Int64()
		if err != nil || v < 0 || v > 1<<53-1 {
			return s, fmt.Errorf("branchSummary.reserveTokens: %s is not a non-negative whole number", r.ReserveTokens.String())
		}
		s.ReserveTokens = int(v)
	}
	return s, nil
}

// ShouldCompact is the threshold: automatic compaction is on and the
// context exceeds the window less the reserve.
func (s Settings) ShouldCompact(contextTokens, contextWindow int) bool {
	return s.Enabled && contextTokens > contextWindow-s.ReserveTokens
}

// FromValues reads the compaction settings for provider/modelID from the
// settings model (user and project files merged); values may be nil.
func FromValues(values *settings.Settings, provider, modelID string) (Settings, error) {
	if values == nil {
		return Defaults, nil
	}
	obj := map[string]json.RawMessage{}
	for _, k := range []string{"enabled", "reserveTokens", "keepRecentTokens"} {
		if v, ok := values.Lookup("compaction." + k); ok {
			obj[k] = v.Raw
		}
	}
	if o := values.MergedObject("compaction.modelOverrides"); len(o) > 0 {
		raw, _ := json.Marshal(o)
		obj["modelOverrides"] = raw
	}
	if len(obj) == 0 {
		// Nothing set: what Parse makes of {}, without decoding it (the
		// decoder's first use of rawSettings was ~1% of the CPU of a
		// `pi -p` run).
		return Defaults, nil
	}
	raw, _ := json.Marshal(obj)
	return Parse(raw, provider, modelID)
}

// BranchFromValues reads the branch-summary settings.
func BranchFromValues(values *settings.Settings) (BranchSettings, error) {
	if values == nil {
		return BranchDefaults, nil
	}
	obj := map[string]json.RawMessage{}
	for _, k := range []string{"reserveTokens", "skipPrompt"} {
		if v, ok := values.Lookup("branchSummary." + k); ok {
			obj[k] = v.Raw
		}
	}
	raw, _ := json.Marshal(obj)
	return ParseBranch(raw)
}
