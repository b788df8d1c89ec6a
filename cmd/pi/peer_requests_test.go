package main

import (
	"bufio"
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"flag"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	goruntime "runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/piwasm/pi/internal/scripted"
)

var updatePeerRequests = flag.Bool("update-peer-requests", false, "rewrite testdata/peer-requests from the established harness's requests")

// peerRequestCase is one model selection over one models.json: the
// established harness and pi are each run once with it (-p --no-tools
// --no-session), and the first model request each sends is compared.
type peerRequestCase struct {
	name   string
	models string   // models.json, relative to the repository root ("" for none)
	args   []string // --model and --thinking
}

// peerRequestEnv is the environment of every run: fake keys for every
// provider the examples use, and the variables their headers name.
var peerRequestEnv = map[string]string{
	"ANTHROPIC_API_KEY":    "sk-ant",
	"OPENROUTER_API_KEY":   "sk-or",
	"AZURE_OPENAI_API_KEY": "az-key",
	"GEMINI_API_KEY":       "g-key",
	"OPENAI_API_KEY":       "sk-o",
	"XAI_API_KEY":          "xai",
	"ZAI_API_KEY":          "z",
	"GATEWAY_KEY":          "gw",
	"TEAM":                 "core",
}

// peerRequestCases are the examples of the established harness's
// models.json and providers documentation (core/provider/testdata/
// docs-examples) and the recorded set of core/provider/testdata/
// peer-requests, which covers the APIs, thinking levels and compat fields.
var peerRequestCases = []peerRequestCase{
	{"completions-default", "core/provider/testdata/peer-requests/models.json", []string{"--model", "vllm/qwen-thinking-model"}},
	{"completions-high", "core/provider/testdata/peer-requests/models.json", []string{"--model", "vllm/qwen-thinking-model:high"}},
	{"responses-default", "core/provider/testdata/peer-requests/models.json", []string{"--model", "resp/r1"}},
	{"responses-low", "core/provider/testdata/peer-requests/models.json", []string{"--model", "resp/r1:low"}},
	{"google-default", "core/provider/testdata/peer-requests/models.json", []string{"--model", "goog/gemini-2.5-flash"}},
	{"anthropic-default", "core/provider/testdata/peer-requests/models.json", []string{"--model", "anth/claude-x"}},
	{"anthropic-low", "core/provider/testdata/peer-requests/models.json", []string{"--model", "anth/claude-x:low"}},
	{"gateway-default", "core/provider/testdata/peer-requests/models.json", []string{"--model", "gateway/big"}},
	{"gateway-minimal", "core/provider/testdata/peer-requests/models.json", []string{"--model", "gateway/big:minimal"}},
	{"ollama-default", "core/provider/testdata/peer-requests/models.json", []string{"--model", "ollama/qwen2.5-coder:7b"}},
	{"azure-low", "core/provider/testdata/peer-requests/models.json", []string{"--model", "azure/dep:low"}},
	{"zai-high", "core/provider/testdata/peer-requests/models.json", []string{"--model", "zai/glm:high"}},
	{"docs-ollama", "core/provider/testdata/docs-examples/models-ollama.json", []string{"--model", "qwen2.5-coder:7b"}},
	{"docs-ollama-high", "core/provider/testdata/docs-examples/models-ollama.json", []string{"--model", "ollama/qwen2.5-coder:7b", "--thinking", "high"}},
	{"docs-anthropic-proxy", "core/provider/testdata/docs-examples/models-anthropic-proxy.json", []string{"--model", "anthropic/claude-sonnet-4-5"}},
	{"docs-input-limits", "core/provider/testdata/docs-examples/models-input-limits.json", []string{"--model", "vision-model"}},
	{"docs-prompt-cache", "core/provider/testdata/docs-examples/models-prompt-cache.json", []string{"--model", "anthropic/claude-sonnet-5"}},
	{"docs-sampling", "core/provider/testdata/docs-examples/models-sampling.json", []string{"--model", "qwen-thinking-model"}},
	{"docs-sampling-off", "core/provider/testdata/docs-examples/models-sampling.json", []string{"--model", "qwen-thinking-model:off"}},
	{"docs-openrouter-region", "core/provider/testdata/docs-examples/providers-openrouter-region.json", []string{"--model", "openrouter/anthropic/claude-sonnet-4.5"}},
	{"docs-azure-foundry", "core/provider/testdata/docs-examples/providers-azure-foundry.json", []string{"--model", "azure/your-deployment"}},
	{"builtin-google", "", []string{"--model", "google/gemini-2.5-flash"}},
	{"builtin-openai", "", []string{"--model", "openai/gpt-4o"}},
	{"builtin-xai-low", "", []string{"--model", "xai/grok-4", "--thinking", "low"}},
	{"docs-fields-all", "core/provider/testdata/docs-examples/fields-all.json", []string{"--model", "gateway/big"}},
}

// capturedRequest is one model request as a golden file keeps it: the URL
// (a loopback server's address replaced by "http://loopback"), the headers
// that are neither the HTTP client's own nor per-run values, and the body.
type capturedRequest struct {
	Args    []string          `json:"args"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    any               `json:"body,omitempty"`
	// Refused is set when no request was sent: the run's first line of
	// output (the established harness asks for a key where pi may not).
	Refused string `json:"refused,omitempty"`
}

// TestPeerRequestCapture runs the established harness on every example and
// checks that the requests it sends are still the golden files (with
// -update-peer-requests, rewrites them). It needs the harness installed
// (make peer); TestRequestsEqualPeer compares pi with the files without it.
func TestPeerRequestCapture(t *testing.T) {
	node, cli := peerHarness(t)
	for _, c := range peerRequestCases {
		t.Run(c.name, func(t *testing.T) {
			got := captureRun(t, c, func(agentDir, home, proj string, env []string) *exec.Cmd {
				cmd := exec.Command(node, append(append([]string{cli, "-p", "--no-tools", "--no-session"}, c.args...), "Hi")...)
				cmd.Dir = proj
				cmd.Env = append(env, "PI_OFFLINE=1", "PI_SKIP_VERSION_CHECK=1", "PI_TELEMETRY=0")
				return cmd
			})
			golden := filepath.Join("testdata", "peer-requests", c.name+".json")
			if *updatePeerRequests {
				b, _ := json.MarshalIndent(got, "", "  ")
				if err := os.WriteFile(golden, append(b, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			compareCaptured(t, golden, got, nil, peerRunDependent[c.name])
		})
	}
}

// peerRunDependent are fields of the established harness's request that
// change from run to run: for a built-in model it sends as many output
// tokens as the context window leaves after its estimate of the prompt,
// and the prompt holds the date and the project's path.
var peerRunDependent = map[string][]string{
	"builtin-xai-low": {"body.max_output_tokens"},
}

// peerRequestDifferences are the ways pi's request knowingly differs from
// the established harness's, by case: each is explained in
// docs/configuration.md ("Requests").
var peerRequestDifferences = map[string][]string{
	// pi has no built-in model catalog: a built-in provider's model that
	// models.json does not describe gets the documented defaults (16384
	// output tokens, no thinking, the provider's one API), where the
	// established harness takes reasoning, maxTokens, the API and the
	// newest id from its catalog.
	// The url: an Anthropic base ending in /v1 gets /v1/messages from pi,
	// /v1/v1/messages from the established harness's SDK.
	"docs-anthropic-proxy":   {"url", "header anthropic-beta", "body.max_tokens", "body.thinking"},
	"builtin-google":         {"body.generationConfig.maxOutputTokens", "body.generationConfig.thinkingConfig"},
	"builtin-xai-low":        {"body.max_output_tokens", "body.model"},
	"docs-openrouter-region": {"url", "header anthropic-beta", "body.max_tokens", "body.thinking"},
	// Message threads, which the established harness uses with
	// api.anthropic.com and pi does not.
	"docs-prompt-cache": {"header anthropic-beta", "body.thread"},
	// A provider of models.json without apiKey: the established harness
	// refuses to send ("No API key found"); pi sends without a key, as a
	// local server needs none.
	"docs-input-limits": {"refused"},
	"docs-sampling":     {"refused"},
	"docs-sampling-off": {"refused"},
}

// TestRequestsEqualPeer runs pi on every example and compares its first
// request with the one the established harness sent for it
// (testdata/peer-requests): URL, headers and body.
func TestRequestsEqualPeer(t *testing.T) {
	if goruntime.GOOS != "linux" {
		// The capture proxy's authority is trusted through SSL_CERT_FILE,
		// which Go reads from the environment on Linux only.
		t.Skip("the https cases need SSL_CERT_FILE, honoured on Linux")
	}
	for _, c := range peerRequestCases {
		t.Run(c.name, func(t *testing.T) {
			got := captureRun(t, c, func(agentDir, home, proj string, env []string) *exec.Cmd {
				cmd := exec.Command(os.Args[0], append(append([]string{"-p", "--no-tools", "--no-session", "--cwd", proj}, c.args...), "Hi")...)
				cmd.Dir = proj
				cmd.Env = append(env, "PI_TEST_AS_PI=1")
				return cmd
			})
			compareCaptured(t, filepath.Join("testdata", "peer-requests", c.name+".json"), got, peerRequestDifferences[c.name], nil)
		})
	}
}

// compareCaptured compares a request with a golden file, field by field,
// leaving out the paths listed in allowed (which must differ) and in
// volatile (which may).
func compareCaptured(t *testing.T, golden string, got capturedRequest, allowed, volatile []string) {
	t.Helper()
	data, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (the established harness's request; run TestPeerRequestCapture with -update-peer-requests)", err)
	}
	var want capturedRequest
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	// Round-trip ours too, so numbers compare as the file's do.
	b, _ := json.Marshal(got)
	got = capturedRequest{}
	json.Unmarshal(b, &got)
	skip := map[string]bool{}
	for _, a := range append(append([]string(nil), allowed...), volatile...) {
		skip[a] = true
	}
	if (got.Refused != "") != (want.Refused != "") {
		if !skip["refused"] {
			t.Errorf("refused: %q, the established harness: %q", got.Refused, want.Refused)
		}
		return
	}
	if skip["refused"] {
		t.Errorf("listed as refused by one harness only, but both did the same (%q): update peerRequestDifferences", got.Refused)
	}
	differs := map[string]bool{}
	if got.URL != want.URL {
		differs["url"] = true
		if !skip["url"] {
			t.Errorf("url %s, the established harness: %s", got.URL, want.URL)
		}
	}
	for _, k := range unionKeys(got.Headers, want.Headers) {
		g, gok := got.Headers[k]
		w, wok := want.Headers[k]
		if g != w || gok != wok {
			differs["header "+k] = true
			if !skip["header "+k] {
				t.Errorf("header %s: %s, the established harness: %s", k, present(g, gok), present(w, wok))
			}
		}
	}
	diffJSON(t, "body", got.Body, want.Body, skip, differs)
	// A listed difference that is gone must leave the list.
	for _, a := range allowed {
		if a != "refused" && !differs[a] {
			t.Errorf("%s no longer differs: take it out of peerRequestDifferences", a)
		}
	}
}

func present(v string, ok bool) string {
	if !ok {
		return "(none)"
	}
	return fmt.Sprintf("%q", v)
}

func unionKeys[V any](a, b map[string]V) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range []map[string]V{a, b} {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}

// diffJSON reports where two decoded JSON values differ, by path.
func diffJSON(t *testing.T, path string, got, want any, skip, differs map[string]bool) {
	t.Helper()
	if skip[path] {
		differs[path] = !reflect.DeepEqual(got, want)
		return
	}
	gm, gok := got.(map[string]any)
	wm, wok := want.(map[string]any)
	if gok && wok {
		for _, k := range unionKeys(gm, wm) {
			diffJSON(t, path+"."+k, gm[k], wm[k], skip, differs)
		}
		return
	}
	ga, gok := got.([]any)
	wa, wok := want.([]any)
	if gok && wok && len(ga) == len(wa) {
		for i := range ga {
			diffJSON(t, fmt.Sprintf("%s[%d]", path, i), ga[i], wa[i], skip, differs)
		}
		return
	}
	if !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Errorf("%s: %s, the established harness: %s", path, g, w)
	}
}

// captureRun starts a capturing loopback model and proxy, writes the
// case's models.json (loopback addresses pointed at the capture server;
// https hosts reached through the proxy, which answers for any host with a
// certificate of a test authority), runs the command and returns the first
// model request it sent.
func captureRun(t *testing.T, c peerRequestCase, command func(agentDir, home, proj string, env []string) *exec.Cmd) capturedRequest {
	t.Helper()
	cp := newCaptureProxy(t)
	home := t.TempDir()
	agentDir := filepath.Join(home, ".pi", "agent")
	proj := filepath.Join(home, "proj")
	files := map[string]string{"settings.json": `{"httpProxy":"` + cp.url + `","retry":{"enabled":false}}`}
	if c.models != "" {
		raw, err := os.ReadFile(filepath.Join(repoRoot, c.models))
		if err != nil {
			t.Fatal(err)
		}
		m := string(raw)
		for _, local := range []string{"http://127.0.0.1:18765", "http://localhost:11434", "http://localhost:8080", "http://localhost:8000"} {
			m = strings.ReplaceAll(m, local, cp.direct)
		}
		files["models.json"] = m
	}
	writeFiles(t, agentDir, files)
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "PI_CODING_AGENT_DIR=" + agentDir,
		"NODE_EXTRA_CA_CERTS=" + cp.caFile, "SSL_CERT_FILE=" + cp.caFile}
	for k, v := range peerRequestEnv {
		env = append(env, k+"="+v)
	}
	cmd := command(agentDir, home, proj, env)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil && testing.Verbose() {
			t.Logf("run ended with %v:\n%s", err, out.String())
		}
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("no end after 60s:\n%s", out.String())
	}
	reqs := cp.requests()
	if len(reqs) == 0 {
		first, _, _ := strings.Cut(strings.TrimSpace(out.String()), "\n")
		return capturedRequest{Args: c.args, Refused: first}
	}
	r := reqs[0]
	r.Args = c.args
	return r
}

// captureProxy is a loopback model server that is also an HTTP proxy: a
// CONNECT tunnel is answered with TLS under a certificate made for the
// host asked for, so a request to a provider's real address is seen as
// sent, and never leaves the machine.
type captureProxy struct {
	t      *testing.T
	url    string // the proxy
	direct string // the same server as a plain model base URL
	caFile string
	ca     *x509.Certificate
	caKey  *ecdsa.PrivateKey
	model  *scripted.Server

	mu    sync.Mutex
	reqs  []capturedRequest
	certs map[string]*tls.Certificate
}

func newCaptureProxy(t *testing.T) *captureProxy {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "pi test capture authority"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(der)
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	cp := &captureProxy{t: t, caFile: caFile, ca: ca, caKey: key, certs: map[string]*tls.Certificate{},
		model: &scripted.Server{Fallback: "ok"}}
	srv := httptest.NewServer(cp)
	t.Cleanup(srv.Close)
	cp.url, cp.direct = srv.URL, srv.URL
	return cp
}

func (cp *captureProxy) requests() []capturedRequest {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	return append([]capturedRequest(nil), cp.reqs...)
}

func (cp *captureProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		cp.tunnel(w, r)
		return
	}
	scheme, host := "http", r.Host
	if r.URL.IsAbs() {
		host = r.URL.Host
	}
	cp.serve(w, r, scheme, host)
}

// tunnel answers a CONNECT: TLS when the client starts a handshake, plain
// HTTP otherwise (some clients tunnel plain requests too).
func (cp *captureProxy) tunnel(w http.ResponseWriter, r *http.Request) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		http.Error(w, "no hijack", http.StatusInternalServerError)
		return
	}
	conn, rw, err := hj.Hijack()
	if err != nil {
		return
	}
	rw.WriteString("HTTP/1.1 200 Connection Established\r\n\r\n")
	rw.Flush()
	host := strings.TrimSuffix(r.Host, ":443")
	first, err := rw.Reader.Peek(1)
	if err != nil {
		conn.Close()
		return
	}
	var c net.Conn = &bufConn{Conn: conn, r: rw.Reader}
	scheme := "http"
	if first[0] == 0x16 {
		scheme = "https"
		c = tls.Server(c, &tls.Config{GetCertificate: cp.cert, NextProtos: []string{"http/1.1"}})
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { cp.serve(w, r, scheme, host) })}
	srv.Serve(&oneConnListener{c: c})
}

// cert makes (once per name) a certificate for the host a client asks for.
func (cp *captureProxy) cert(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	name := hello.ServerName
	cp.mu.Lock()
	defer cp.mu.Unlock()
	if c, ok := cp.certs[name]; ok {
		return c, nil
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(int64(len(cp.certs) + 2)), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), DNSNames: []string{name},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, cp.ca, &key.PublicKey, cp.caKey)
	if err != nil {
		return nil, err
	}
	c := &tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
	cp.certs[name] = c
	return c, nil
}

// clientOwnHeaders are set by an HTTP client or SDK on its own (transport,
// platform and retry bookkeeping), not by the harness for the provider.
func clientOwnHeader(name string) bool {
	switch name {
	case "user-agent", "accept-encoding", "accept-language", "sec-fetch-mode", "connection", "content-length", "host", "proxy-connection":
		return true
	}
	// x-goog-api-client names Google's SDK and Node's version.
	return strings.HasPrefix(name, "x-stainless-") || name == "x-goog-api-client"
}

// sessionHeaders carry the session id, which differs on every run.
var sessionHeaders = map[string]bool{"session-id": true, "session_id": true, "x-client-request-id": true, "x-session-id": true, "x-session-affinity": true}

// serve records one model request (normalised) and answers it.
func (cp *captureProxy) serve(w http.ResponseWriter, r *http.Request, scheme, host string) {
	body, _ := io.ReadAll(r.Body)
	if host == strings.TrimPrefix(cp.direct, "http://") {
		host = "loopback"
	}
	rec := capturedRequest{URL: scheme + "://" + host + r.URL.RequestURI(), Headers: map[string]string{}}
	for k, v := range r.Header {
		k = strings.ToLower(k)
		if clientOwnHeader(k) {
			continue
		}
		rec.Headers[k] = strings.Join(v, ", ")
		if sessionHeaders[k] {
			rec.Headers[k] = "<session id>"
		}
	}
	var b any
	if err := json.Unmarshal(body, &b); err == nil {
		normaliseBody(b)
		rec.Body = b
	} else {
		rec.Body = string(body)
	}
	cp.mu.Lock()
	cp.reqs = append(cp.reqs, rec)
	cp.mu.Unlock()
	r.Body = io.NopCloser(bytes.NewReader(body))
	if strings.Contains(r.URL.Path, ":streamGenerateContent") {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"candidates":[{"content":{"role":"model","parts":[{"text":"ok"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":1,"candidatesTokenCount":1}}`+"\n\n")
		return
	}
	cp.model.ServeHTTP(w, r)
}

// normaliseBody replaces what each harness writes for itself: its system
// prompt and the session id it keys the prompt cache with.
func normaliseBody(b any) {
	m, ok := b.(map[string]any)
	if !ok {
		return
	}
	const sys = "<system prompt>"
	if _, ok := m["prompt_cache_key"]; ok {
		m["prompt_cache_key"] = "<session id>"
	}
	for _, list := range []string{"messages", "input"} {
		msgs, _ := m[list].([]any)
		if len(msgs) == 0 {
			continue
		}
		if first, ok := msgs[0].(map[string]any); ok && (first["role"] == "system" || first["role"] == "developer") {
			first["content"] = sys
		}
	}
	if s, ok := m["system"].([]any); ok && len(s) > 0 {
		if blk, ok := s[0].(map[string]any); ok {
			blk["text"] = sys
		}
	}
	if _, ok := m["instructions"].(string); ok {
		m["instructions"] = sys
	}
	if si, ok := m["systemInstruction"].(map[string]any); ok {
		if parts, ok := si["parts"].([]any); ok && len(parts) > 0 {
			if p, ok := parts[0].(map[string]any); ok {
				p["text"] = sys
			}
		}
	}
}

// bufConn is a connection whose first bytes were already read into r.
type bufConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// oneConnListener hands http.Server one connection, then reports closed.
type oneConnListener struct {
	mu sync.Mutex
	c  net.Conn
}

func (l *oneConnListener) Accept() (net.Conn, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.c == nil {
		return nil, net.ErrClosed
	}
	c := l.c
	l.c = nil
	return c, nil
}
func (l *oneConnListener) Close() error   { return nil }
func (l *oneConnListener) Addr() net.Addr { return &net.TCPAddr{} }
