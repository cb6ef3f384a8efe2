package data

import (
	"fmt"
	"math/rand/v2"
)

// MaxBASSize is the largest grid side BarsAndStripes accepts.
const MaxBASSize = 12

// BarsAndStripes returns all 2^(n+1) − 2 distinct n×n bars-and-stripes
// images, row-major: first the 2^n images whose rows are each all on or all
// off (row r on when bit r of m is set, for m = 0, 1, …, 2^n − 1), then the
// 2^n − 2 images whose columns are each all on or all off, skipping the
// empty and the full image (already listed). The set is unlabelled.
func BarsAndStripes(n int) (*Set, error) {
	if n < 1 || n > MaxBASSize {
		return nil, fmt.Errorf("data: bars-and-stripes size %d not in 1..%d", n, MaxBASSize)
	}
	count := 1<<(n+1) - 2
	s := &Set{Name: fmt.Sprintf("bas%dx%d", n, n), N: count, D: n * n, X: make([]uint8, count*n*n),
		Source: fmt.Sprintf("all %d distinct %d×%d bars-and-stripes images", count, n, n)}
	k := 0
	for m := 0; m < 1<<n; m++ {
		basImage(s.Row(k), n, m, false)
		k++
	}
	for m := 1; m < 1<<n-1; m++ {
		basImage(s.Row(k), n, m, true)
		k++
	}
	return s, nil
}

// basImage writes into row the image whose lines (rows, or columns if cols)
// are on where mask has bits set.
func basImage(row []uint8, n, mask int, cols bool) {
	for r := 0; r < n; r++ {
		for c := 0; c < n; c++ {
			line := r
			if cols {
				line = c
			}
			row[r*n+c] = uint8(mask >> line & 1)
		}
	}
}

// SampleBarsAndStripes returns count images drawn independently and
// uniformly from the 2^(n+1) − 2 distinct n×n bars-and-stripes images (the
// distribution whose exact likelihood BarsAndStripes(n) measures), using
// math/rand/v2's PCG seeded with (seed, 0).
func SampleBarsAndStripes(n, count int, seed uint64) (*Set, error) {
	all, err := BarsAndStripes(n)
	if err != nil {
		return nil, err
	}
	if count < 0 || int64(count)*int64(n*n) > MaxIDXBytes {
		return nil, fmt.Errorf("data: bad bars-and-stripes sample size %d", count)
	}
	rng := rand.New(rand.NewPCG(seed, 0))
	idx := make([]int, count)
	for i := range idx {
		idx[i] = rng.IntN(all.N)
	}
	s := all.Subset(idx)
	s.Source = fmt.Sprintf("%d images drawn uniformly from the %d distinct %d×%d bars-and-stripes images, PCG seed %d",
		count, all.N, n, n, seed)
	return s, nil
}
