package provider

import "fmt"

// Roles a Message may carry.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Message is one turn of a conversation in provider-neutral form.
//
// Role is one of RoleSystem, RoleUser or RoleAssistant; any other value makes
// the body builders fail. Content is plain text.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Request is a provider-neutral chat request.
//
// Model, when non-empty, overrides Route.ModelID. MaxTokens caps the reply;
// zero means "use the route's default" (see Route.MaxTokens). Stream asks for
// a server-sent-event reply; Client.Stream always sets it.
type Request struct {
	Model     string
	Messages  []Message
	MaxTokens int
	Stream    bool
}

// checkRoles reports the first message whose role is not one we know.
func checkRoles(provider string, msgs []Message) error {
	for i, m := range msgs {
		switch m.Role {
		case RoleSystem, RoleUser, RoleAssistant:
		default:
			return fmt.Errorf("%s: message %d has unknown role %q (want system, user or assistant)", provider, i, m.Role)
		}
	}
	return nil
}

// modelFor picks the model name sent on the wire.
func modelFor(route Route, req Request) (string, error) {
	if req.Model != "" {
		return req.Model, nil
	}
	if route.ModelID != "" {
		return route.ModelID, nil
	}
	return "", fmt.Errorf("%s: no model id: set Route.ModelID or Request.Model", route.label())
}
