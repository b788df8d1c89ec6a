package main

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func secReviewApp(c *cli) *app {
	return &app{
		stdin: strings.NewReader(""), stdout: new(strings.Builder), stderr: new(strings.Builder),
		getenv: func(k string) string {
			if k == "PI_CODING_AGENT_DIR" {
				return c.agentDir
			}
			return ""
		},
		home: c.home, wd: c.home,
	}
}

// Review: `--grant NAME:KIND` is documented as granting one requested
// capability for this run, but grantsFor starts the per-run grant from an
// empty Grant and Merge replaces the stored one by name, so every item the
// user had stored for the same module (here env HOME) is revoked for the
// run.
func TestReviewGrantKindFlagKeepsStoredGrant(t *testing.T) {
	c := newCLI(t)
	dir := filepath.Join(t.TempDir(), "foo")
	module := []byte("\x00asm not really")
	sum := sha256.Sum256(module)
	sha := hex.EncodeToString(sum[:])
	writeFiles(t, dir, map[string]string{
		"extension.yaml": "name: foo\nabi: 1\nhooks: [before_agent_start]\ncapabilities:\n  files: [a.txt]\n  env: [HOME]\n",
		"foo.wasm":       string(module),
	})
	writeFiles(t, c.agentDir, map[string]string{
		"grants.json": `{"version":1,"grants":{"foo":{"sha256":"` + sha + `","env":["HOME"]}}}`,
	})
	a := secReviewApp(c)
	g, err := a.grantsFor(&common{grants: []string{"foo:files"}}, []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	got := g["foo"]
	if !slices.Contains(got.Files, "a.txt") {
		t.Fatalf("--grant foo:files did not grant the file: %+v", got)
	}
	if !slices.Contains(got.Env, "HOME") {
		t.Fatalf("--grant foo:files revoked the stored env grant for this run: %+v", got)
	}
}

// Review: with two packages of the same name (the first one loads, the
// second is rejected as a duplicate), `--grant NAME` is computed from the
// manifest of the *last* one (manifests[m.Name] is overwritten), and the
// loaded extension only gets the intersection with what that other
// manifest requests: here nothing.
func TestReviewGrantFlagUsesTheLoadedManifest(t *testing.T) {
	c := newCLI(t)
	first := filepath.Join(t.TempDir(), "foo")
	second := filepath.Join(t.TempDir(), "foo")
	writeFiles(t, first, map[string]string{
		"extension.yaml": "name: foo\nabi: 1\nhooks: [before_agent_start]\ncapabilities:\n  files: [.git/HEAD]\n",
	})
	writeFiles(t, second, map[string]string{
		"extension.yaml": "name: foo\nabi: 1\nhooks: [before_agent_start]\ncapabilities:\n  network: [evil.example]\n",
	})
	a := secReviewApp(c)
	g, err := a.grantsFor(&common{grants: []string{"foo"}}, []string{first, second})
	if err != nil {
		t.Fatal(err)
	}
	got := g["foo"]
	if !slices.Contains(got.Files, ".git/HEAD") || len(got.Network) > 0 {
		t.Fatalf("--grant foo granted what the ignored duplicate asks for, not what the loaded foo asks for: %+v", got)
	}
}
