package confine

import (
	"reflect"
	"testing"
)

func TestPinned(t *testing.T) {
	for _, c := range []struct {
		name             string
		write, protected []string
		want             []string
	}{
		{"nothing protected", []string{"/t"}, nil, nil},
		{"at the root's top", []string{"/t"}, []string{"/t/.pi", "/t/.envrc"}, nil},
		{"git's chain", []string{"/tmp", "/t"}, []string{"/t/.git/hooks", "/t/.git/config", "/t/.git/info"}, []string{"/t/.git"}},
		{"home's chain, deepest last", []string{"/h"}, []string{"/h/p/.git/modules/a/b/hooks", "/h/.config/git", "/h/p/.git/hooks"},
			[]string{"/h/.config", "/h/p", "/h/p/.git", "/h/p/.git/modules", "/h/p/.git/modules/a", "/h/p/.git/modules/a/b"}},
		{"outside every root", []string{"/t"}, []string{"/other/.git/hooks", "/t2/.git/hooks"}, nil},
		{"a root itself", []string{"/t"}, []string{"/t"}, nil},
	} {
		if got := pinned(c.write, c.protected); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: pinned = %q, want %q", c.name, got, c.want)
		}
	}
}
