package session

import (
	"path/filepath"
	"testing"
)

func TestFindByID(t *testing.T) {
	agent := t.TempDir()
	here, there := "/work/here", "/work/there"
	mk := func(dir, cwd, id, stamp string) string {
		t.Helper()
		p := filepath.Join(dir, stamp+"_"+id+".jsonl")
		tr, err := Create(p, Header{ID: id, Cwd: cwd, Timestamp: stamp})
		if err != nil {
			t.Fatal(err)
		}
		tr.Close()
		return p
	}
	hereDir, thereDir := Dir(agent, here), Dir(agent, there)
	older := mk(hereDir, here, "abc111", "2026-01-01T00-00-00.000Z")
	newer := mk(hereDir, here, "abc222", "2026-01-02T00-00-00.000Z")
	exact := mk(hereDir, here, "abc", "2026-01-01T00-00-00.000Z")
	elsewhere := mk(thereDir, there, "zzz999", "2026-01-03T00-00-00.000Z")
	for _, tc := range []struct {
		arg, want string
		other     bool
	}{
		{"abc", exact, false},    // an exact id before a prefix
		{"abc1", older, false},   // a prefix
		{"ab", newer, false},     // the newest of several
		{"zzz", elsewhere, true}, // another directory's
		{"nope", "", false},
	} {
		f, ok := FindByID(hereDir, here, tc.arg)
		if f.Path != tc.want || ok != (tc.want != "") || f.Elsewhere != tc.other {
			t.Errorf("FindByID(%q) = %+v, %v; want %s (elsewhere %v)", tc.arg, f, ok, tc.want, tc.other)
		}
	}
	if f, ok := FindExact(hereDir, here, "abc111"); !ok || f.Path != older {
		t.Errorf("FindExact: %+v %v", f, ok)
	}
	if _, ok := FindExact(hereDir, here, "abc1"); ok {
		t.Error("FindExact took a prefix")
	}
	// A sessionDir of its own keeps every directory's sessions in it.
	own := t.TempDir()
	mine := mk(own, here, "m1", "2026-01-01T00-00-00.000Z")
	theirs := mk(own, there, "t1", "2026-01-01T00-00-00.000Z")
	if f, ok := FindByID(own, here, "m"); !ok || f.Path != mine {
		t.Errorf("own dir, this directory's: %+v", f)
	}
	if f, ok := FindByID(own, here, "t"); !ok || f.Path != theirs || !f.Elsewhere {
		t.Errorf("own dir, another directory's: %+v", f)
	}
	for _, id := range []string{"a", "a.b-c_d", "01a2328f-ecc4-7390"} {
		if CheckID(id) != nil {
			t.Errorf("CheckID(%q) refused", id)
		}
	}
	for _, id := range []string{"", "-a", "a-", "a b", "a/b", "ä"} {
		if CheckID(id) == nil {
			t.Errorf("CheckID(%q) accepted", id)
		}
	}
	for arg, want := range map[string]bool{"abc": false, "./abc": true, "s.jsonl": true, `a\b`: true} {
		if LooksLikePath(arg) != want {
			t.Errorf("LooksLikePath(%q) != %v", arg, want)
		}
	}
}
