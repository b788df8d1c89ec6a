package main

import "testing"

func TestSlug(t *testing.T) {
	for _, c := range []struct {
		id   uint64
		want string
	}{
		{0, "0"},
		{9, "9"},
		{61, "Z"},
		{62, "10"},
		{3843, "ZZ"},
	} {
		if got := Slug(c.id); got != c.want {
			t.Errorf("Slug(%d) = %q, want %q", c.id, got, c.want)
		}
	}
}
