package provider

import (
	"net/http"
	"strings"
)

// redacted replaces secret header values in DescribeRequest.
const redacted = "[redacted]"

// DryRun returns the exact body Client.Stream would send for req on route:
// the route's API picks the builder, which writes the body once in its
// final shape (compat and thinking fields included), and req.Stream is forced on, as Stream does. Nothing is sent. It fails
// like the builders, or on an unknown API.
func DryRun(route Route, req Request) ([]byte, error) {
	o, err := buildBody(route, req)
	if err != nil {
		return nil, err
	}
	return o.bytes(), nil
}

// buildBody is DryRun's body before it is written out: Client.StreamEvents
// sends it through its reader, so the history's encoded messages are read
// from their Memos rather than copied into a new buffer on every request.
func buildBody(route Route, req Request) (*object, error) {
	if _, err := route.pathSuffix(); err != nil {
		return nil, err
	}
	req.Stream = true
	req = withoutImages(route, req)
	switch route.API {
	case APIAnthropicMessages:
		o, err := anthropicObject(route, req)
		if err != nil {
			return nil, err
		}
		applyAnthropicThinking(route, req, o)
		return o, nil
	case APIOpenAIResponses, APIAzureOpenAIResponses:
		return buildResponsesObject(route, req)
	case APIGoogleGenerativeAI:
		return googleObject(route, req)
	}
	return openAIObject(route, req)
}

// RequestInfo is the envelope of a request, for display.
type RequestInfo struct {
	Method string
	URL    string
	Header http.Header
}

// DescribeRequest returns the method, URL and headers Client.Stream would
// use on route, with secrets replaced by Redacted: the API key wherever it
// appears, the auth headers, and any configured header whose name suggests a
// credential (containing "auth", "key", "token", "secret", "cookie" or
// "signature"). A header absent from the real request (no key configured)
// is absent here too. Print it next to DryRun's body for --dry-run. It fails
// like Route.Endpoint.
func DescribeRequest(route Route) (RequestInfo, error) {
	u, err := route.Endpoint()
	if err != nil {
		return RequestInfo{}, err
	}
	h := route.header()
	for name, vals := range h {
		for i, v := range vals {
			if sensitiveHeader(name) {
				vals[i] = redactValue(v)
			} else if route.APIKey != "" && strings.Contains(v, route.APIKey) {
				vals[i] = strings.ReplaceAll(v, route.APIKey, redacted)
			}
		}
	}
	return RequestInfo{Method: http.MethodPost, URL: u, Header: h}, nil
}

func sensitiveHeader(name string) bool {
	n := strings.ToLower(name)
	for _, w := range []string{"auth", "key", "token", "secret", "cookie", "signature"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// redactValue keeps an auth scheme word ("Bearer") so the shape stays visible.
func redactValue(v string) string {
	if scheme, _, ok := strings.Cut(v, " "); ok && scheme != "" && !strings.ContainsAny(scheme, "=:") {
		return scheme + " " + redacted
	}
	return redacted
}
