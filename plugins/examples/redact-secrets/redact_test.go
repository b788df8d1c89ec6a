//go:build !wasip1

package main

import (
	"strings"
	"testing"

	"github.com/piwasm/pi/abi"
	sdk "github.com/piwasm/pi/sdk-guest"
)

func TestRedact(t *testing.T) {
	// Fake secrets, built from pieces so that no scanner mistakes this
	// file for a leak.
	aws := "AKIA" + "IOSFODNN7EXAMPLE"
	awsSecret := "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY"
	gh := "ghp_" + strings.Repeat("a1B2", 9)
	pat := "github_pat_" + strings.Repeat("x9", 20)
	slack := "xoxb-" + "1234567890-abcdefghij"
	openai := "sk-proj-" + strings.Repeat("Ab3_", 8)
	key := "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nAAAA\n-----END OPENSSH PRIVATE KEY-----"
	cases := []struct {
		name, in, want string
		n              int
	}{
		{"aws key id", "id=" + aws + " ok", "id=[redacted:aws-access-key] ok", 1},
		{"aws secret", "aws_secret_access_key = " + awsSecret, "aws_secret_access_key = [redacted:aws-secret-key]", 1},
		{"aws secret json", `"AWS_SECRET_ACCESS_KEY": "` + awsSecret + `"`, `"AWS_SECRET_ACCESS_KEY": "[redacted:aws-secret-key]"`, 1},
		{"github", "token " + gh + "\nand " + pat, "token [redacted:github-token]\nand [redacted:github-token]", 2},
		{"slack", "SLACK=" + slack, "SLACK=[redacted:slack-token]", 1},
		{"openai", "OPENAI_API_KEY=" + openai, "OPENAI_API_KEY=[redacted:openai-key]", 1},
		{"private key", "before\n" + key + "\nafter", "before\n[redacted:private-key]\nafter", 1},
		{"cut-off private key", "x\n-----BEGIN RSA PRIVATE KEY-----\nMIIE", "x\n[redacted:private-key]", 1},
		{"nothing", "go test ./... ok; sk-short; AKIA123", "go test ./... ok; sk-short; AKIA123", 0},
		{"a word, not a token", "ask-questions-everywhere-in-the-code", "ask-questions-everywhere-in-the-code", 0},
	}
	for _, c := range cases {
		got, n := Redact(c.in, "[redacted]")
		if got != c.want || n != c.n {
			t.Errorf("%s:\n got %q (%d)\nwant %q (%d)", c.name, got, n, c.want, c.n)
		}
	}
}

func FuzzRedact(f *testing.F) {
	f.Add("AKIA" + "IOSFODNN7EXAMPLE and -----BEGIN PRIVATE KEY-----")
	f.Fuzz(func(t *testing.T, s string) {
		out, n := Redact(s, "[redacted]")
		if n == 0 && out != s {
			t.Fatalf("changed without a match: %q -> %q", s, out)
		}
		if again, m := Redact(out, "[redacted]"); m != 0 || again != out {
			t.Fatalf("masking is not stable: %q -> %q", out, again)
		}
	})
}

// The hook itself, through the SDK's harness: only text parts with a
// secret change, and a clean result is sent back unchanged.
func TestHook(t *testing.T) {
	h := &sdk.Harness{Config: `{"mask":"***"}`}
	tok := "xoxp-" + "0000000000-zzzzzzzzzz"
	p, err := h.ToolResult(abi.ToolResultEvent{ToolName: "bash", Content: []abi.ContentPart{
		{Type: "text", Text: "export SLACK=" + tok},
		{Type: "image", Data: "AAAA", MimeType: "image/png"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Content) != 2 || p.Content[0].Text != "export SLACK=***" || p.Content[1].Data != "AAAA" {
		t.Fatalf("patch: %+v", p)
	}
	p, err = h.ToolResult(abi.ToolResultEvent{ToolName: "read", Content: []abi.ContentPart{{Type: "text", Text: "hello"}}})
	if err != nil || p.Content != nil || p.IsError != nil {
		t.Fatalf("a clean result must come back unchanged: %+v %v", p, err)
	}
}
