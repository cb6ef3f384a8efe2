package engine

// Tests that pin the algorithm's definition (the paper's sections 4 and 5
// and Mocanu et al. 2018 for SET): the epoch order, the initial
// distributions, the fixed patterns, SET's rewiring step, the batch size a
// short minibatch divides by and the threshold on A′. Each expected value
// is derived here, not read back from the code under test. The
// statistical checks draw from a fixed seed, so each passes or fails
// deterministically; the false-alarm rate stated for each is what it would
// be for a fresh seed (α = 0.001 per check).

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/ncg-rbm/ncg/kernel"
)

// ksCritical is the asymptotic Kolmogorov–Smirnov critical value of √n·D
// at α = 0.001: P(K > c) = 2 Σ_{k≥1} (−1)^{k−1} e^{−2k²c²} = 0.001 at
// c = 1.9495 (the first term alone: c = √(ln(2/α)/2)).
const ksCritical = 1.9495

// zCritical is the two-sided normal critical value at α = 0.001.
const zCritical = 3.2905

// ksTest fails t when the sample s is not drawn from the distribution with
// CDF cdf (one-sample KS test at α = 0.001).
func ksTest(t *testing.T, name string, s []float64, cdf func(float64) float64) {
	t.Helper()
	if len(s) < 100 {
		t.Fatalf("%s: %d values are too few for the asymptotic KS test", name, len(s))
	}
	s = slices.Clone(s)
	sort.Float64s(s)
	n := float64(len(s))
	var d float64
	for i, v := range s {
		f := cdf(v)
		d = math.Max(d, math.Max(f-float64(i)/n, float64(i+1)/n-f))
	}
	if stat := math.Sqrt(n) * d; stat > ksCritical {
		t.Errorf("%s: KS statistic √n·D = %.3f over %d values exceeds %.4f (α = 0.001)", name, stat, len(s), ksCritical)
	}
}

// uniformCDF is the CDF of U(lo, hi).
func uniformCDF(lo, hi float64) func(float64) float64 {
	return func(v float64) float64 { return math.Min(math.Max((v-lo)/(hi-lo), 0), 1) }
}

// binomialTest fails t when k successes in n trials are not consistent with
// probability p (normal approximation, two-sided, α = 0.001).
func binomialTest(t *testing.T, name string, k, n int, p float64) {
	t.Helper()
	mean, sd := float64(n)*p, math.Sqrt(float64(n)*p*(1-p))
	if z := (float64(k) - mean) / sd; math.Abs(z) > zCritical {
		t.Errorf("%s: %d of %d, expected %.1f ± %.1f (z = %.2f, α = 0.001)", name, k, n, mean, sd, z)
	}
}

// oneHotRows is n rows of n units, row r having only unit r on, so that a
// minibatch's data identify the row.
func oneHotRows(n int) *Data {
	d := &Data{N: n, D: n, X: make([]uint8, n*n)}
	for r := 0; r < n; r++ {
		d.X[r*n+r] = 1
	}
	return d
}

// epochOrders trains one-sample minibatches and returns, per epoch, the
// rows in the order training visited them (read from the minibatch's
// data, not from the permutation).
func epochOrders(t *testing.T, seed uint64, n, epochs int) [][]int {
	t.Helper()
	d := oneHotRows(n)
	cfg := smallConfig(Dense)
	cfg.Hidden, cfg.K, cfg.Batch, cfg.LR, cfg.Epochs, cfg.Seed, cfg.Workers = 2, 1, 1, 0, epochs, seed, 1
	tr, err := New(cfg, d)
	if err != nil {
		t.Fatal(err)
	}
	orders := make([][]int, epochs)
	tr.afterBatch = func() {
		r := slices.Index(tr.x0[:n], 1)
		orders[tr.epoch] = append(orders[tr.epoch], r)
	}
	if err := tr.Train(context.Background(), Options{}); err != nil {
		t.Fatal(err)
	}
	return orders
}

// TestEpochOrder: every epoch visits every sample once, the first epoch
// included in a shuffled order, and each epoch in a new order; over many
// seeds the position of a sample in an epoch is uniform (χ² test).
func TestEpochOrder(t *testing.T) {
	const n, epochs = 10, 4
	orders := epochOrders(t, 1, n, epochs)
	identity := make([]int, n)
	for i := range identity {
		identity[i] = i
	}
	for e, o := range orders {
		if s := slices.Sorted(slices.Values(o)); !slices.Equal(s, identity) {
			t.Fatalf("epoch %d visited %v: not every sample once", e+1, o)
		}
	}
	// For a uniform shuffle each of these fails with probability 1/10!
	// (or 3/10! for the pairs): a fixed seed that fails is a bug.
	if slices.Equal(orders[0], identity) {
		t.Errorf("epoch 1 visits the samples in their stored order: the first epoch is not shuffled")
	}
	for a := 0; a < epochs; a++ {
		for b := a + 1; b < epochs; b++ {
			if slices.Equal(orders[a], orders[b]) {
				t.Errorf("epochs %d and %d visit the samples in the same order %v", a+1, b+1, orders[a])
			}
		}
	}

	// Position of sample 0 in epochs 1 and 2 over 300 seeds: χ² with 9
	// degrees of freedom, critical value 27.88 at α = 0.001.
	const seeds = 300
	for e := 0; e < 2; e++ {
		count := make([]float64, n)
		for s := uint64(1); s <= seeds; s++ {
			o := epochOrders(t, s+1000, n, e+1)
			count[slices.Index(o[e], 0)]++
		}
		var chi2 float64
		for _, c := range count {
			chi2 += (c - seeds/n) * (c - seeds/n) / (seeds / n)
		}
		if chi2 > 27.88 {
			t.Errorf("epoch %d: position of sample 0 over %d seeds %v: χ² = %.1f > 27.88 (α = 0.001), not uniform", e+1, seeds, count, chi2)
		}
	}
}

// TestInitialDistributions: W ~ U(−a, a) (or N(0, a²)), b = d = 0; for NCG
// A ~ Bernoulli(p), A′ ~ U(γ, 1) where A = 1 and U(0, γ) where A = 0
// (paper, sections 4.1 and 5), and label connections present with A′ = 1.
func TestInitialDistributions(t *testing.T) {
	const D, H, classes = 40, 50, 3
	d := randomData(1, 20, D, classes)
	cfg := smallConfig(NCG)
	cfg.Hidden, cfg.P, cfg.Gamma, cfg.InitScale = H, 0.3, 0.4, 0.7
	tr, err := New(cfg, d)
	if err != nil {
		t.Fatal(err)
	}
	m := tr.Model()
	var w, on, off []float64
	for k := 0; k < D*H; k++ {
		w = append(w, float64(m.W[k]))
		switch m.A[k] {
		case 1:
			on = append(on, float64(m.AP[k]))
		case 0:
			off = append(off, float64(m.AP[k]))
		default:
			t.Fatalf("A[%d] = %v, want 0 or 1", k, m.A[k])
		}
	}
	ksTest(t, "W (data rows)", w, uniformCDF(-0.7, 0.7))
	var wl []float64
	for k := D * H; k < len(m.W); k++ {
		wl = append(wl, float64(m.W[k]))
		if m.A[k] != 1 || m.AP[k] != 1 {
			t.Fatalf("label connection %d: A = %v, A′ = %v, want 1, 1", k, m.A[k], m.AP[k])
		}
	}
	ksTest(t, "W (label rows)", wl, uniformCDF(-0.7, 0.7))
	binomialTest(t, "present NCG connections", len(on), D*H, 0.3)
	ksTest(t, "A′ where A = 1", on, uniformCDF(0.4, 1))
	ksTest(t, "A′ where A = 0", off, uniformCDF(0, 0.4))
	for i, v := range m.HiddenBias {
		if v != 0 {
			t.Fatalf("hidden bias %d = %v, want 0", i, v)
		}
	}
	for j, v := range m.VisibleBias {
		if v != 0 {
			t.Fatalf("visible bias %d = %v, want 0", j, v)
		}
	}

	cfg.Method, cfg.Init, cfg.InitScale = Dense, "normal", 0.2
	tr, err = New(cfg, d)
	if err != nil {
		t.Fatal(err)
	}
	w = w[:0]
	for _, v := range tr.Model().W {
		w = append(w, float64(v))
	}
	ksTest(t, "W with init normal", w, func(v float64) float64 { return 0.5 * math.Erfc(-v/(0.2*math.Sqrt2)) })
}

// TestFixedPatterns: a line model's hidden unit i sees exactly the V
// visible units from its start on, wrapping at D, the starts spread as the
// authors' code spreads them; a random model's connections are
// Bernoulli(density); SET starts Erdős–Rényi with density ε(D+H)/(DH).
func TestFixedPatterns(t *testing.T) {
	// Starts by the authors' rule, written out: step ⌈D/H⌉, start i·step,
	// and once i·step reaches D the odd offsets 1, 3, 5, …
	for _, c := range []struct {
		D, H, V int
		starts  []int
	}{
		{10, 8, 3, []int{0, 2, 4, 6, 8, 1, 3, 5}},
		{12, 5, 4, []int{0, 3, 6, 9, 1}},
		{7, 3, 7, []int{0, 3, 6}},
	} {
		cfg := smallConfig(Line)
		cfg.Hidden, cfg.LineWidth = c.H, c.V
		tr, err := New(cfg, randomData(1, 10, c.D, 2))
		if err != nil {
			t.Fatal(err)
		}
		m := tr.Model()
		for i := 0; i < c.H; i++ {
			want := map[int]bool{}
			for t := 0; t < c.V; t++ {
				want[(c.starts[i]+t)%c.D] = true
			}
			for j := 0; j < c.D; j++ {
				if got := m.A[j*c.H+i] == 1; got != want[j] {
					t.Fatalf("line D=%d H=%d V=%d: hidden %d, visible %d present = %v, want %v (start %d)", c.D, c.H, c.V, i, j, got, want[j], c.starts[i])
				}
			}
		}
		for _, deg := range m.Degrees() {
			if deg != c.V {
				t.Fatalf("line D=%d H=%d V=%d: degrees %v, want each %d", c.D, c.H, c.V, m.Degrees(), c.V)
			}
		}
		for k := c.D * c.H; k < len(m.A); k++ {
			if m.A[k] != 1 {
				t.Fatal("a label connection of a line model is absent")
			}
		}
	}

	const D, H = 40, 50
	d := randomData(1, 10, D, 0)
	count := func(cfg Config) int {
		tr, err := New(cfg, d)
		if err != nil {
			t.Fatal(err)
		}
		m := tr.Model()
		n := 0
		for _, a := range m.A[:D*H] {
			n += int(a)
		}
		if c := m.Connectivity(); c.Active != n || c.Density != float64(n)/(D*H) {
			t.Fatalf("%s: Connectivity says %d connections (density %v), the mask holds %d", cfg.Method, c.Active, c.Density, n)
		}
		return n
	}
	random := smallConfig(Random)
	random.Hidden, random.Density = H, 0.3
	binomialTest(t, "random (density 0.3) connections", count(random), D*H, 0.3)
	set := smallConfig(SET)
	set.Hidden, set.Epsilon = H, 3
	binomialTest(t, "SET (ε = 3) connections", count(set), D*H, 3.0*(D+H)/(D*H))
}

// TestSETRewiring checks one rewiring step on a constructed model: exactly
// ⌊ζ·n₊⌋ of the n₊ positive weights and ⌊ζ·n₋⌋ of the n₋ negative ones,
// those closest to zero, are removed; every other connection keeps its
// weight; as many connections grow at random empty places with weights in
// ±0.01; label connections are untouched.
func TestSETRewiring(t *testing.T) {
	const D, H, labels = 20, 10, 2
	const zeta = 0.25
	m := newModel(D+labels, D, H, false)
	rng := rand.New(rand.NewPCG(7, 7))
	// 100 present data connections: 51 positive, 49 negative weights of
	// distinct magnitudes in [0.1, 1); ⌊0.25·51⌋ = 12 (rounding: 13) and
	// ⌊0.25·49⌋ = 12.
	present := rng.Perm(D * H)[:100]
	for n, k := range present {
		m.A[k] = 1
		m.W[k] = float32(0.1 + 0.9*rng.Float64())
		if n >= 51 {
			m.W[k] = -m.W[k]
		}
	}
	for k := range m.W {
		if m.A[k] == 0 && k < D*H {
			m.W[k] = float32(rng.Float64() - 0.5) // frozen weights of absent connections
		}
	}
	for k := D * H; k < len(m.W); k++ {
		m.A[k], m.W[k] = 1, float32(k-D*H+1)*1e-3 // tiny: pruned if label rows were included
	}
	m.refreshC()
	before := m.Clone()

	// The expected survivors: a connection goes when fewer than the cut of
	// its sign's connections are closer to zero than it is.
	survives := map[int]bool{}
	for _, k := range present {
		closer, same := 0, 0
		for _, l := range present {
			if (before.W[l] > 0) == (before.W[k] > 0) {
				same++
				if math.Abs(float64(before.W[l])) < math.Abs(float64(before.W[k])) {
					closer++
				}
			}
		}
		survives[k] = closer >= same/4 // ⌊ζ·n⌋ with ζ = 1/4
	}
	removed := 0
	for _, ok := range survives {
		if !ok {
			removed++
		}
	}
	if removed != 24 {
		t.Fatalf("test set-up: %d connections to remove, want 12 + 12", removed)
	}

	m.rewireSET(zeta, 1, true, false, rand.New(rand.NewPCG(1, 2)))

	grown, onPruned := 0, 0
	for k := 0; k < D*H; k++ {
		wasOn := before.A[k] == 1
		switch {
		case wasOn && survives[k]:
			if m.A[k] != 1 || m.W[k] != before.W[k] {
				t.Fatalf("connection %d (W = %v) should survive unchanged: A = %v, W = %v", k, before.W[k], m.A[k], m.W[k])
			}
		case m.A[k] == 1:
			grown++
			if math.Abs(float64(m.W[k])) > 0.01 {
				t.Errorf("grown connection %d has weight %v, want within ±0.01", k, m.W[k])
			}
			if wasOn {
				onPruned++
			}
		}
		if m.c[k] != m.W[k]*m.A[k] {
			t.Fatalf("C[%d] = %v ≠ W⊙A = %v", k, m.c[k], m.W[k]*m.A[k])
		}
	}
	if grown != removed {
		t.Errorf("%d connections grew, want as many as were removed (%d)", grown, removed)
	}
	if onPruned == grown {
		t.Errorf("every new connection sits where one was pruned: nothing was rewired")
	}
	for k := D * H; k < len(m.W); k++ {
		if m.A[k] != 1 || m.W[k] != before.W[k] {
			t.Fatalf("label connection %d changed: A = %v, W = %v (was %v)", k, m.A[k], m.W[k], before.W[k])
		}
	}
	if msg := copiesFollowC(m); msg != "" {
		t.Fatal(msg)
	}
}

// TestShortLastBatch: the last minibatch of an epoch with N mod B ≠ 0
// samples averages its gradient over its own size, not over B (the float64
// reference of one minibatch, run on the short batch training reached).
func TestShortLastBatch(t *testing.T) {
	for _, method := range []Method{Dense, NCG, Line} {
		for _, classes := range []int{0, 3} {
			d := randomData(11, 13, 21, classes) // batches of 5, 5 and 3
			cfg := smallConfig(method)
			cfg.Hidden, cfg.Batch, cfg.K, cfg.Epochs = 7, 5, 2, 1
			tr, err := New(cfg, d)
			if err != nil {
				t.Fatal(err)
			}
			var m0 *Model
			var streams []kernel.Stream
			var rows []int32
			tr.afterBatch = func() {
				if tr.batch == 2 {
					m0 = tr.Model().Clone()
					streams = slices.Clone(tr.streams)
					rows = slices.Clone(tr.perm[10:])
				}
			}
			if err := tr.Train(context.Background(), Options{}); err != nil {
				t.Fatal(err)
			}
			if len(rows) != 3 {
				t.Fatalf("last minibatch has %d rows, want 3", len(rows))
			}
			want, _ := reference(t, m0, cfg, d, rows, streams, refState{})
			got := tr.Model()
			for _, p := range []struct {
				name   string
				a, b   []float32
				exactA bool
			}{{"W", got.W, want.W, false}, {"A", got.A, want.A, true}, {"A′", got.AP, want.AP, false}, {"b", got.HiddenBias, want.HiddenBias, false}, {"d", got.VisibleBias, want.VisibleBias, false}} {
				for k := range p.a {
					if diff := math.Abs(float64(p.a[k] - p.b[k])); diff > 1e-5 || (p.exactA && diff != 0) {
						t.Fatalf("%s classes=%d: %s[%d] = %g after the short batch, float64 reference %g", method, classes, p.name, k, p.a[k], p.b[k])
					}
				}
			}
		}
	}
}

// TestThresholdIncludesGamma: a connection whose A′ equals γ exactly is
// present (A = 1[A′ ≥ γ]); one just below is absent. With α = α_A = 0 the
// update leaves W and A′ as they are and only recomputes A.
func TestThresholdIncludesGamma(t *testing.T) {
	d := randomData(2, 10, 12, 0)
	cfg := smallConfig(NCG)
	cfg.Hidden, cfg.Gamma, cfg.LR, cfg.LRConn = 6, 0.375, 0, 0 // γ exact in float32
	tr, err := New(cfg, d)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	m := tr.Model()
	g := float32(0.375)
	below, above := math.Nextafter32(g, 0), math.Nextafter32(g, 1)
	want := make([]float32, len(m.A))
	for k := range m.AP {
		switch k % 3 {
		case 0:
			m.AP[k], want[k] = g, 1
		case 1:
			m.AP[k], want[k] = below, 0
		case 2:
			m.AP[k], want[k] = above, 1
		}
		m.A[k] = 1 - want[k] // the step must recompute A, not keep it
	}
	m.refreshC()
	if _, err := tr.Step([]int32{0, 1, 2, 3, 4}); err != nil {
		t.Fatal(err)
	}
	for k := range m.A {
		if m.A[k] != want[k] {
			t.Fatalf("A′ = %v (γ = %v): A = %v, want %v", m.AP[k], g, m.A[k], want[k])
		}
	}
}
