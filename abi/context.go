package abi

import (
	"encoding/json"
	"errors"
	"fmt"
)

// HookContext runs before every model request with the conversation that
// request will carry (without the system prompt): the extension may send
// the model a different list, with messages dropped, replaced or added.
// Nothing is written to the session: the change holds for that request.
const HookContext = "context"

// ExportContext handles HookContext.
const ExportContext = "pi_context"

// ContextEvent is the event of HookContext: the messages in the
// session's JSON form (role user, assistant, toolResult and the rest),
// oldest first.
type ContextEvent struct {
	Messages []json.RawMessage `json:"messages"`
}

// ContextResult is the result of HookContext: nil Messages leaves the
// list as it is; otherwise it is the list the request carries.
type ContextResult struct {
	Messages []json.RawMessage `json:"messages,omitempty"`
}

// Check refuses a list with a message that is not an object with a role,
// or one that claims the system role: the system prompt is pi's and the
// sections of fail-closed extensions in it are protected.
func (r ContextResult) Check() error {
	for i, raw := range r.Messages {
		var m struct {
			Role string `json:"role"`
		}
		if err := json.Unmarshal(raw, &m); err != nil || m.Role == "" {
			return fmt.Errorf("message %d is not a message object with a role", i)
		}
		if m.Role == "system" || m.Role == "developer" {
			return errors.New("a context hook may not add or change system messages")
		}
	}
	return nil
}
