package builtin

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/piwasm/pi/core/tool"
)

// Each benchmark runs at two sizes a factor of ten apart, so its growth
// shows next to its cost.

func benchRun(b *testing.B, env Env, name, args string) {
	tl := toolByName(b, env, name)
	a, err := tl.Prepare([]byte(args))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := tl.Run(context.Background(), tool.Call{Name: name, Args: a}, nil)
		if err != nil || r.IsError {
			b.Fatalf("%v %s", err, r.Text())
		}
	}
}

func BenchmarkRead(b *testing.B) {
	for _, mb := range []int{5, 50} {
		b.Run(fmt.Sprintf("%dMB", mb), func(b *testing.B) {
			env, dir := newEnv(b)
			line := strings.Repeat("x", 99) + "\n"
			f, _ := os.Create(filepath.Join(dir, "big.txt"))
			chunk := strings.Repeat(line, 10000) // 1 MB
			for i := 0; i < mb; i++ {
				f.WriteString(chunk)
			}
			f.Close()
			b.SetBytes(int64(mb) << 20)
			b.Run("head", func(b *testing.B) { benchRun(b, env, "read", `{"path":"big.txt"}`) })
			b.Run("near_end", func(b *testing.B) {
				benchRun(b, env, "read", fmt.Sprintf(`{"path":"big.txt","offset":%d}`, mb*10000-100))
			})
		})
	}
}

func BenchmarkGrep(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("%dfiles", n), func(b *testing.B) {
			env, dir := newEnv(b)
			body := strings.Repeat("package p\n\nfunc f() int { return 42 }\n// filler line of text\n", 20)
			for i := 0; i < n; i++ {
				p := filepath.Join(dir, fmt.Sprintf("d%02d/e%02d/f%d.go", i%50, (i/50)%20, i))
				os.MkdirAll(filepath.Dir(p), 0o755)
				content := body
				if i%100 == 0 {
					content += "// needle here\n"
				}
				os.WriteFile(p, []byte(content), 0o644)
			}
			os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("*.tmp\nd49/\n"), 0o644)
			b.Run("regex", func(b *testing.B) { benchRun(b, env, "grep", `{"pattern":"need[l]e","limit":1000}`) })
			b.Run("literal", func(b *testing.B) { benchRun(b, env, "grep", `{"pattern":"needle","literal":true,"limit":1000}`) })
			b.Run("find", func(b *testing.B) { benchRun(b, env, "find", `{"pattern":"*.go","limit":100000}`) })
		})
	}
}

func BenchmarkEdit(b *testing.B) {
	for _, kb := range []int{100, 1024} {
		b.Run(fmt.Sprintf("%dKB", kb), func(b *testing.B) {
			env, dir := newEnv(b)
			var sb strings.Builder
			for i := 0; sb.Len() < kb<<10; i++ {
				fmt.Fprintf(&sb, "line %d: some ordinary source text\n", i)
			}
			orig := sb.String()
			p := filepath.Join(dir, "f.txt")
			mid := fmt.Sprintf("line %d: some", strings.Count(orig, "\n")/2)
			for _, c := range []struct{ name, args string }{
				{"exact", `{"path":"f.txt","edits":[{"oldText":"line 7: some","newText":"LINE 7: some"},{"oldText":"` + mid + `","newText":"MID"}]}`},
				{"tolerant", `{"path":"f.txt","edits":[{"oldText":"line 7: some ordinary source text  ","newText":"L7"}]}`},
			} {
				b.Run(c.name, func(b *testing.B) {
					tl := toolByName(b, env, "edit")
					a, _ := tl.Prepare([]byte(c.args))
					b.SetBytes(int64(len(orig)))
					b.ReportAllocs()
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						b.StopTimer()
						os.WriteFile(p, []byte(orig), 0o644)
						b.StartTimer()
						r, err := tl.Run(context.Background(), tool.Call{Name: "edit", Args: a}, nil)
						if err != nil || r.IsError {
							b.Fatalf("%v %s", err, r.Text())
						}
					}
				})
			}
		})
	}
}

// BenchmarkEditSmall is the edit of a scripted session's turn: one line of
// a twenty-line file changed to text of the same length, back and forth.
// On ext4 most of it is the writeback the file system starts when a file
// truncated to nothing is closed (see OSFS.WriteFile for why it stays).
func BenchmarkEditSmall(b *testing.B) {
	env, dir := newEnv(b)
	var sb strings.Builder
	for l := 1; l <= 20; l++ {
		fmt.Fprintf(&sb, "line %d of 01: some ordinary text\n", l)
	}
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	tl := toolByName(b, env, "edit")
	var args [2]map[string]any
	for i, a := range []string{
		`{"path":"f.txt","edits":[{"oldText":"line 1 of","newText":"LINE 1 of"}]}`,
		`{"path":"f.txt","edits":[{"oldText":"LINE 1 of","newText":"line 1 of"}]}`,
	} {
		var err error
		if args[i], err = tl.Prepare([]byte(a)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		r, err := tl.Run(context.Background(), tool.Call{Name: "edit", Args: args[i%2]}, nil)
		if err != nil || r.IsError {
			b.Fatalf("%v %s", err, r.Text())
		}
		i++
	}
}
