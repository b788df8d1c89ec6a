package shellcmd

import (
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		script string
		want   []string // each command's words joined by " | "
	}{
		{`git status`, []string{"git|status"}},
		{`git commit -m "fix: the thing"`, []string{"git|commit|-m|fix: the thing"}},
		{`echo 'a b' "c\"d" e\ f`, []string{`echo|a b|c"d|e f`}},
		{`echo "\x"`, []string{`echo|\x`}},
		{`a && b || c; d | e`, []string{"a", "b", "c", "d", "e"}},
		{`(cd .. && rm -rf x)`, []string{"cd|..", "rm|-rf|x"}},
		{`echo $(rm -rf /) ` + "`touch y`", []string{"echo|$(rm -rf /)|$(touch y)", "rm|-rf|/", "touch|y"}},
		{`diff <(ls a) <(ls b)`, []string{"diff|<(ls a)|<(ls b)", "ls|a", "ls|b"}},
		{`FOO=1 make test`, []string{"make|test"}},
		{`time -p go test`, []string{"go|test"}},
		{`f() { rm -rf ~; }; f`, []string{"rm|-rf|~", "f"}},
		{`if true; then git push; fi`, []string{"true", "git|push"}},
		{`for f in *.go; do gofmt -w $f; done`, []string{"gofmt|-w|$f"}},
		{`bash -c 'rm -rf /tmp/x && echo done'`, []string{"bash|-c|rm -rf /tmp/x && echo done", "rm|-rf|/tmp/x", "echo|done"}},
		{`sh -ec "curl x | sh"`, []string{"sh|-ec|curl x | sh", "curl|x", "sh"}},
		{`eval "git push" --force`, []string{"eval|git push|--force", "git|push|--force"}},
		{`$CMD -rf /`, []string{"$CMD|-rf|/"}},
		{``, nil},
		{`# only a comment`, nil},
		{"echo a \\\n  b", []string{"echo|a|b"}},
	}
	for _, tt := range tests {
		cs, err := Parse(tt.script)
		if err != nil {
			t.Errorf("%q: %v", tt.script, err)
			continue
		}
		var got []string
		for _, c := range cs {
			got = append(got, strings.Join(c.Words, "|"))
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q:\n got %q\nwant %q", tt.script, got, tt.want)
		}
	}
}

func TestDynamic(t *testing.T) {
	cs, _ := Parse(`$CMD x; "$(which rm)" y; rm z; env $X a`)
	want := []bool{true, true, false, false, false}
	if len(cs) != len(want) {
		t.Fatalf("commands %+v", cs)
	}
	for i, c := range cs {
		if c.Dynamic() != want[i] {
			t.Errorf("%q: dynamic %v", c.Words, c.Dynamic())
		}
	}
	if in := cs[4].Inner; len(in) != 1 || !in[0].Dynamic() {
		t.Errorf("env $X a: inner %+v", in)
	}
}

func TestUnwrap(t *testing.T) {
	tests := []struct {
		script string
		inner  []string // innermost first is last; each joined by |
		priv   bool     // innermost privileged
	}{
		{`env FOO=1 BAR=2 rm -rf x`, []string{"rm|-rf|x"}, false},
		{`env -i -u HOME -- ls`, []string{"ls"}, false},
		{`sudo -u root rm x`, []string{"rm|x"}, true},
		{`sudo -E env A=1 nice -n 10 git push`, []string{"env|A=1|nice|-n|10|git|push", "nice|-n|10|git|push", "git|push"}, true},
		{`nice -5 make`, []string{"make"}, false},
		{`/usr/bin/time -p go test ./...`, []string{"go|test|./..."}, false},
		{`command git push`, []string{"git|push"}, false},
		{`command -v git`, nil, false},
		{`timeout -s KILL 10 curl x`, []string{"curl|x"}, false},
		{`timeout 5`, nil, false},
		{`nohup ./server &`, []string{"./server"}, false},
		{`xargs -n 1 -I{} rm {}`, []string{"rm|{}"}, false},
		{`exec -a name bash`, []string{"bash"}, false},
		{`stdbuf -oL grep x`, []string{"grep|x"}, false},
		{`doas rm x`, []string{"rm|x"}, true},
		{`/usr/bin/env rm x`, []string{"rm|x"}, false},
		{`env`, nil, false},
	}
	for _, tt := range tests {
		cs, err := Parse(tt.script)
		if err != nil || len(cs) == 0 {
			t.Errorf("%q: %v %v", tt.script, cs, err)
			continue
		}
		var got []string
		var last Form
		for _, in := range cs[0].Inner {
			if in.CheckOnly {
				continue
			}
			got = append(got, strings.Join(in.Words, "|"))
			last = in
		}
		if !reflect.DeepEqual(got, tt.inner) {
			t.Errorf("%q: inner\n got %q\nwant %q", tt.script, got, tt.inner)
		}
		if len(got) > 0 && last.Privileged != tt.priv {
			t.Errorf("%q: privileged = %v", tt.script, last.Privileged)
		}
	}
}

func TestCommandsParseError(t *testing.T) {
	if _, err := Parse(`echo "unterminated`); err == nil {
		t.Error("no error for an unterminated quote")
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{`git push`, `a && b | c; (d) $(e) <(f)`, `sudo env A=1 nice -n 1 timeout 3 xargs -I{} rm {}`, `bash -c 'eval "sh -c \"x\""'`, `echo "\$x" 'y' $'z'`, "f() { g; }\nf", `command -v x`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, script string) {
		cs, err := Parse(script)
		if err != nil {
			return
		}
		for _, c := range cs {
			if len(c.Words) == 0 {
				t.Fatalf("%q: a command with no words", script)
			}
			if len(c.Lit) != len(c.Words) {
				t.Fatalf("%q: %d words, %d literal flags", script, len(c.Words), len(c.Lit))
			}
			for _, in := range c.Inner {
				if len(in.Lit) != len(in.Words) || len(in.Words) == 0 && !in.Open {
					t.Fatalf("%q: inner %q of %q", script, in.Words, c.Words)
				}
			}
		}
	})
}
