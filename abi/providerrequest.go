package abi

import (
	"encoding/json"
	"errors"
)

// HookBeforeProviderRequest runs before each request goes to the model's
// provider with the body pi built: the extension may send another body.
// The API key is never part of what it sees (it travels in a header).
const HookBeforeProviderRequest = "before_provider_request"

// ExportBeforeProviderRequest handles HookBeforeProviderRequest.
const ExportBeforeProviderRequest = "pi_before_provider_request"

// BeforeProviderRequestEvent is the event of HookBeforeProviderRequest:
// where the request goes (provider and model as models.json names them,
// the API shape) and its JSON body.
type BeforeProviderRequestEvent struct {
	Provider string          `json:"provider"`
	API      string          `json:"api"`
	Model    string          `json:"model"`
	Body     json.RawMessage `json:"body"`
}

// BeforeProviderRequestResult is the result: no Body sends pi's body;
// otherwise Body (a JSON object) is sent instead.
type BeforeProviderRequestResult struct {
	Body json.RawMessage `json:"body,omitempty"`
}

// Check refuses a body that is not a JSON object.
func (r BeforeProviderRequestResult) Check() error {
	if r.Body == nil {
		return nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(r.Body, &m); err != nil || m == nil {
		return errors.New("the body is not a JSON object")
	}
	return nil
}
