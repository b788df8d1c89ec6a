package tool

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestTruncateHead(t *testing.T) {
	cases := []struct {
		name         string
		in           string
		lines, bytes int
		text, by     string
		shown, total int
		firstTooLong bool
	}{
		{"fits", "a\nb\n", 2, 10, "a\nb\n", "", 2, 2, false},
		{"exactly the line limit", "a\nb", 2, 10, "a\nb", "", 2, 2, false},
		{"one line over", "a\nb\nc", 2, 100, "a\nb", "lines", 2, 3, false},
		{"exactly the byte limit", "ab\ncd", 10, 5, "ab\ncd", "", 2, 2, false},
		{"one byte over cuts a whole line", "ab\ncde", 10, 5, "ab", "bytes", 1, 2, false},
		{"first line too long", "abcdef\nx", 10, 5, "", "bytes", 0, 2, true},
		{"empty", "", 1, 1, "", "", 0, 0, false},
		{"trailing newline not a line", "a\n", 1, 10, "a\n", "", 1, 1, false},
		{"empty lines count", "\n\n\n", 2, 10, "\n", "lines", 2, 3, false},
		{"multibyte never split", "é\né\né", 10, 5, "é\né", "bytes", 2, 3, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := TruncateHead(c.in, c.lines, c.bytes)
			if tr.Text != c.text || tr.By != c.by || tr.ShownLines != c.shown || tr.TotalLines != c.total || tr.FirstLineTooLong != c.firstTooLong || tr.Truncated != (c.by != "") {
				t.Fatalf("%+v", tr)
			}
			if tr.ShownBytes != len(tr.Text) || tr.TotalBytes != len(c.in) {
				t.Fatalf("byte counts %+v", tr)
			}
		})
	}
}

func TestTruncateTail(t *testing.T) {
	cases := []struct {
		name         string
		in           string
		lines, bytes int
		text, by     string
		shown        int
		partial      bool
	}{
		{"fits", "a\nb\n", 2, 10, "a\nb\n", "", 2, false},
		{"keeps last lines", "a\nb\nc\n", 2, 100, "b\nc", "lines", 2, false},
		{"byte limit keeps whole lines", "aaa\nbb\ncc", 10, 6, "bb\ncc", "bytes", 2, false},
		{"last line too long keeps its end", "x\nabcdefgh", 10, 3, "fgh", "bytes", 1, true},
		{"partial line starts on a rune", "x\néééé", 10, 5, "éé", "bytes", 1, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := TruncateTail(c.in, c.lines, c.bytes)
			if tr.Text != c.text || tr.By != c.by || tr.ShownLines != c.shown || tr.LastLinePartial != c.partial || tr.Truncated != (c.by != "") {
				t.Fatalf("%+v", tr)
			}
		})
	}
}

func TestTruncateDefaults(t *testing.T) {
	// 2001 short lines: the line limit cuts; 50 KiB + 1 in one piece: bytes.
	many := strings.Repeat("x\n", DefaultMaxLines+1)
	if tr := TruncateHead(many, DefaultMaxLines, DefaultMaxBytes); tr.ShownLines != DefaultMaxLines || tr.By != "lines" {
		t.Fatalf("%+v", tr.By)
	}
	wide := strings.Repeat(strings.Repeat("y", 99)+"\n", 600)
	tr := TruncateHead(wide, DefaultMaxLines, DefaultMaxBytes)
	if tr.By != "bytes" || tr.ShownBytes > DefaultMaxBytes || tr.ShownLines != DefaultMaxBytes/100 {
		t.Fatalf("%+v", tr.ShownLines)
	}
}

func FuzzTruncate(f *testing.F) {
	f.Add("a\nb\nc\n", 2, 3)
	f.Add("ééé\n\n", 1, 2)
	f.Fuzz(func(t *testing.T, s string, lines, bytes int) {
		if lines < 1 || bytes < 1 || lines > 1000 || bytes > 1000 {
			return
		}
		h := TruncateHead(s, lines, bytes)
		if !strings.HasPrefix(s, h.Text) || len(h.Text) > bytes && h.Truncated || h.ShownLines > lines {
			t.Fatalf("head %q -> %+v", s, h)
		}
		tl := TruncateTail(s, lines, bytes)
		if !strings.HasSuffix(strings.TrimSuffix(s, "\n"), tl.Text) && tl.Text != s || tl.Truncated && len(tl.Text) > bytes || tl.ShownLines > lines {
			t.Fatalf("tail %q -> %+v", s, tl)
		}
	})
}

// TestTruncationJSON: a cut is recorded in the established harness's shape
// (its keys, in its order; truncatedBy null when nothing was cut; the
// "no line limit" of ls and grep as JavaScript's largest exact integer),
// without the kept text, which the result's content holds.
func TestTruncationJSON(t *testing.T) {
	for _, c := range []struct {
		tr   Truncation
		want string
	}{
		{TruncateHead(strings.Repeat("line of text\n", 2100), DefaultMaxLines, DefaultMaxBytes),
			`{"truncated":true,"truncatedBy":"lines","totalLines":2100,"totalBytes":27300,"outputLines":2000,"outputBytes":25999,"lastLinePartial":false,"firstLineExceedsLimit":false,"maxLines":2000,"maxBytes":51200}`},
		{TruncateHead("short\n", int(^uint(0)>>1), DefaultMaxBytes),
			`{"truncated":false,"truncatedBy":null,"totalLines":1,"totalBytes":6,"outputLines":1,"outputBytes":6,"lastLinePartial":false,"firstLineExceedsLimit":false,"maxLines":9007199254740991,"maxBytes":51200}`},
		{TruncateTail(strings.Repeat("x", 30), 10, 8),
			`{"truncated":true,"truncatedBy":"bytes","totalLines":1,"totalBytes":30,"outputLines":1,"outputBytes":8,"lastLinePartial":true,"firstLineExceedsLimit":false,"maxLines":10,"maxBytes":8}`},
	} {
		got, err := json.Marshal(map[string]any{"truncation": c.tr})
		if err != nil {
			t.Fatal(err)
		}
		if want := `{"truncation":` + c.want + `}`; string(got) != want {
			t.Errorf("\n got %s\nwant %s", got, want)
		}
	}
}
