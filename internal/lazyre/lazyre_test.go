package lazyre

import "testing"

func TestNewCompilesOnceOnFirstUse(t *testing.T) {
	re := New(`^a(b+)$`)
	first := re()
	if m := first.FindStringSubmatch("abbb"); len(m) != 2 || m[1] != "bbb" {
		t.Fatalf("match = %q", m)
	}
	if re() != first {
		t.Error("a second call compiled again")
	}
}

func TestNewPanicsOnFirstUseOfABadExpression(t *testing.T) {
	re := New(`(`) // no panic here: nothing is compiled yet
	defer func() {
		if recover() == nil {
			t.Error("no panic for an invalid expression")
		}
	}()
	re()
}
