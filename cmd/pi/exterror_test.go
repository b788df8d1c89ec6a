package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/piwasm/pi/internal/scripted"
)

// trapperBuild builds testdata/guests/trapper once for this package.
var trapperBuild = guestOnce(filepath.Join("testdata", "guests", "trapper"))

// TestRPCExtensionError: an extension whose tool_call hook crashes, under
// the skip policy, is skipped (the tool runs) and RPC mode reports the
// failure as the established harness's extension_error record: the
// extension's package directory, the hook and the cause.
func TestRPCExtensionError(t *testing.T) {
	c := newCLI(t)
	wasm, err := trapperBuild()
	if err != nil {
		t.Fatal(err)
	}
	pkg := filepath.Join(t.TempDir(), "trapper")
	data, err := os.ReadFile(wasm)
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, pkg, map[string]string{"extension.yaml": "name: trapper\nabi: 1\nhooks: [tool_call]\n", "trapper.wasm": string(data)})
	scriptedModel(t, c, "openai-completions", []scripted.Reply{
		{Calls: []scripted.Call{{ID: "c1", Name: "bash", Args: json.RawMessage(`{"command":"echo ran"}`)}}},
		{Text: "Done."},
	})
	rc := startRPC(t, c, "--no-extensions", "-e", pkg)
	rc.send(`{"id":"p","type":"prompt","message":"run it"}`)
	rc.response("p")
	e := rc.event("extension_error")
	if e["extensionPath"] != pkg || e["event"] != "tool_call" || len(e) != 4 {
		t.Fatalf("extension_error: %v", e)
	}
	if msg, _ := e["error"].(string); msg == "" {
		t.Fatalf("extension_error without the cause: %v", e)
	}
	end := rc.event("tool_execution_end")
	if end["isError"] != false || !strings.Contains(toJSON(end["result"]), "ran") {
		t.Fatalf("the tool did not run past the skipped hook: %v", end)
	}
	rc.event("agent_settled")
	rc.in.Close()
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
