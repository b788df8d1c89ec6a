package shellcmd

import (
	"reflect"
	"testing"
)

// parseBoth parses script with the fast path and with the shell parser;
// plainOK says whether the fast path took it.
func parseBoth(script string) (fast, full []Command, plainOK bool, err error) {
	var fp parser
	plainOK = fp.plain(script, 0)
	full0 := parser{noPlain: true}
	err = full0.script(script, 0)
	return fp.out, full0.out, plainOK, err
}

func TestPlainMatchesParser(t *testing.T) {
	for _, s := range []string{
		"go test ./... && git status",
		"a; b & c || d | e |& f",
		"A=1 B=2 make -j4 test",
		"A=1",
		"echo git push | sh",
		"sudo -u me env X=1 nice -n 5 git -C . push origin main",
		"git -c alias.p=push p",
		"find . -maxdepth 1 -exec rm -f x ;",
		"xargs -n1 git push",
		"sh -c ls",
		"a\nb\n\nc",
	} {
		fast, full, ok, err := parseBoth(s)
		if !ok || err != nil {
			t.Errorf("%q: plain %v, parser error %v", s, ok, err)
			continue
		}
		if !reflect.DeepEqual(fast, full) {
			t.Errorf("%q:\nfast %+v\nfull %+v", s, fast, full)
		}
	}
	for _, s := range []string{"echo 'x'", "a > b", "$X", "if true; then x; fi", "a && ", "| a", "a ||", "{a,b}", "x # c", "(a)", "a ~"} {
		if _, _, ok, _ := parseBoth(s); ok {
			t.Errorf("%q: taken by the fast path", s)
		}
	}
}

// FuzzPlain: wherever the fast path takes a script, it finds exactly what
// the shell parser finds.
func FuzzPlain(f *testing.F) {
	for _, s := range []string{"go test ./... && git status", "a|b;c&d", "A=1 x", "env -S x y", "git -c a.b=c d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fast, full, ok, err := parseBoth(s)
		if !ok {
			return
		}
		if err != nil {
			t.Fatalf("%q: the fast path took a script the parser rejects: %v", s, err)
		}
		if !reflect.DeepEqual(fast, full) {
			t.Fatalf("%q:\nfast %+v\nfull %+v", s, fast, full)
		}
	})
}
