package clipimage

import (
	"errors"
	"strings"
	"testing"
	"time"
)

var png = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89")

// fake answers tool calls from a table of "name args" → output; a call
// not in the table fails as a missing tool would.
func fake(env map[string]string, tools map[string]string, calls *[]string) Env {
	return Env{
		GOOS:   "linux",
		Getenv: func(k string) string { return env[k] },
		Run: func(_ time.Duration, name string, args ...string) ([]byte, error) {
			call := name + " " + strings.Join(args, " ")
			*calls = append(*calls, call)
			out, ok := tools[call]
			if !ok {
				return nil, errors.New("not found")
			}
			return []byte(out), nil
		},
	}
}

func TestRead(t *testing.T) {
	wl := "wl-paste --list-types"
	xc := "xclip -selection clipboard -t TARGETS -o"
	cases := []struct {
		name  string
		env   map[string]string
		tools map[string]string
		want  string // mime type, "" for none
		calls int
	}{
		{"wayland png", map[string]string{"WAYLAND_DISPLAY": "w"},
			map[string]string{wl: "text/plain\nimage/jpeg\nimage/png\n", "wl-paste --type image/png --no-newline": string(png)}, "image/png", 2},
		{"wayland empty stays empty", map[string]string{"WAYLAND_DISPLAY": "w"},
			map[string]string{wl: "text/plain\n", xc: "image/png", "xclip -selection clipboard -t image/png -o": string(png)}, "", 1},
		{"wayland without wl-paste falls back to xclip", map[string]string{"XDG_SESSION_TYPE": "wayland"},
			map[string]string{xc: "TARGETS\nimage/png", "xclip -selection clipboard -t image/png -o": string(png)}, "image/png", 3},
		{"x11", map[string]string{},
			map[string]string{xc: "TARGETS\nimage/png", "xclip -selection clipboard -t image/png -o": string(png)}, "image/png", 2},
		{"only an unsupported type", map[string]string{},
			map[string]string{xc: "image/bmp", "xclip -selection clipboard -t image/bmp -o": "BM"}, "", 1},
		{"bytes are not an image", map[string]string{},
			map[string]string{xc: "image/png", "xclip -selection clipboard -t image/png -o": "hello"}, "", 2},
		{"no tools", map[string]string{}, map[string]string{}, "", 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var calls []string
			img := Read(fake(c.env, c.tools, &calls))
			got := ""
			if img != nil {
				got = img.MimeType
			}
			if got != c.want || len(calls) != c.calls {
				t.Errorf("got %q after %q, want %q after %d calls", got, calls, c.want, c.calls)
			}
		})
	}
}
