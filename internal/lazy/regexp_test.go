package lazy

import "testing"

func TestRegexpCompilesOnce(t *testing.T) {
	re := Regexp(`^a+$`)
	if !re().MatchString("aaa") || re().MatchString("b") {
		t.Fatal("wrong match")
	}
	if first, second := re(), re(); first != second {
		t.Fatal("compiled twice")
	}
}

func TestRegexpIsLazy(t *testing.T) {
	re := Regexp(`(`) // invalid: must not panic until used
	defer func() {
		if recover() == nil {
			t.Fatal("bad expression did not panic on use")
		}
	}()
	re()
}

func BenchmarkRegexpDeclare(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		Regexp(`^(\d{4}-\d{2}-\d{2})(-\d+)?\.md$`)
	}
}
