package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/piwasm/pi/internal/scripted"
)

// A misspelt key is reported with its file, line and the nearest known key,
// in `pi resources` and on stderr of a -p run; a key pi does not act on is
// listed by `pi resources` and reported on stderr only with --verbose.
func TestSettingsUnknownKeysAreReported(t *testing.T) {
	c := newCLI(t)
	srv, _ := mockOpenAI(t)
	writeFiles(t, c.agentDir, map[string]string{
		"models.json": `{"providers":{"mock":{"baseUrl":"` + srv.URL + `/v1","api":"openai-completions","apiKey":"k","models":[{"id":"mock-1"}]}}}`,
		"settings.json": `{
  "defaultModle": "mock-1",
  "retry": {"maxRetry": 1},
  "transport": "sse"
}`,
	})
	proj := t.TempDir()
	out, errs, code := c.run("resources", "--json", "--cwd", proj)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r struct {
		Settings []struct {
			Name, Status string
		}
		Diagnostics []struct {
			Kind, Path, Message string
			Line                int
		}
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	file := c.agentDir + "/settings.json"
	var got []string
	for _, d := range r.Diagnostics {
		if d.Path == file {
			got = append(got, d.Kind+"@"+string(rune('0'+d.Line))+":"+d.Message)
		}
	}
	want := []string{
		`unknown-setting@2:unknown setting "defaultModle" (did you mean "defaultModel"?)`,
		`unknown-setting@3:unknown setting "retry.maxRetry" (did you mean "retry.maxRetries"?)`,
		`ignored-setting@4:transport has no effect in pi (pi speaks SSE only)`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(r.Settings) != 1 || r.Settings[0].Name != "transport" || r.Settings[0].Status != "unsupported" {
		t.Errorf("settings in force %+v", r.Settings)
	}

	_, errs, code = c.run("-p", "hi", "--cwd", proj, "--no-session")
	if code != 0 || !strings.Contains(errs, file+`:2: unknown setting "defaultModle" (did you mean "defaultModel"?)`) || strings.Contains(errs, "transport") {
		t.Errorf("-p: exit %d, stderr:\n%s", code, errs)
	}
	_, errs, _ = c.run("-p", "hi", "--cwd", proj, "--no-session", "--verbose")
	if !strings.Contains(errs, "transport has no effect") {
		t.Errorf("--verbose: stderr:\n%s", errs)
	}
}

// settingsRun is a -p run against a scripted model with the given
// settings.json and models.json (URL is replaced by the model's address);
// it returns the request bodies.
func settingsRun(t *testing.T, c *cli, settingsJSON, modelsJSON string, replies []scripted.Reply, args ...string) ([]map[string]any, string) {
	t.Helper()
	s := &scripted.Server{Replies: replies}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	writeFiles(t, c.agentDir, map[string]string{
		"settings.json": settingsJSON,
		"models.json":   strings.ReplaceAll(modelsJSON, "URL", srv.URL+"/v1"),
	})
	_, errs, code := c.run(append([]string{"-p", "--no-session"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var out []map[string]any
	for _, raw := range s.Requests() {
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out, errs
}

func toolNames(req map[string]any) string {
	var names []string
	tools, _ := req["tools"].([]any)
	for _, t := range tools {
		names = append(names, t.(map[string]any)["function"].(map[string]any)["name"].(string))
	}
	return strings.Join(names, ",")
}

// lastToolResult is the text of the last tool message of a request.
func lastToolResult(req map[string]any) string {
	msgs := req["messages"].([]any)
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i].(map[string]any)
		if m["role"] == "tool" {
			b, _ := json.Marshal(m["content"])
			return string(b)
		}
	}
	return ""
}

// A dozen keys at once, each seen in the requests or the tool output.
func TestSettingsTakeEffect(t *testing.T) {
	c := newCLI(t)
	proj := t.TempDir()
	shell := filepath.Join(c.home, "mysh")
	writeFiles(t, c.home, map[string]string{"mysh": "#!/bin/sh\necho via-mysh\nexec bash \"$@\"\n"})
	if err := os.Chmod(shell, 0o755); err != nil {
		t.Fatal(err)
	}
	models := `{"providers":{
  "first":{"baseUrl":"URL","api":"openai-completions","apiKey":"k","models":[{"id":"m-a"}]},
  "second":{"baseUrl":"URL","api":"openai-completions","apiKey":"k","models":[{"id":"m-b","reasoning":true},{"id":"m-c","reasoning":true}]}}}`
	reqs, _ := settingsRun(t, c, `{
  "defaultProvider": "second",
  "defaultModel": "m-b",
  "defaultThinkingLevel": "low",
  "modelThinkingLevels": {"second/m-c": "high"},
  "defaultTools": ["-edit", "+grep"],
  "shellPath": "~/mysh",
  "shellCommandPrefix": "export FOO=bar"
}`, models, []scripted.Reply{
		{Calls: []scripted.Call{{ID: "b1", Name: "bash", Args: json.RawMessage(`{"command":"echo FOO=$FOO"}`)}}},
		{Text: "done"},
	}, "--cwd", proj, "hi")
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if r["model"] != "m-b" {
		t.Errorf("defaultProvider/defaultModel: model %v", r["model"])
	}
	if r["reasoning_effort"] != "low" {
		t.Errorf("defaultThinkingLevel: reasoning_effort %v", r["reasoning_effort"])
	}
	if got := toolNames(r); got != "read,bash,write,grep" {
		t.Errorf("defaultTools: tools %s", got)
	}
	out := lastToolResult(reqs[1])
	if !strings.Contains(out, "FOO=bar") {
		t.Errorf("shellCommandPrefix: tool output %s", out)
	}
	if !strings.Contains(out, "via-mysh") {
		t.Errorf("shellPath: tool output %s", out)
	}

	// modelThinkingLevels wins over defaultThinkingLevel for its model;
	// --tools with a plain name replaces defaultTools.
	reqs, _ = settingsRun(t, c, `{"defaultThinkingLevel":"low","modelThinkingLevels":{"second/m-c":"high"},"defaultTools":["-edit"]}`, models,
		[]scripted.Reply{{Text: "ok"}}, "--cwd", proj, "--model", "second/m-c", "-t", "read", "hi")
	if reqs[0]["reasoning_effort"] != "high" || toolNames(reqs[0]) != "read" {
		t.Errorf("modelThinkingLevels/--tools: %v %s", reqs[0]["reasoning_effort"], toolNames(reqs[0]))
	}
	// Without the settings: the first model, medium, the four default tools.
	reqs, _ = settingsRun(t, c, `{}`, models, []scripted.Reply{{Text: "ok"}}, "--cwd", proj, "hi")
	if reqs[0]["model"] != "m-a" || toolNames(reqs[0]) != "read,bash,edit,write" {
		t.Errorf("defaults: %v %s", reqs[0]["model"], toolNames(reqs[0]))
	}
}

// retry.* set the number of retries and their exact waits; retry.enabled
// false turns them off; httpIdleTimeoutMs ends a stream that stalls.
func TestSettingsRetryAndIdleTimeout(t *testing.T) {
	c := newCLI(t)
	proj := t.TempDir()
	delays := func(settingsJSON string, replies []scripted.Reply) ([]float64, int, string) {
		s := &scripted.Server{Replies: replies}
		srv := httptest.NewServer(s)
		t.Cleanup(srv.Close)
		writeFiles(t, c.agentDir, map[string]string{
			"settings.json": settingsJSON,
			"models.json":   `{"providers":{"mock":{"baseUrl":"` + srv.URL + `/v1","api":"openai-completions","apiKey":"k","models":[{"id":"mock-1"}]}}}`,
		})
		out, errs, code := c.run("--mode", "json", "--no-session", "--cwd", proj, "hi")
		var d []float64
		for _, ev := range jsonEvents(t, out) {
			if ev["type"] == "auto_retry_start" {
				d = append(d, ev["delayMs"].(float64))
			}
		}
		return d, code, errs
	}
	fail := scripted.Reply{Status: 503}
	d, code, errs := delays(`{"retry":{"baseDelayMs":20,"maxAgentDelayMs":50,"maxRetries":3}}`, []scripted.Reply{fail, fail, fail, {Text: "ok"}})
	if code != 0 || fmt.Sprint(d) != "[20 40 50]" {
		t.Errorf("retry waits %v (exit %d: %s), want [20 40 50]", d, code, errs)
	}
	d, code, _ = delays(`{"retry":{"baseDelayMs":20,"maxRetries":1}}`, []scripted.Reply{fail, fail, {Text: "ok"}})
	if code != 1 || fmt.Sprint(d) != "[20]" {
		t.Errorf("retry.maxRetries 1: waits %v, exit %d", d, code)
	}
	d, code, _ = delays(`{"retry":{"enabled":false,"baseDelayMs":20}}`, []scripted.Reply{fail, {Text: "ok"}})
	if code != 1 || len(d) != 0 {
		t.Errorf("retry.enabled false: waits %v, exit %d", d, code)
	}
	_, code, errs = delays(`{"httpIdleTimeoutMs":150,"retry":{"enabled":false}}`, []scripted.Reply{{Text: "a slow reply", DelayMs: 5000}})
	if code != 1 || !strings.Contains(errs, "no data from the server for 150ms") {
		t.Errorf("httpIdleTimeoutMs: exit %d, stderr %s", code, errs)
	}
}

// httpProxy sends model requests through the proxy it names.
func TestSettingsHTTPProxy(t *testing.T) {
	c := newCLI(t)
	s := &scripted.Server{Replies: []scripted.Reply{{Text: "via proxy"}}}
	proxy := httptest.NewServer(s)
	t.Cleanup(proxy.Close)
	writeFiles(t, c.agentDir, map[string]string{
		"settings.json": `{"httpProxy":"` + proxy.URL + `","retry":{"enabled":false}}`,
		"models.json":   `{"providers":{"mock":{"baseUrl":"http://model.invalid/v1","api":"openai-completions","apiKey":"k","models":[{"id":"mock-1"}]}}}`,
	})
	out, errs, code := c.run("-p", "--no-session", "--cwd", t.TempDir(), "hi")
	if code != 0 || out != "via proxy\n" || s.Served() != 1 {
		t.Fatalf("exit %d, out %q, served %d, stderr %s", code, out, s.Served(), errs)
	}
}

// sessionDir keeps sessions in a directory of its own (relative to the
// working directory); PI_CODING_AGENT_SESSION_DIR overrides it; -c and
// pi session list find them there.
func TestSettingsSessionDir(t *testing.T) {
	c := newCLI(t)
	proj := t.TempDir()
	scriptedModel(t, c, "openai-completions", []scripted.Reply{{Text: "one"}, {Text: "two"}, {Text: "three"}, {Text: "four"}})
	writeFiles(t, c.agentDir, map[string]string{"settings.json": `{"sessionDir":"my-sessions"}`})
	if _, errs, code := c.run("-p", "--cwd", proj, "first"); code != 0 {
		t.Fatal(errs)
	}
	files, _ := filepath.Glob(filepath.Join(proj, "my-sessions", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("sessions in sessionDir: %v", files)
	}
	if n, _ := filepath.Glob(filepath.Join(c.agentDir, "sessions", "*", "*.jsonl")); len(n) != 0 {
		t.Fatalf("a session was still written under the agent dir: %v", n)
	}
	if _, errs, code := c.run("-p", "--cwd", proj, "-c", "second"); code != 0 {
		t.Fatal(errs)
	}
	if again, _ := filepath.Glob(filepath.Join(proj, "my-sessions", "*.jsonl")); len(again) != 1 {
		t.Fatalf("-c did not continue the session in sessionDir: %v", again)
	}
	out, _, _ := c.run("session", "list", "--cwd", proj, "--json")
	if !strings.Contains(out, filepath.Base(files[0])) {
		t.Errorf("pi session list: %s", out)
	}

	envDir := filepath.Join(t.TempDir(), "env-sessions")
	c.env = map[string]string{"PI_CODING_AGENT_SESSION_DIR": envDir}
	if _, errs, code := c.run("-p", "--cwd", proj, "third"); code != 0 {
		t.Fatal(errs)
	}
	if got, _ := filepath.Glob(filepath.Join(envDir, "*.jsonl")); len(got) != 1 {
		t.Fatalf("PI_CODING_AGENT_SESSION_DIR: %v", got)
	}
	// --session-dir wins over both.
	flagDir := filepath.Join(t.TempDir(), "flag-sessions")
	if _, errs, code := c.run("-p", "--cwd", proj, "--session-dir", flagDir, "fourth"); code != 0 {
		t.Fatal(errs)
	}
	if got, _ := filepath.Glob(filepath.Join(flagDir, "*.jsonl")); len(got) != 1 {
		t.Fatalf("--session-dir: %v", got)
	}
}

// images.autoResize scales an attached image to fit 2000×2000; a model
// whose input does not list "image" gets a note instead, as does every
// model with images.blockImages.
func TestSettingsImages(t *testing.T) {
	c := newCLI(t)
	proj := t.TempDir()
	img := image.NewRGBA(image.Rect(0, 0, 3000, 1000))
	var b bytes.Buffer
	png.Encode(&b, img)
	writeFiles(t, proj, map[string]string{"big.png": b.String()})
	models := `{"providers":{"m":{"baseUrl":"URL","api":"openai-completions","apiKey":"k","models":[{"id":"vision","input":["text","image"]},{"id":"text-only"}]}}}`
	sent := func(settingsJSON, model string) (string, string) {
		reqs, _ := settingsRun(t, c, settingsJSON, models, []scripted.Reply{{Text: "ok"}}, "--cwd", proj, "--model", "m/"+model, "@"+filepath.Join(proj, "big.png"), "what is it?")
		msgs := reqs[0]["messages"].([]any)
		parts, _ := msgs[len(msgs)-1].(map[string]any)["content"].([]any)
		var url, text string
		for _, p := range parts {
			p := p.(map[string]any)
			if iu, ok := p["image_url"].(map[string]any); ok {
				url = iu["url"].(string)
			} else if s, ok := p["text"].(string); ok {
				text += s
			}
		}
		return url, text
	}
	size := func(url string) string {
		data, err := base64.StdEncoding.DecodeString(url[strings.Index(url, ",")+1:])
		if err != nil {
			t.Fatal(err)
		}
		cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("%dx%d", cfg.Width, cfg.Height)
	}
	if url, _ := sent(`{}`, "vision"); url == "" || size(url) != "2000x667" {
		t.Errorf("autoResize: image %q", url)
	}
	if url, _ := sent(`{"images":{"autoResize":false}}`, "vision"); url == "" || size(url) != "3000x1000" {
		t.Errorf("autoResize false: image sent at %s", size(url))
	}
	if url, text := sent(`{}`, "text-only"); url != "" || !strings.Contains(text, "this model does not take images") {
		t.Errorf("text-only model: image %q, text %q", url, text)
	}
	if url, text := sent(`{"images":{"blockImages":true}}`, "vision"); url != "" || !strings.Contains(text, "images are turned off") {
		t.Errorf("blockImages: image %q, text %q", url, text)
	}
}

// steeringMode and followUpMode set the queue delivery (seen in RPC get_state).
func TestSettingsQueueModes(t *testing.T) {
	c := newCLI(t)
	scriptedModel(t, c, "openai-completions", []scripted.Reply{{Text: "ok"}})
	writeFiles(t, c.agentDir, map[string]string{"settings.json": `{"steeringMode":"all","followUpMode":"all"}`})
	c.stdinText = `{"id":"1","type":"get_state"}` + "\n"
	out, errs, code := c.run("--mode", "rpc", "--no-session", "--cwd", t.TempDir())
	if code != 0 || !strings.Contains(out, `"steeringMode":"all"`) || !strings.Contains(out, `"followUpMode":"all"`) {
		t.Fatalf("exit %d: %s\n%s", code, out, errs)
	}
}

// enableSkillCommands false: /skill:name is no longer a command.
func TestSettingsEnableSkillCommands(t *testing.T) {
	c := newCLI(t)
	writeFiles(t, c.agentDir, map[string]string{"skills/deploy/SKILL.md": "---\nname: deploy\ndescription: Ship it.\n---\nSteps."})
	proj := t.TempDir()
	kind := func() string {
		out, errs, code := c.run("expand", "--json", "--cwd", proj, "--", "/skill:deploy now")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		var e struct{ Kind string }
		json.Unmarshal([]byte(out), &e)
		return e.Kind
	}
	if k := kind(); k != "skill" {
		t.Fatalf("default: kind %q", k)
	}
	writeFiles(t, c.agentDir, map[string]string{"settings.json": `{"enableSkillCommands":false}`})
	if k := kind(); k != "text" {
		t.Errorf("enableSkillCommands false: kind %q", k)
	}
}
