package builtin

import (
	"fmt"
	"strings"
	"testing"
)

// searchTree is a small project: a git repository with ignore rules at two
// levels, hidden files, a binary, CRLF and a long line.
func searchTree(t *testing.T) (Env, string) {
	env, dir := newEnv(t)
	files(t, dir, map[string]string{
		".git/HEAD":             "ref: refs/heads/main\nneedle in git\n",
		".gitignore":            "build/\n*.log\n!keep.log\n",
		".hidden/conf":          "needle hidden\n",
		".env":                  "NEEDLE=1\n",
		"build/out.go":          "needle built\n",
		"debug.log":             "needle log\n",
		"keep.log":              "needle kept\n",
		"src/main.go":           "package main\n\n// needle one\nfunc main() {\n\tneedle()\n}\n",
		"src/util/util.go":      "package util\n\nfunc needle() {}\n",
		"src/util/.gitignore":   "gen_*.go\n",
		"src/util/gen_x.go":     "needle generated\n",
		"src/util/notes.txt":    "Needle upper\n",
		"src/crlf.txt":          "a\r\nneedle crlf\r\nb\r\n",
		"src/bin.dat":           "needle\x00binary",
		"src/long.txt":          "needle " + strings.Repeat("é", 600) + "\n",
		"docs/README.md":        "no match here\n",
		"docs/regex.md":         "a.b a+b (x)\n",
		"Zeta.txt":              "",
		"alpha.txt":             "",
		"src/link_to_main.go":   "->main.go",
		"vendor/mod/deep/x.go":  "needle vendored\n",
		"vendor/mod/deep/y.txt": "\n",
	})
	return env, dir
}

func TestGrep(t *testing.T) {
	env, dir := searchTree(t)
	cases := []struct{ name, args string }{
		{"basic", `{"pattern":"needle"}`},
		{"ignore_case", `{"pattern":"needle","ignoreCase":true,"path":"src"}`},
		{"literal", `{"pattern":"a.b","literal":true}`},
		{"regex_dot", `{"pattern":"a.b"}`},
		{"literal_parens", `{"pattern":"(x)","literal":true}`},
		{"bad_regex", `{"pattern":"(x"}`},
		{"context", `{"pattern":"needle\\(\\)","context":2,"path":"src"}`},
		{"glob_any_depth", `{"pattern":"needle","glob":"*.go"}`},
		{"glob_anchored", `{"pattern":"needle","glob":"src/*.go"}`},
		{"glob_negated", `{"pattern":"needle","glob":"!*.go","path":"src"}`},
		{"single_file", `{"pattern":"needle","path":"src/main.go"}`},
		{"limit_exact_no_notice", `{"pattern":"needle","path":"src/main.go","limit":2}`},
		{"limit_cut_with_proof", `{"pattern":"needle","path":"src","limit":1}`},
		{"limit_trailing_context", `{"pattern":"needle","path":"src/main.go","limit":1,"context":3}`},
		{"no_matches", `{"pattern":"zzz_nothing"}`},
		{"missing_path", `{"pattern":"x","path":"nope"}`},
		{"anchors_per_line", `{"pattern":"^func","path":"src"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			golden(t, "grep/"+c.name, render(call(t, env, "grep", c.args), dir))
		})
	}
}

func TestGrepByteLimit(t *testing.T) {
	env, dir := newEnv(t)
	var b strings.Builder
	for i := 0; i < 300; i++ {
		b.WriteString(fmt.Sprintf("hit %03d %s\n", i, strings.Repeat("x", 400)))
	}
	files(t, dir, map[string]string{"big.txt": b.String()})
	r := call(t, env, "grep", `{"pattern":"hit","limit":1000}`)
	text := r.Text()
	if !strings.HasSuffix(text, "[Output cut at 50.0KB.]") || strings.Contains(text, "Stopped at") {
		t.Fatalf("%q", text[len(text)-100:])
	}
	if len(text) > 51*1024 {
		t.Fatalf("output %d bytes", len(text))
	}
}

func TestFind(t *testing.T) {
	env, dir := searchTree(t)
	cases := []struct{ name, args string }{
		{"any_depth", `{"pattern":"*.go"}`},
		{"anchored", `{"pattern":"src/*.go"}`},
		{"anchored_deep", `{"pattern":"src/**/*.go"}`},
		{"dot_slash", `{"pattern":"./src/*.go"}`},
		{"dir_contents", `{"pattern":"src/**"}`},
		{"smart_case_lower", `{"pattern":"zeta*"}`},
		{"smart_case_upper", `{"pattern":"Zeta*"}`},
		{"hidden_included", `{"pattern":"*conf*"}`},
		{"in_subdir", `{"pattern":"*.go","path":"src/util"}`},
		{"limit", `{"pattern":"*","limit":3}`},
		{"limit_exact", `{"pattern":"*.md","limit":2}`},
		{"none", `{"pattern":"*.rs"}`},
		{"bad_glob", `{"pattern":"[a"}`},
		{"not_dir", `{"pattern":"*","path":"alpha.txt"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			golden(t, "find/"+c.name, render(call(t, env, "find", c.args), dir))
		})
	}
}

func TestLs(t *testing.T) {
	env, dir := searchTree(t)
	files(t, dir, map[string]string{"empty/": "", "dangling": "->nowhere"})
	cases := []struct{ name, args string }{
		{"root", `{}`},
		{"sub", `{"path":"src"}`},
		{"limit", `{"path":"src","limit":2}`},
		{"limit_exact", `{"path":"src/util","limit":4}`},
		{"empty", `{"path":"empty"}`},
		{"missing", `{"path":"nope"}`},
		{"file", `{"path":"alpha.txt"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			golden(t, "ls/"+c.name, render(call(t, env, "ls", c.args), dir))
		})
	}
}
