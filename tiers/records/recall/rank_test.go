package recall

import (
	"cmp"
	"slices"
	"testing"
)

// FuzzKeepBest holds the bounded selection to what sorting every hit and
// cutting the list gives: the same hits, whatever the ties.
func FuzzKeepBest(f *testing.F) {
	f.Add([]byte{3, 1, 3, 1, 2, 2, 5, 0, 3, 1}, uint8(2))
	f.Add([]byte{1, 1, 1, 1, 1, 1}, uint8(1))
	f.Add([]byte{}, uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, n uint8) {
		var all, kept []ranked
		for i := 0; i+1 < len(data); i += 2 {
			r := ranked{i: int32(i), score: int32(data[i] % 4), prio: int32(data[i+1] % 3)}
			all = append(all, r)
			kept = keepBest(kept, int(n), r)
		}
		want := slices.Clone(all)
		if n > 0 {
			sortRanked(want)
			want = want[:min(len(want), int(n))]
			slices.SortFunc(want, func(a, b ranked) int { return cmp.Compare(a.i, b.i) })
			slices.SortFunc(kept, func(a, b ranked) int { return cmp.Compare(a.i, b.i) })
		}
		if !slices.Equal(kept, want) {
			t.Errorf("keepBest(n=%d) kept %v, want %v", n, kept, want)
		}
	})
}
