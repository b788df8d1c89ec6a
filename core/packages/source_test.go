package packages

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	cases := []struct {
		in   string
		want Source
		err  string
	}{
		{in: "npm:@example/pi-tools@1.0.0", want: Source{Kind: Npm, Name: "@example/pi-tools", Version: "1.0.0"}},
		{in: "npm:policy-guard", want: Source{Kind: Npm, Name: "policy-guard"}},
		{in: "npm:Bad Name", err: "not an npm package name"},
		{in: "npm:x@", err: "empty version"},
		{in: "npm:x@--registry=evil", err: "bad version"},
		{in: "git:github.com/example/pi-tools@v1", want: Source{Kind: Git, URL: "https://github.com/example/pi-tools", Ref: "v1"}},
		{in: "git:github.com/example/pi-tools", want: Source{Kind: Git, URL: "https://github.com/example/pi-tools"}},
		{in: "https://github.com/example/pi-tools@0123abc", want: Source{Kind: Git, URL: "https://github.com/example/pi-tools", Ref: "0123abc"}},
		{in: "ssh://git@host.example/x/y.git@main", want: Source{Kind: Git, URL: "ssh://git@host.example/x/y.git", Ref: "main"}},
		{in: "file:///srv/repo@abc", want: Source{Kind: Git, URL: "file:///srv/repo", Ref: "abc"}},
		{in: "git:--upload-pack=evil", err: "no repository"},
		{in: "git:github.com/x/y@-x", err: "bad ref"},
		{in: "git:github.com/x/y@a..b", err: "bad ref"},
		{in: "git:notahost", err: "HOST/OWNER/REPO"},
		{in: "./ext", want: Source{Kind: Local, Path: "/base/ext"}},
		{in: "../ext", want: Source{Kind: Local, Path: "/ext"}},
		{in: "~/exts/a", want: Source{Kind: Local, Path: "/home/u/exts/a"}},
		{in: "/abs/a", want: Source{Kind: Local, Path: "/abs/a"}},
		{in: "policy-guard", err: "write npm:NAME"},
		{in: "", err: "empty"},
	}
	for _, c := range cases {
		got, err := Parse(c.in, "/base", "/home/u")
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: err %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		c.want.Spec = strings.TrimSpace(c.in)
		if got != c.want {
			t.Errorf("%q: %+v, want %+v", c.in, got, c.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"npm:@a/b@1", "git:github.com/a/b@c", "./x", "https://h.io/a@b", "ssh://u@h/x@y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		src, err := Parse(s, "/base", "/home")
		if err != nil {
			return
		}
		switch src.Kind {
		case Git:
			if strings.HasPrefix(src.URL, "-") || strings.HasPrefix(src.Ref, "-") {
				t.Fatalf("%q: an option-like git argument %+v", s, src)
			}
		case Npm:
			if strings.HasPrefix(src.Name, "-") || strings.HasPrefix(src.Version, "-") {
				t.Fatalf("%q: an option-like npm argument %+v", s, src)
			}
		case Local:
			if src.Path == "" {
				t.Fatalf("%q: no path", s)
			}
		default:
			t.Fatalf("%q: kind %q", s, src.Kind)
		}
	})
}
