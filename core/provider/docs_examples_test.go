package provider

import (
	"bytes"
	"encoding/json"

	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// docsEnv is the environment the documentation examples run in.
var docsEnv = fakeEnv(map[string]string{
	"ANTHROPIC_API_KEY":                "sk-ant",
	"OPENROUTER_API_KEY":               "sk-or",
	"AZURE_OPENAI_API_KEY":             "az-key",
	"AZURE_OPENAI_DEPLOYMENT_NAME_MAP": "gpt-5.4=my-gpt-deployment, deepseek-v4-pro=my-deepseek",
	"GEMINI_API_KEY":                   "g-key",
	"GATEWAY_KEY":                      "gw",
	"TEAM":                             "core",
})

// TestDocsExamples runs every models.json example of the TypeScript pi's
// docs (models.md, providers.md, and one file using every field of
// models-configuration.md) through model selection and DryRun, and compares
// the request each selection makes (URL, headers with secrets redacted,
// body) with testdata/docs-examples/*.golden. Run with -update to rewrite.
func TestDocsExamples(t *testing.T) {
	cases := []struct {
		file       string
		env        map[string]string // added to docsEnv
		selections []Selection
	}{
		{"models-ollama.json", nil, []Selection{{Model: "qwen2.5-coder:7b"}, {Model: "ollama/qwen2.5-coder:7b", Thinking: "high"}, {Model: "coder"}}},
		{"models-anthropic-proxy.json", nil, []Selection{{Model: "anthropic/claude-sonnet-4-5"}}},
		{"models-input-limits.json", nil, []Selection{{Model: "vision-model"}}},
		{"models-prompt-cache.json", nil, []Selection{{Model: "claude-sonnet-5"}, {Model: "anthropic/claude-opus-5-5"}}},
		{"models-sampling.json", nil, []Selection{{Model: "qwen-thinking-model"}, {Model: "qwen-thinking-model:off"}, {Model: "qwen-thinking-model:high"}, {Model: "qwen", Thinking: "max"}}},
		{"providers-openrouter-region.json", nil, []Selection{{Model: "openrouter/anthropic/claude-sonnet-4.5"}}},
		{"providers-azure-foundry.json", nil, []Selection{{Model: "azure/your-deployment"}}},
		{"providers-azure-foundry.json", map[string]string{"AZURE_OPENAI_RESOURCE_NAME": "your-resource"}, []Selection{{Model: "azure/gpt-5.4"}, {Model: "azure/your-deployment"}}},
		{"none.json", map[string]string{"OPENAI_API_KEY": "sk-o", "XAI_API_KEY": "xai"}, []Selection{{Model: "google/gemini-2.5-flash"}, {Model: "openai/gpt-4o"}, {Model: "xai/grok-4", Thinking: "low"}, {Model: "gpt-4o"}}},
		{"fields-all.json", nil, []Selection{{Model: "big"}, {Model: "override:xhigh"}, {Model: "gateway/big", Thinking: "minimal"}}},
	}
	for _, c := range cases {
		name := strings.TrimSuffix(c.file, ".json")
		if len(c.env) > 0 {
			keys := sortedKeys(c.env)
			name += "+" + strings.Join(keys, "+")
		}
		t.Run(name, func(t *testing.T) {
			vars := map[string]string{}
			for _, k := range []string{"OPENAI_API_KEY", "XAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY", "AZURE_OPENAI_API_KEY", "AZURE_OPENAI_DEPLOYMENT_NAME_MAP", "GEMINI_API_KEY", "GATEWAY_KEY", "TEAM"} {
				vars[k] = docsEnv(k)
			}
			for k, v := range c.env {
				vars[k] = v
			}
			m, err := LoadModels(filepath.Join("testdata", "docs-examples", c.file), fakeEnv(vars))
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			for _, s := range c.selections {
				fmt.Fprintf(&out, "### --model %q --thinking %q\n", s.Model, s.Thinking)
				sel, err := m.Select(s)
				if err != nil {
					fmt.Fprintf(&out, "error: %v\n\n", err)
					continue
				}
				writeRequest(t, &out, sel)
			}
			fmt.Fprintf(&out, "### --list-models\n%s", FormatModelList(m.ListModels("")))
			golden := filepath.Join("testdata", "docs-examples", name+".golden")
			if *update {
				if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -run TestDocsExamples -update)", err)
			}
			if !bytes.Equal(out.Bytes(), want) {
				t.Errorf("%s differs:\n%s", golden, out.String())
			}
		})
	}
}

func writeRequest(t *testing.T, out *bytes.Buffer, sel Selected) {
	t.Helper()
	r := sel.Route
	if sel.Warning != "" {
		fmt.Fprintf(out, "warning: %s\n", sel.Warning)
	}
	fmt.Fprintf(out, "route: %s/%s api=%s thinking=%q systemInHistory=%v\n", r.Provider, r.ModelID, r.API, r.Thinking, r.AcceptsSystemInHistory())
	info, err := DescribeRequest(r)
	if err != nil {
		fmt.Fprintf(out, "error: %v\n\n", err)
		return
	}
	fmt.Fprintf(out, "%s %s\n", info.Method, info.URL)
	names := make([]string, 0, len(info.Header))
	for k := range info.Header {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		fmt.Fprintf(out, "%s: %s\n", k, strings.Join(info.Header[k], ", "))
	}
	body, err := DryRun(r, Request{Messages: []Message{{Role: RoleSystem, Content: "You are pi."}, {Role: RoleUser, Content: "Hi"}}})
	if err != nil {
		fmt.Fprintf(out, "error: %v\n\n", err)
		return
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, body, "", "  "); err != nil {
		t.Fatalf("body is not JSON: %v\n%s", err, body)
	}
	fmt.Fprintf(out, "%s\n\n", pretty.String())
}
