package mcp

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/piwasm/pi/internal/atomicfile"
)

// AuthFile is where OAuth credentials live in the agent dir, as in the
// established harness (the contents are pi's own).
const AuthFile = "mcp-auth.json"

// storedAuth is one server's sign-in: the client it registered (or was
// given) and its tokens, enough to refresh them without a browser.
type storedAuth struct {
	Server       string        `json:"server"`
	URL          string        `json:"url"`
	ClientID     string        `json:"clientId"`
	ClientSecret string        `json:"clientSecret,omitempty"`
	TokenURL     string        `json:"tokenUrl"`
	AuthStyle    int           `json:"authStyle,omitempty"`
	Token        *oauth2.Token `json:"token"`
}

// AuthStore reads and writes <agent dir>/mcp-auth.json (mode 0600).
// Credentials belong to a server name and URL.
type AuthStore struct {
	Path string
	mu   sync.Mutex
}

func authKey(s *Server) string { return s.Name + " " + s.URL }

func (st *AuthStore) load() (map[string]*storedAuth, error) {
	m := map[string]*storedAuth{}
	data, err := os.ReadFile(st.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %v", st.Path, err)
	}
	return m, nil
}

func (st *AuthStore) update(f func(map[string]*storedAuth)) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	m, err := st.load()
	if err != nil {
		return err
	}
	f(m)
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(st.Path), 0o700); err != nil {
		return err
	}
	return atomicfile.Write(st.Path, append(data, '\n'), 0o600)
}

// Logout deletes the stored credentials of s; it reports whether there
// were any.
func (st *AuthStore) Logout(s *Server) (bool, error) {
	found := false
	err := st.update(func(m map[string]*storedAuth) {
		_, found = m[authKey(s)]
		delete(m, authKey(s))
	})
	return found, err
}

// Token returns a valid access token for s, refreshing (and storing) it
// when it expired; "" when pi holds no sign-in for s.
func (st *AuthStore) Token(ctx context.Context, s *Server) (string, error) {
	st.mu.Lock()
	m, err := st.load()
	st.mu.Unlock()
	if err != nil {
		return "", err
	}
	a := m[authKey(s)]
	if a == nil || a.Token == nil {
		return "", nil
	}
	if a.Token.Valid() {
		return a.Token.AccessToken, nil
	}
	cfg := &oauth2.Config{ClientID: a.ClientID, ClientSecret: a.ClientSecret, Endpoint: oauth2.Endpoint{TokenURL: a.TokenURL, AuthStyle: oauth2.AuthStyle(a.AuthStyle)}}
	tok, err := cfg.TokenSource(ctx, a.Token).Token()
	if err != nil {
		return "", fmt.Errorf("refresh the sign-in of %s: %w (run pi mcp login %s)", s.Name, err, s.Name)
	}
	a.Token = tok
	if err := st.update(func(m map[string]*storedAuth) { m[authKey(s)] = a }); err != nil {
		return "", err
	}
	return tok.AccessToken, nil
}

// LoginOptions drive a sign-in.
type LoginOptions struct {
	// Open shows the authorization URL to the user (a browser, or a line
	// to copy); the redirect comes back to pi's loopback listener.
	Open func(url string) error
	// HTTPClient makes the requests to the servers (nil: the default).
	HTTPClient *http.Client
	Version    string
	// Warn, when set, is told of each request to the loopback listener
	// that was refused (a wrong or missing state, or a replay).
	Warn func(string)
}

// callback is the loopback listener's memory of the sign-in in progress:
// the state its authorization address carries, and whether the redirect
// with that state came already.
type callback struct {
	mu    sync.Mutex
	state string
	taken bool
}

// expect arms the listener for a new authorization address's state.
func (c *callback) expect(state string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.state, c.taken = state, false
}

// take accepts the request carrying state, once; otherwise it says why
// not.
func (c *callback) take(state string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.state == "":
		return "no sign-in is waiting for it yet"
	case subtle.ConstantTimeCompare([]byte(state), []byte(c.state)) != 1:
		return "its state is not the sign-in's"
	case c.taken:
		return "the sign-in's redirect came already"
	}
	c.taken = true
	return ""
}

// Login signs in to the HTTP server s with OAuth's authorization code
// flow and PKCE, as the MCP authorization specification describes it:
// discovery from the server's 401 (protected resource metadata, then the
// authorization server's metadata), the configured client or dynamic
// registration as "pi" (or oauth.clientName), the browser's redirect to
// a loopback listener, the code exchange; the tokens are stored in st.
func Login(ctx context.Context, s *Server, st *AuthStore, o LoginOptions) error {
	if s.Transport != "http" {
		return fmt.Errorf("%s is not an HTTP server: there is nothing to sign in to", s.Name)
	}
	oc := s.OAuth
	if oc == nil {
		oc = &OAuth{}
	}
	host, path := "127.0.0.1", "/callback"
	port := oc.CallbackPort
	if oc.CallbackURL != "" {
		u, err := url.Parse(oc.CallbackURL)
		if err != nil || u.Scheme != "http" || (u.Hostname() != "localhost" && u.Hostname() != "127.0.0.1" && u.Hostname() != "::1") {
			return fmt.Errorf("oauth.callbackUrl %q must be http on localhost, 127.0.0.1 or [::1]", oc.CallbackURL)
		}
		host, path = u.Hostname(), u.Path
		if u.Port() != "" {
			fmt.Sscan(u.Port(), &port)
		}
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, fmt.Sprint(port)))
	if err != nil {
		return fmt.Errorf("listen for the sign-in's redirect: %w", err)
	}
	defer ln.Close()
	redirect := (&url.URL{Scheme: "http", Host: net.JoinHostPort(host, fmt.Sprint(ln.Addr().(*net.TCPAddr).Port)), Path: path}).String()
	if oc.CallbackURL != "" && port != 0 {
		redirect = oc.CallbackURL
	}

	results := make(chan *auth.AuthorizationResult, 1)
	cb := &callback{}
	deliver := func(r *auth.AuthorizationResult) {
		select {
		case results <- r:
		default: // a result nobody waits for any more is in the way
		}
	}
	warn := o.Warn
	if warn == nil {
		warn = func(string) {}
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != path {
			http.NotFound(w, r)
			return
		}
		q := r.URL.Query()
		// Anything on this machine (another user's process, a web page
		// the browser is sent to) can reach the loopback port: only the
		// one redirect that carries this sign-in's state is taken, and
		// only once. Others neither end nor decide the sign-in.
		if why := cb.take(q.Get("state")); why != "" {
			http.Error(w, "pi refused this request: "+why+".", http.StatusBadRequest)
			warn(fmt.Sprintf("refused a request to the sign-in's loopback address from %s: %s", r.RemoteAddr, why))
			return
		}
		if e := q.Get("error"); e != "" {
			http.Error(w, "Sign-in failed: "+e, http.StatusBadRequest)
			deliver(&auth.AuthorizationResult{State: q.Get("state")})
			return
		}
		fmt.Fprintln(w, "Signed in to "+s.Name+". You can close this page and go back to pi.")
		deliver(&auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")})
	}), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	defer srv.Close()

	client := o.HTTPClient
	if client == nil {
		client = http.DefaultClient
	}
	var saveErr error
	cfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL:           redirect,
		Client:                client,
		RequestRefreshToken:   true,
		AcceptUnadvertisedIss: true,
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			u, err := url.Parse(args.URL)
			if err != nil || u.Query().Get("state") == "" {
				return nil, fmt.Errorf("the authorization address has no state: %s", args.URL)
			}
			cb.expect(u.Query().Get("state"))
			if err := o.Open(args.URL); err != nil {
				return nil, err
			}
			select {
			case r := <-results:
				if r.Code == "" {
					return nil, errors.New("the authorization server refused the sign-in")
				}
				return r, nil
			case <-ctx.Done():
				return nil, fmt.Errorf("no sign-in arrived: %w", ctx.Err())
			}
		},
		NewTokenSource: func(ctx context.Context, c *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
			a := &storedAuth{Server: s.Name, URL: s.URL, ClientID: c.ClientID, ClientSecret: c.ClientSecret, TokenURL: c.Endpoint.TokenURL, AuthStyle: int(c.Endpoint.AuthStyle), Token: tok}
			saveErr = st.update(func(m map[string]*storedAuth) { m[authKey(s)] = a })
			return c.TokenSource(ctx, tok), nil
		},
	}
	if oc.ClientID != "" {
		cred := &oauthex.ClientCredentials{ClientID: oc.ClientID}
		if oc.ClientSecret != "" {
			secret, err := resolveValue(ctx, oc.ClientSecret, "oauth.clientSecret", os.Getenv, "")
			if err != nil {
				return err
			}
			cred.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: secret}
		}
		cfg.PreregisteredClient = cred
	} else {
		name := oc.ClientName
		if name == "" {
			name = "pi"
		}
		cfg.DynamicClientRegistrationConfig = &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			RedirectURIs: []string{redirect}, ClientName: name, TokenEndpointAuthMethod: "none",
			GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"}, Scope: oc.Scope,
		}}
	}
	if oc.Scope != "" {
		scopes := strings.Fields(oc.Scope)
		cfg.ScopeFilter = func(discovered []string) []string { return unionScopes(scopes, discovered) }
	}
	h, err := auth.NewAuthorizationCodeHandler(cfg)
	if err != nil {
		return fmt.Errorf("OAuth configuration of %s: %w", s.Name, err)
	}
	c := sdk.NewClient(&sdk.Implementation{Name: "pi", Version: o.Version}, nil)
	cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: s.URL, HTTPClient: client, OAuthHandler: h}, nil)
	if err != nil {
		return fmt.Errorf("sign in to %s: %w", s.Name, err)
	}
	cs.Close()
	if saveErr != nil {
		return fmt.Errorf("store the sign-in: %w", saveErr)
	}
	return nil
}

func unionScopes(a, b []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range append(append([]string(nil), a...), b...) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
