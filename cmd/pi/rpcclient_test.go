package main

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/piwasm/pi/internal/scripted"
)

// rpcClientRun is what the established harness's RpcClient returned for
// each call of testdata/rpcclient/drive.mjs, and the types of the events
// of its prompt.
type rpcClientRun struct {
	Calls []struct {
		Name  string          `json:"name"`
		OK    bool            `json:"ok"`
		Data  json.RawMessage `json:"data"`
		Error string          `json:"error"`
	} `json:"calls"`
	Events []string `json:"events"`
}

// driveRPCClient runs drive.mjs with cli (the established harness's cli.js,
// or the wrapper that starts pi) against its own scripted model.
func driveRPCClient(t *testing.T, node, pkg, cli string, env []string) rpcClientRun {
	t.Helper()
	c := newCLI(t)
	srv := httptest.NewServer(&scripted.Server{Fallback: "Hello from the model."})
	t.Cleanup(srv.Close)
	writeFiles(t, c.agentDir, map[string]string{
		"models.json": `{"providers":{"mock":{"baseUrl":"` + srv.URL + `/v1","api":"openai-completions","apiKey":"k","models":[` +
			`{"id":"mock-1","contextWindow":100000,"maxTokens":1000},{"id":"mock-2","reasoning":true,"contextWindow":100000,"maxTokens":1000}]}}}`,
	})
	drive, err := filepath.Abs(filepath.Join("testdata", "rpcclient", "drive.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, drive, pkg, cli, c.home)
	cmd.Env = append(append(c.peerEnv(), "PATH="+filepath.Dir(node)+string(os.PathListSeparator)+os.Getenv("PATH")), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s through the client library: %v\n%s", cli, err, stderr.String())
	}
	var run rpcClientRun
	if err := json.Unmarshal(out, &run); err != nil {
		t.Fatalf("drive.mjs printed %q: %v\n%s", out, err, stderr.String())
	}
	return run
}

// shapeOf describes a JSON value by its keys and types, recursively: what
// a client's code depends on. An array is the shapes of its elements,
// each once.
func shapeOf(raw any) string {
	switch v := raw.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + ":" + shapeOf(v[k])
		}
		return "{" + strings.Join(parts, ",") + "}"
	case []any:
		seen := map[string]bool{}
		var parts []string
		for _, x := range v {
			if s := shapeOf(x); !seen[s] {
				seen[s] = true
				parts = append(parts, s)
			}
		}
		return "[" + strings.Join(parts, "|") + "]"
	case nil:
		return "null"
	default:
		return fmt.Sprintf("%T", v)
	}
}

// TestRPCClientShapes drives pi and the established harness with that
// harness's own RPC client library through the same session (a prompt, the
// messages, the commands, a direct bash command, model and thinking
// cycles, stats, fork messages, a clone of an unsaved session) and
// compares what the library hands its caller for each call.
func TestRPCClientShapes(t *testing.T) {
	node, peerCLI := peerHarness(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	wrapper, err := filepath.Abs(filepath.Join("testdata", "rpcclient", "pi-as-cli.cjs"))
	if err != nil {
		t.Fatal(err)
	}
	pkg := filepath.Dir(filepath.Dir(filepath.Dir(peerCLI)))
	peer := driveRPCClient(t, node, pkg, peerCLI, nil)
	pi := driveRPCClient(t, node, pkg, wrapper, []string{"PI_RPC_BIN=" + self, "PI_TEST_AS_PI=1"})
	if len(peer.Calls) != len(pi.Calls) {
		t.Fatalf("the established harness made %d calls, pi %d", len(peer.Calls), len(pi.Calls))
	}
	for i, want := range peer.Calls {
		got := pi.Calls[i]
		if got.OK != want.OK {
			t.Errorf("%s: pi ok=%v (%s), the established harness ok=%v (%s)", want.Name, got.OK, got.Error, want.OK, want.Error)
			continue
		}
		w, g := clientShape(want.Data), clientShape(got.Data)
		if w != g {
			t.Errorf("%s: what the client returns differs\npi:   %s\npeer: %s", want.Name, g, w)
		}
	}
	if !reflect.DeepEqual(pi.Events, peer.Events) {
		t.Errorf("the prompt's events differ\npi:   %v\npeer: %v", pi.Events, peer.Events)
	}
}

// clientShape is the shape of what the client library returned, as a
// client's code sees it: a key set to false, "" or null reads as one that
// is absent, so both are left out. What differs by design is left out too
// (docs/rpc.md): the established harness's built-in extension commands
// (/llama, /mcp), which pi has as its own commands, and the
// constrainedSampling member it adds to the tools its prompt records.
func clientShape(raw json.RawMessage) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return "invalid JSON: " + string(raw)
	}
	var norm func(any) any
	norm = func(x any) any {
		switch v := x.(type) {
		case map[string]any:
			out := map[string]any{}
			for k, e := range v {
				if e == nil || e == false || e == "" || k == "constrainedSampling" {
					continue
				}
				out[k] = norm(e)
			}
			return out
		case []any:
			out := []any{}
			for _, e := range v {
				if m, ok := e.(map[string]any); ok {
					if info, ok := m["sourceInfo"].(map[string]any); ok && info["source"] == "builtin" {
						continue
					}
				}
				out = append(out, norm(e))
			}
			return out
		}
		return x
	}
	return shapeOf(norm(v))
}
