package eval

import (
	"context"
	"math"
	"sort"
	"testing"

	"github.com/ncg-rbm/ncg/data"
)

// chiSquare returns Σ (count − n·p)²/(n·p) over the cells whose expected
// count is n·p, with counts[k] the rows that fell in cell k.
func chiSquare(counts map[int]int, p []float64, n int) float64 {
	var c float64
	for k, pk := range p {
		e := float64(n) * pk
		d := float64(counts[k]) - e
		c += d * d / e
	}
	return c
}

// TestSampleExactDistribution: rows drawn by SampleExact follow the model.
// For a binary model whose hidden layer is the one enumerated (X = 5 ≥ H =
// 3: h from its marginal, then x given h), one whose visible layer is (X =
// 4 < H = 7: x from its marginal), and a categorical model (groups of 3,
// 2, 2; h then each group given h), the counts of 20,000 rows over every
// visible state are held to p(x) = exp(−F(x))/Z from the brute-force
// free energy and log Z (exact_test.go), by χ² at the 0.999 quantile of
// its degrees of freedom (31, 15 and 11: 61.10, 37.70, 31.26): a
// false-alarm rate of 0.001 each for a fresh seed. log Z comes back as
// ExactLogZ's.
func TestSampleExactDistribution(t *testing.T) {
	const n = 20000
	for _, c := range []struct {
		m     *Model
		limit float64
	}{
		{randomModel(5, 3, 0.8, 1), 61.10},
		{randomModel(4, 7, 0.8, 2), 37.70},
		{randomCategoricalModel([]int{3, 2, 2}, 4, 0.8, 3), 31.26},
	} {
		m := c.m
		rows, logZ, err := SampleExact(context.Background(), m, n, 7, 0)
		if err != nil {
			t.Fatal(err)
		}
		exact, err := ExactLogZ(context.Background(), m, 0)
		if err != nil {
			t.Fatal(err)
		}
		if logZ != exact {
			t.Errorf("%s: log Z %v, ExactLogZ %v", m.Visible.Name(), logZ, exact)
		}
		if rows.N != n || rows.D != m.X || len(rows.X) != n*m.X {
			t.Fatalf("%s: rows %d×%d (%d values)", m.Visible.Name(), rows.N, rows.D, len(rows.X))
		}
		// Every visible state, bit-coded, with its probability.
		var states []int
		var logp []float64
		if m.Groups != nil {
			x, k := oneHotStates(m.Groups)
			for r := 0; r < k; r++ {
				states = append(states, code(x[r*m.X:(r+1)*m.X]))
				logp = append(logp, -bruteFreeEnergy(m, x[r*m.X:(r+1)*m.X]))
			}
		} else {
			for s := 0; s < 1<<m.X; s++ {
				x := make([]uint8, m.X)
				for j := range x {
					x[j] = uint8(s >> j & 1)
				}
				states = append(states, s)
				logp = append(logp, -bruteFreeEnergy(m, x))
			}
		}
		z := logSumExp(logp)
		cell := map[int]int{}
		p := make([]float64, len(states))
		for k, s := range states {
			cell[s] = k
			p[k] = math.Exp(logp[k] - z)
		}
		counts := map[int]int{}
		for r := 0; r < n; r++ {
			k, ok := cell[code(rows.X[r*m.X:(r+1)*m.X])]
			if !ok {
				t.Fatalf("%s: row %d %v is not a state of the model", m.Visible.Name(), r, rows.X[r*m.X:(r+1)*m.X])
			}
			counts[k]++
		}
		chi := chiSquare(counts, p, n)
		t.Logf("%s %d×%d: χ² = %.1f over %d states (limit %.2f; least expected count %.1f)", m.Visible.Name(), m.X, m.H, chi, len(p), c.limit, n*minOf(p))
		if n*minOf(p) < 5 {
			t.Errorf("%s %d×%d: a state expects %.1f rows, too few for χ²", m.Visible.Name(), m.X, m.H, n*minOf(p))
		}
		if chi > c.limit {
			t.Errorf("%s %d×%d: χ² = %.1f over %d states exceeds %.2f", m.Visible.Name(), m.X, m.H, chi, len(p), c.limit)
		}
	}
}

// code is the bit code of a binary row.
func code(x []uint8) int {
	s := 0
	for j, v := range x {
		s |= int(v) << j
	}
	return s
}

// TestSampleExactGaussian: rows of a Gaussian model (X = 3, H = 4) follow
// its marginal: each unit's values, by Kolmogorov–Smirnov against the
// mixture CDF Σ_h p(h)·Φ((v − μ_i(h))/σ_i), p(h) ∝ exp(cᵀh + Σ_i (μ_i(h)² −
// b_i²)/(2σ_i²)) enumerated here in float64. The threshold √n·D ≤ 2.0856
// is a false-alarm rate of 0.001 for the three units together (Bonferroni:
// 2·e^(−2t²) = 0.001/3).
func TestSampleExactGaussian(t *testing.T) {
	const n = 20000
	m := randomGaussModel(3, 4, 0.9, false, 4)
	rows, _, err := SampleExact(context.Background(), m, n, 11, 0)
	if err != nil {
		t.Fatal(err)
	}
	if rows.Real == nil || len(rows.Real) != n*m.X {
		t.Fatalf("rows of a Gaussian model: %d real values", len(rows.Real))
	}
	H := m.H
	logw := make([]float64, 1<<H)
	mu := make([][]float64, 1<<H)
	for hs := range logw {
		mu[hs] = make([]float64, m.X)
		for j := 0; j < H; j++ {
			if hs>>j&1 == 1 {
				logw[hs] += float64(m.HiddenBias[j])
			}
		}
		for i := 0; i < m.X; i++ {
			b := float64(m.VisibleBias[i])
			mu[hs][i] = b
			for j := 0; j < H; j++ {
				if hs>>j&1 == 1 {
					mu[hs][i] += float64(m.C[i*H+j])
				}
			}
			logw[hs] += (mu[hs][i]*mu[hs][i] - b*b) / (2 * m.sigma(i) * m.sigma(i))
		}
	}
	z := logSumExp(logw)
	for i := 0; i < m.X; i++ {
		cdf := func(v float64) float64 {
			var c float64
			for hs := range logw {
				c += math.Exp(logw[hs]-z) * 0.5 * math.Erfc(-(v-mu[hs][i])/(m.sigma(i)*math.Sqrt2))
			}
			return c
		}
		v := make([]float64, n)
		for r := range v {
			v[r] = float64(rows.Real[r*m.X+i])
		}
		sort.Float64s(v)
		var d float64
		for r, x := range v {
			f := cdf(x)
			d = math.Max(d, math.Max(f-float64(r)/n, float64(r+1)/n-f))
		}
		t.Logf("unit %d: √n·D = %.3f", i, math.Sqrt(n)*d)
		if math.Sqrt(n)*d > 2.0856 {
			t.Errorf("unit %d: √n·D = %.3f exceeds 2.0856", i, math.Sqrt(n)*d)
		}
	}
}

// TestSampleExactDeterminism: the same seed gives the same rows for 1 and
// 3 workers, for each unit type, with the enumerated layer larger than a
// chunk (2^14 hidden states: 4 chunks); another seed other rows; no rows
// is an error, as is a model too large to enumerate.
func TestSampleExactDeterminism(t *testing.T) {
	for _, m := range []*Model{randomModel(20, 14, 0.3, 1), randomCategoricalModel([]int{3, 4, 2}, 14, 0.3, 2), randomGaussModel(6, 14, 0.3, false, 3)} {
		a, _, err := SampleExact(context.Background(), m, 200, 5, 1)
		if err != nil {
			t.Fatal(err)
		}
		b, _, err := SampleExact(context.Background(), m, 200, 5, 3)
		if err != nil {
			t.Fatal(err)
		}
		c, _, err := SampleExact(context.Background(), m, 200, 6, 3)
		if err != nil {
			t.Fatal(err)
		}
		same := func(p, q []float64) bool {
			for k := range p {
				if math.Float64bits(p[k]) != math.Float64bits(q[k]) {
					return false
				}
			}
			return true
		}
		fa, fb, fc := rowValues(a), rowValues(b), rowValues(c)
		if !same(fa, fb) {
			t.Errorf("%s: rows differ between 1 and 3 workers", m.Visible.Name())
		}
		if same(fa, fc) {
			t.Errorf("%s: seeds 5 and 6 gave the same rows", m.Visible.Name())
		}
	}
	if _, _, err := SampleExact(context.Background(), randomModel(5, 3, 1, 1), 0, 1, 0); err == nil {
		t.Error("0 rows accepted")
	}
	if _, _, err := SampleExact(context.Background(), randomGaussModel(3, 26, 0.1, true, 1), 5, 1, 0); err == nil {
		t.Error("2^26 hidden states accepted")
	}
}

// rowValues lists a set's values (binary or real) as float64.
func rowValues(s *data.Set) []float64 {
	var v []float64
	for _, x := range s.X {
		v = append(v, float64(x))
	}
	for _, x := range s.Real {
		v = append(v, float64(x))
	}
	return v
}

// TestSampleExactChunks: a layer of 2^13 states is enumerated in two
// chunks of 4096, and rows drawn from it (a binary model of 13 visible and
// 14 hidden units, whose visible layer is the enumerated one) follow the
// model across both: the counts of 20,000 rows by their number of units
// on (at most 2, 3, …, 10, at least 11: ten cells, each expecting more
// than 5 rows) against the probabilities summed here over all 8192 states
// from the brute-force free energy, by χ² at the 0.999 quantile of 9
// degrees of freedom, 27.88. Both chunks are drawn from.
func TestSampleExactChunks(t *testing.T) {
	const n = 20000
	m := randomModel(13, 14, 0.25, 6)
	for j := range m.VisibleBias {
		m.VisibleBias[j] = 0.3 * float32(j%3) // rows of many and few units on both
	}
	rows, _, err := SampleExact(context.Background(), m, n, 3, 0)
	if err != nil {
		t.Fatal(err)
	}
	cell := func(ones int) int { return min(max(ones, 2), 11) - 2 }
	logp := make([][]float64, 10)
	for s := 0; s < 1<<13; s++ {
		x := make([]uint8, 13)
		ones := 0
		for j := range x {
			x[j] = uint8(s >> j & 1)
			ones += int(x[j])
		}
		logp[cell(ones)] = append(logp[cell(ones)], -bruteFreeEnergy(m, x))
	}
	cells := make([]float64, 10)
	for k := range cells {
		cells[k] = logSumExp(logp[k])
	}
	z := logSumExp(cells)
	p := make([]float64, 10)
	for k := range p {
		p[k] = math.Exp(cells[k] - z)
	}
	counts := map[int]int{}
	high := 0 // rows of the second chunk (unit 12 on)
	for r := 0; r < n; r++ {
		x := rows.X[r*13 : (r+1)*13]
		ones := 0
		for _, v := range x {
			ones += int(v)
		}
		counts[cell(ones)]++
		high += int(x[12])
	}
	chi := chiSquare(counts, p, n)
	t.Logf("χ² = %.1f over 10 cells (least expected count %.1f); %d rows from the second chunk", chi, n*minOf(p), high)
	if chi > 27.88 || n*minOf(p) < 5 || high == 0 || high == n {
		t.Errorf("χ² = %.1f (limit 27.88), least expected count %.1f; %d of %d rows from the second chunk", chi, n*minOf(p), high, n)
	}
}

func minOf(v []float64) float64 {
	m := math.Inf(1)
	for _, x := range v {
		m = math.Min(m, x)
	}
	return m
}
