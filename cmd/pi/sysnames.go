package main

import (
	"net/http"

	"github.com/piwasm/pi/internal/nsslookup"
)

// resolveSystemNames makes every HTTP connection pi opens resolve host
// names as the system does: pi is built without cgo, so Go's resolver
// reads /etc/hosts and asks DNS, and nsslookup asks NSS (getent) for the
// names only NSS knows (box.local, the machine's own names, LDAP hosts).
// It changes http.DefaultTransport once, before anything else runs,
// because that is what every client pi makes starts from: the model
// client clones it (modelClient), MCP's HTTP servers and their sign-in,
// provider logins and extensions' HTTP requests use it. The sandbox's
// network proxy has its own resolver (core/sandbox/proxy.go).
func resolveSystemNames() {
	if t, ok := http.DefaultTransport.(*http.Transport); ok {
		t.DialContext = new(nsslookup.Resolver).WrapDial(t.DialContext)
	}
}
