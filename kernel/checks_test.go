package kernel

import (
	"testing"
)

// The exported functions' argument checks.

// TestExportedChecks: the exported functions reject short slices and bad
// indices with a panic naming the argument, before any assembly runs.
func TestExportedChecks(t *testing.T) {
	mustPanic := func(name string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s: no panic", name)
			}
		}()
		f()
	}
	mustPanic("Affine short m", func() { Affine(make([]float32, 4), nil, make([]float32, 4), make([]float32, 3), 2, 2, 2) })
	mustPanic("SumRows bad row", func() { SumRows(make([]float32, 2), make([]float32, 4), 2, []int32{2}, 2) })
	mustPanic("Sigmoid short dst", func() { Sigmoid(make([]float32, 1), make([]float32, 2)) })
	// SumRowsBatch: 2 chains, 3 rows of 2 floats.
	batch := func(idx, counts []int32) func() {
		return func() { SumRowsBatch(make([]float32, 4), make([]float32, 6), 2, 2, 3, 2, idx, counts) }
	}
	mustPanic("SumRowsBatch bad row", batch([]int32{0, 3, 0, 0, 0, 0}, []int32{2, 0}))
	mustPanic("SumRowsBatch rows not increasing", batch([]int32{0, 0, 0, 2, 1, 0}, []int32{0, 2}))
	mustPanic("SumRowsBatch count past nin", batch(make([]int32, 6), []int32{4, 0}))
	mustPanic("SumRowsBatch short idx", batch(make([]int32, 5), []int32{0, 0}))
	flip := func(off []int32) func() {
		return func() {
			FlipRowsBatch(make([]float32, 4), make([]float32, 4), make([]float32, 6), 2, 2, 3, 2, make([]int32, 6), []int32{0, 0}, off, []int32{1, 1})
		}
	}
	mustPanic("FlipRowsBatch bad off row", flip([]int32{0, 0, 0, 3, 0, 0}))
	mustPanic("FlipRowsBatch short off", flip(make([]int32, 5)))
	mustPanic("PrefetchW past the end", func() { PrefetchW(make([]float32, 32), 3, 16) })
	mustPanic("PrefetchW negative stride", func() { PrefetchW(make([]float32, 32), 2, -1) })
	mustPanic("UpdateNCG short g", func() {
		UpdateNCG(make([]float32, 3), make([]float32, 3), make([]float32, 3), make([]float32, 3), make([]float32, 2), 1, 1, 0.5)
	})
}

// TestCheckRows: checkRows accepts a row j exactly when the row's n
// floats lie inside m (0 ≤ j and j·stride + n ≤ len(m)), over every small
// length, stride, row length and row, negative ones included.
func TestCheckRows(t *testing.T) {
	for lm := 0; lm <= 12; lm++ {
		for n := 1; n <= 4; n++ {
			for stride := n; stride <= 5; stride++ {
				for j := int32(-3); j <= 14; j++ {
					want := j >= 0 && int(j)*stride+n <= lm
					ok := func() (ok bool) {
						defer func() { ok = recover() == nil }()
						checkRows("m", make([]float32, lm), stride, []int32{j}, n)
						return
					}()
					if ok != want {
						t.Errorf("len %d, stride %d, n %d, row %d: accepted %v, want %v", lm, stride, n, j, ok, want)
					}
				}
			}
		}
	}
}
