package builtin

import (
	"encoding/json"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestEditMatchesPeer runs thousands of random edits (CRLF, BOM, typographic
// quotes and dashes, odd spaces, ligatures) through pi's matcher and the
// established harness's own edit code, and requires the same file or the
// same refusal. It needs node and the harness: set PI_PEER_NODE (the node
// binary) and PI_PEER_PKG (the @earendil-works/pi-coding-agent directory).
//
// One deliberate difference is left out: the harness counts an oldText made
// only of blanks as occurring at every position and refuses it; pi counts
// its real occurrences.
func TestEditMatchesPeer(t *testing.T) {
	node, pkg := os.Getenv("PI_PEER_NODE"), os.Getenv("PI_PEER_PKG")
	if node == "" || pkg == "" {
		t.Skip("PI_PEER_NODE and PI_PEER_PKG not set")
	}
	alpha := []string{"a", "b", "x", " ", "\n", "\r\n", "“", "”", "\u00a0", "—", "'", "\"", "-", "ﬁ", "\t", "é", "\ufeff"}
	ascii := strings.NewReplacer("“", "\"", "”", "\"", "\u00a0", " ", "—", "-", "ﬁ", "fi")
	r := rand.New(rand.NewSource(1))
	var cases [][]any
	var mine []string
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		if r.Intn(5) == 0 {
			b.WriteString("\ufeff")
		}
		for j, n := 0, 3+r.Intn(60); j < n; j++ {
			b.WriteString(alpha[r.Intn(len(alpha))])
		}
		raw := b.String()
		var edits []map[string]string
		var ed []Edit
		skip := false
		for k := 0; k < 1+r.Intn(3); k++ {
			s := []rune(toLF(strings.TrimPrefix(raw, "\ufeff")))
			if len(s) < 2 {
				skip = true
				break
			}
			a := r.Intn(len(s) - 1)
			old := string(s[a : a+1+r.Intn(min(6, len(s)-a))])
			if r.Intn(2) == 0 {
				old = ascii.Replace(old)
			}
			if strings.TrimSpace(strings.ReplaceAll(old, "\ufeff", "")) == "" || strings.TrimRightFunc(old, isTrailingSpace) == "" {
				skip = true
			}
			nw := alpha[r.Intn(len(alpha))] + "Z"
			edits = append(edits, map[string]string{"oldText": old, "newText": nw})
			ed = append(ed, Edit{old, nw})
		}
		if skip {
			continue
		}
		out, _, err := EditContent(raw, ed, "f")
		if err != nil {
			out = "ERR"
		}
		cases = append(cases, []any{raw, edits})
		mine = append(mine, out)
	}
	in, _ := json.Marshal(cases)
	script, _ := filepath.Abs("testdata/peer_edit.mjs")
	cmd := exec.Command(node, script, pkg)
	cmd.Stdin = strings.NewReader(string(in))
	res, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var theirs []string
	if err := json.Unmarshal(res, &theirs); err != nil || len(theirs) != len(mine) {
		t.Fatalf("peer answered %d of %d: %v", len(theirs), len(mine), err)
	}
	diffs := 0
	for i := range mine {
		if mine[i] != theirs[i] {
			if diffs++; diffs <= 8 {
				t.Errorf("case %q\n pi   %q\n peer %q", cases[i], mine[i], theirs[i])
			}
		}
	}
	t.Logf("%d cases, %d differ", len(mine), diffs)
}
