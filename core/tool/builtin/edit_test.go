package builtin

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/piwasm/pi/core/tool"
)

func TestEdit(t *testing.T) {
	cases := []struct {
		name, file, args string
	}{
		{"single", "a\nb\nc\n", `{"path":"f","edits":[{"oldText":"b","newText":"B"}]}`},
		{"multi_against_original", "x = 1\ny = 2\nz = 3\n", `{"path":"f","edits":[{"oldText":"x = 1","newText":"y = 2"},{"oldText":"y = 2","newText":"x = 1"}]}`},
		{"multi_line_insert", "func f() {\n\treturn 1\n}\n", `{"path":"f","edits":[{"oldText":"\treturn 1\n","newText":"\tx := 1\n\treturn x\n"}]}`},
		{"delete_lines", "a\nb\nc\nd\n", `{"path":"f","edits":[{"oldText":"b\nc\n","newText":""}]}`},
		{"crlf_kept", "one\r\ntwo\r\nthree\r\n", `{"path":"f","edits":[{"oldText":"two\nthree","newText":"2\n3\n3.5"}]}`},
		{"mixed_endings_per_line", "lf\ncrlf\r\nlf2\n", `{"path":"f","edits":[{"oldText":"crlf","newText":"CR\nLF"}]}`},
		{"bom_kept", "\ufeffhello\nworld\n", `{"path":"f","edits":[{"oldText":"hello","newText":"hi"}]}`},
		{"tolerant_quotes_dashes", "say(“hi”) — now  \nkeep ‘this’\n", `{"path":"f","edits":[{"oldText":"say(\"hi\") - now","newText":"say(\"bye\")"}]}`},
		{"tolerant_nbsp_nfkc", "a\u00a0=\u00a01\nb = ﬁle\n", `{"path":"f","edits":[{"oldText":"a = 1","newText":"a = 2"}]}`},
		{"tolerant_keeps_untouched_lines", "x  \n“q”\ny  \n", `{"path":"f","edits":[{"oldText":"x\n\"q\"","newText":"X\n\"Q\""}]}`},
		{"not_found", "abc\n", `{"path":"f","edits":[{"oldText":"xyz","newText":"q"}]}`},
		{"not_found_second", "abc\n", `{"path":"f","edits":[{"oldText":"a","newText":"A"},{"oldText":"zz","newText":"q"}]}`},
		{"duplicate", "x\nx\n", `{"path":"f","edits":[{"oldText":"x","newText":"y"}]}`},
		{"duplicate_tolerant", "it’s\nit's\n", `{"path":"f","edits":[{"oldText":"it's","newText":"it is"}]}`},
		{"overlap", "abcdef\n", `{"path":"f","edits":[{"oldText":"abcd","newText":"1"},{"oldText":"cdef","newText":"2"}]}`},
		{"adjacent_ok", "abcdef\n", `{"path":"f","edits":[{"oldText":"abc","newText":"1"},{"oldText":"def","newText":"2"}]}`},
		{"empty_old", "abc\n", `{"path":"f","edits":[{"oldText":"","newText":"x"}]}`},
		{"empty_old_second", "abc\n", `{"path":"f","edits":[{"oldText":"a","newText":"x"},{"oldText":"","newText":"x"}]}`},
		{"identical", "abc\n", `{"path":"f","edits":[{"oldText":"b","newText":"b"}]}`},
		{"no_edits", "abc\n", `{"path":"f","edits":[]}`},
		{"legacy_top_level", "abc\n", `{"path":"f","oldText":"b","newText":"B"}`},
		{"legacy_json_string", "abc\n", `{"path":"f","edits":"[{\"oldText\":\"c\",\"newText\":\"C\"}]"}`},
		{"legacy_json_string_object", "abc\n", `{"path":"f","edits":"{\"oldText\":\"a\",\"newText\":\"A\"}"}`},
		{"legacy_single_object", "abc\n", `{"path":"f","edits":{"oldText":"a","newText":"A"}}`},
		{"legacy_both", "abc\n", `{"path":"f","edits":[{"oldText":"a","newText":"A"}],"oldText":"c","newText":"C"}`},
		{"no_final_newline", "a\nb", `{"path":"f","edits":[{"oldText":"b","newText":"B"}]}`},
		{"far_apart_hunks", strings.Repeat("l\n", 5) + "A\n" + strings.Repeat("m\n", 20) + "B\n", `{"path":"f","edits":[{"oldText":"A","newText":"a"},{"oldText":"B","newText":"b"}]}`},
		{"joins_next_line", "a\nb\nc\nd\n", `{"path":"f","edits":[{"oldText":"b\n","newText":"B"}]}`},
		{"invalid_utf8_kept", "caf\xe9\nx\n", `{"path":"f","edits":[{"oldText":"x","newText":"y"}]}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env, dir := newEnv(t)
			p := filepath.Join(dir, "f")
			if err := os.WriteFile(p, []byte(c.file), 0o640); err != nil {
				t.Fatal(err)
			}
			r := call(t, env, "edit", c.args)
			after, _ := os.ReadFile(p)
			if r.IsError && string(after) != c.file {
				t.Fatal("a failed edit changed the file")
			}
			st, _ := os.Stat(p)
			if st.Mode().Perm() != 0o640 {
				t.Fatalf("mode changed to %v", st.Mode())
			}
			golden(t, "edit/"+c.name, render(r, dir)+"--- file\n"+strconv.Quote(string(after))+"\n")
		})
	}
}

func TestEditMissingFile(t *testing.T) {
	env, _ := newEnv(t)
	r := call(t, env, "edit", `{"path":"nope.txt","edits":[{"oldText":"a","newText":"b"}]}`)
	if !r.IsError || r.Text() != "Not found: nope.txt" {
		t.Fatalf("%q", r.Text())
	}
}

// Edits to one file from parallel calls all land: the lock is held across
// read, change and write.
func TestParallelEditsSerialised(t *testing.T) {
	env, dir := newEnv(t)
	env.Locks = &tool.Locks{} // shared by every call, as in one session
	var b strings.Builder
	for i := 0; i < 40; i++ {
		b.WriteString("line" + strconv.Itoa(i) + "\n")
	}
	p := filepath.Join(dir, "f")
	os.WriteFile(p, []byte(b.String()), 0o644)
	link := filepath.Join(dir, "alias")
	os.Symlink(p, link) // the lock is per resolved path: both names share it
	var wg sync.WaitGroup
	for i := 0; i < 40; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			name := []string{"f", "alias"}[i%2]
			r := call(t, env, "edit", `{"path":"`+name+`","edits":[{"oldText":"line`+strconv.Itoa(i)+`\n","newText":"done`+strconv.Itoa(i)+`\n"}]}`)
			if r.IsError {
				t.Errorf("edit %d: %s", i, r.Text())
			}
		}(i)
	}
	wg.Wait()
	got, _ := os.ReadFile(p)
	if strings.Contains(string(got), "line") {
		t.Fatalf("lost edits:\n%s", got)
	}
}

func TestWrite(t *testing.T) {
	env, dir := newEnv(t)
	r := call(t, env, "write", `{"path":"a/b/c.txt","content":"hello\n"}`)
	if r.IsError || r.Text() != "Wrote 6 bytes to a/b/c.txt." {
		t.Fatalf("%q", r.Text())
	}
	r = call(t, env, "write", `{"path":"a/b/c.txt","content":"bye"}`)
	got, _ := os.ReadFile(filepath.Join(dir, "a/b/c.txt"))
	if r.IsError || string(got) != "bye" {
		t.Fatalf("%q %q", r.Text(), got)
	}
	if r := call(t, env, "write", `{"path":"a","content":"x"}`); !r.IsError {
		t.Fatal("writing over a directory should fail")
	}
	// Through a symlink the target is written, and the link stays a link.
	os.Symlink(filepath.Join(dir, "a/b/c.txt"), filepath.Join(dir, "ln"))
	call(t, env, "write", `{"path":"ln","content":"via link"}`)
	got, _ = os.ReadFile(filepath.Join(dir, "a/b/c.txt"))
	if st, _ := os.Lstat(filepath.Join(dir, "ln")); string(got) != "via link" || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("%q", got)
	}
}

func TestParallelWritesSerialised(t *testing.T) {
	env, dir := newEnv(t)
	env.Locks = &tool.Locks{}
	big := strings.Repeat("x", 1<<20)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			c := strings.Repeat(strconv.Itoa(i), 10) + big
			call(t, env, "write", `{"path":"same.txt","content":"`+c+`"}`)
		}(i)
	}
	wg.Wait()
	got, _ := os.ReadFile(filepath.Join(dir, "same.txt"))
	// Whichever write came last, the file is one whole write.
	if len(got) != 10+len(big) || strings.Count(string(got[:10]), string(got[0])) != 10 {
		t.Fatalf("interleaved writes: %q...", got[:20])
	}
}

// FuzzEditMatch checks the matcher's promises on arbitrary input: no panic;
// on success every untouched byte outside the replaced lines survives, and
// a file without CR keeps none; a failure leaves an editError.
func FuzzEditMatch(f *testing.F) {
	f.Add("a\nb\nc\n", "b", "B", "c", "C")
	f.Add("x “q”  \r\ny\r\n", "x \"q\"", "z", "y", "w")
	f.Add("\ufeffa\u00a0b\n", "a b", "", "a", "q")
	f.Add("aaa", "a", "b", "aa", "c")
	f.Add(" x—\n-x“é\t''ﬁ\n\ufeff“é\r\na\u00a0\r\n\n x \u00a0'a““\t\ufeff-", "\na\u00a0\n", " Z", "\n x", " Z")
	f.Fuzz(func(t *testing.T, content, old1, new1, old2, new2 string) {
		edits := []Edit{{old1, new1}}
		if old2 != "" {
			edits = append(edits, Edit{old2, new2})
		}
		out, d, err := EditContent(content, edits, "f")
		if err != nil {
			if _, ok := err.(*editError); !ok {
				t.Fatalf("unexpected error type %T: %v", err, err)
			}
			return
		}
		if out == content {
			t.Fatal("success without a change")
		}
		if strings.HasPrefix(content, "\ufeff") != strings.HasPrefix(out, "\ufeff") {
			t.Fatal("BOM not kept")
		}
		if !strings.ContainsRune(content+new1+new2, '\r') && strings.ContainsRune(out, '\r') {
			t.Fatal("CR appeared from nowhere")
		}
		before := toLF(strings.TrimPrefix(content, "\ufeff"))
		after := toLF(strings.TrimPrefix(out, "\ufeff"))
		if got, err := applyPatch(before, d.Patch); err != nil || got != after {
			t.Fatalf("patch %q on %q gives %q (%v), want %q", d.Patch, before, got, err, after)
		}
	})
}

// applyPatch applies a unified patch made by diffReplacements, checking
// every context and removed line, so the patch is proven to describe the
// change exactly.
func applyPatch(old, patch string) (string, error) {
	if patch == "" {
		return old, nil
	}
	lines := splitKeep(old)
	var out []string
	pos := 0
	pl := strings.Split(strings.TrimSuffix(patch, "\n"), "\n")[2:]
	for i := 0; i < len(pl); i++ {
		l := pl[i]
		if strings.HasPrefix(l, "@@") {
			var os, oc, ns, nc int
			if _, err := fmt.Sscanf(l, "@@ -%d,%d +%d,%d @@", &os, &oc, &ns, &nc); err != nil {
				var n int
				if _, err := fmt.Sscanf(l, "@@ -%d +%d", &os, &n); err != nil {
					if _, err := fmt.Sscanf(l, "@@ -%d,%d +%d", &os, &oc, &n); err != nil {
						if _, err := fmt.Sscanf(l, "@@ -%d +%d,%d", &os, &ns, &nc); err != nil {
							return "", fmt.Errorf("bad hunk header %q", l)
						}
					}
				}
			}
			start := os - 1
			if oc == 0 && strings.Contains(l, fmt.Sprintf("-%d,0", os)) {
				start = os
			}
			for pos < start {
				out = append(out, lines[pos])
				pos++
			}
			continue
		}
		noEOL := i+1 < len(pl) && strings.HasPrefix(pl[i+1], `\ `)
		text := l[1:]
		if !noEOL {
			text += "\n"
		}
		switch l[0] {
		case ' ', '-':
			if pos >= len(lines) || lines[pos] != text {
				return "", fmt.Errorf("line %d: patch has %q, file has %q", pos+1, text, at(lines, pos))
			}
			if l[0] == ' ' {
				out = append(out, text)
			}
			pos++
		case '+':
			out = append(out, text)
		case '\\':
		}
	}
	out = append(out, lines[pos:]...)
	return strings.Join(out, ""), nil
}

func at(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "<end>"
}
