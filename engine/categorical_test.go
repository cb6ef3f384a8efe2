package engine

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/kernel"
	"github.com/ncg-rbm/ncg/unit"
)

// Categorical visible units: minibatches against the float64 reference
// (softmax groups drawn from the same uniforms), one-hot chains, parallel
// tempering's β = 1 chains against the exact distribution, the binary
// models' guarantees (any workers, bit-identical resume), and what
// categorical units refuse.

// catGroups are the group sizes of categoricalData: 21 units, a group of
// one among them.
var catGroups = []int{3, 2, 4, 1, 5, 3, 3}

func groupsOf(sizes []int) data.Groups {
	g := data.Groups{0}
	for _, s := range sizes {
		g = append(g, g[len(g)-1]+s)
	}
	return g
}

// categoricalData makes n rows of one-hot groups of the given sizes
// around three prototypes (each group's value replaced by a uniform one
// with probability 0.15), with labels of the prototype when classes > 0.
func categoricalData(seed uint64, n int, sizes []int, classes int) *Data {
	r := rand.New(rand.NewPCG(seed, 2))
	g := groupsOf(sizes)
	d := g[len(g)-1]
	protos := make([][]int, 3)
	for p := range protos {
		for _, s := range sizes {
			protos[p] = append(protos[p], r.IntN(s))
		}
	}
	out := &Data{N: n, D: d, X: make([]uint8, n*d), Groups: g, Classes: classes}
	if classes > 0 {
		out.Labels = make([]int32, n)
	}
	for i := 0; i < n; i++ {
		p := r.IntN(len(protos))
		for k, s := range sizes {
			v := protos[p][k]
			if r.Float64() < 0.15 {
				v = r.IntN(s)
			}
			out.X[i*d+g[k]+v] = 1
		}
		if classes > 0 {
			out.Labels[i] = int32(p % classes)
		}
	}
	return out
}

func catConfig(c Config) Config {
	c.Visible = unit.Categorical
	return c
}

// catConfigs are categorical configurations of every method, compressed
// rows, PCD, PT, momentum and decay, and centring.
func catConfigs() []Config {
	var cs []Config
	for _, c := range allConfigs() {
		cs = append(cs, catConfig(c))
	}
	pcd := catConfig(smallConfig(NCG))
	pcd.Sampler = PersistentCD
	pt := catConfig(smallConfig(NCG))
	pt.Sampler, pt.Temperatures, pt.MinBeta = ParallelTempering, 4, 0.2
	mom := catConfig(smallConfig(Dense))
	mom.Momentum, mom.MomentumStart, mom.MomentumEpochs, mom.L2, mom.L1 = 0.9, 0.5, 1, 0.02, 0.003
	ctr := catConfig(smallConfig(NCG))
	ctr.Centre = true
	ctrPT := pt
	ctrPT.Centre = true
	return append(cs, pcd, pt, mom, ctr, ctrPT)
}

// oneHotGroups returns the first row of states (rows of x floats) that is
// not one-hot in every group of g, or −1.
func oneHotGroups(states []float32, x int, g data.Groups) (row, group int) {
	for r := 0; r*x < len(states); r++ {
		for k := 0; k < g.Len(); k++ {
			var on float32
			for _, v := range states[r*x+g[k] : r*x+g[k+1]] {
				if v != 0 && v != 1 {
					return r, k
				}
				on += v
			}
			if on != 1 {
				return r, k
			}
		}
	}
	return -1, -1
}

// TestCategoricalMinibatchMatchesReference runs three minibatches of every
// categorical configuration, generative and with three label units (a
// group of their own), and checks the second and third against the
// float64 reference started from the engine's state before each. The
// reference draws each group's unit as the first whose cumulative
// softmax probability exceeds the group's uniform: a chain that drew a
// wrong unit, a skipped draw or a softmax over the wrong units changes
// the statistics and fails it.
func TestCategoricalMinibatchMatchesReference(t *testing.T) {
	for _, cfg := range catConfigs() {
		for _, classes := range []int{0, 3} {
			d := categoricalData(3, 40, catGroups, classes)
			cfg.Batch, cfg.InitScale = 5, 0.5
			if cfg.Method != SET {
				cfg.Hidden, cfg.K = 7, 3
			}
			name := describeConfig(cfg) + fmt.Sprintf(" classes=%d", classes)
			tr, err := New(cfg, d)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tr.Step([]int32{1, 2, 3, 5, 8}); err != nil {
				t.Fatal(err)
			}
			for n, rows := range [][]int32{{4, 17, 0, 33, 9}, {12, 30, 7, 21, 39}} {
				tr.epoch = 1 + n
				m0 := tr.Model().Clone()
				in := refState{epoch: tr.epoch, vW: f64(tr.velW), vB: f64(tr.velB), vV: f64(tr.velV), chains: f64(tr.pcd)}
				if tr.ctr != nil {
					in.lambda = f64(tr.ctr.lambda)
				}
				streams := append([]kernel.Stream(nil), tr.streams...)
				if _, err := tr.Step(rows); err != nil {
					t.Fatal(err)
				}
				want, out := reference(t, m0, cfg, d, rows, streams, in)
				tolB := 1e-5
				if cfg.Centre {
					tolB = 2e-5
				}
				matchReference(t, fmt.Sprintf("%s step %d", name, n+2), tr, want, out, tolB)
			}
			g := tr.Model().Groups
			if r, k := oneHotGroups(tr.xs[:tr.nb*tr.m.X], tr.m.X, g); r >= 0 {
				t.Errorf("%s: chain %d is not one-hot in group %d", name, r, k)
			}
			if r, k := oneHotGroups(tr.pcd, tr.m.X, g); r >= 0 {
				t.Errorf("%s: persistent chain %d is not one-hot in group %d", name, r, k)
			}
			tr.Close()
		}
	}
}

// TestCategoricalSameResultAnyWorkers and resume: the binary models'
// guarantees hold for categorical units.
func TestCategoricalSameResultAnyWorkers(t *testing.T) {
	d := categoricalData(5, 157, catGroups, 0)
	for _, cfg := range catConfigs() {
		cfg.Workers = 1
		ref := train(t, cfg, d)
		if len(ref.Groups) != len(catGroups)+1 {
			t.Fatalf("%s: the model has groups %v", describeConfig(cfg), ref.Groups)
		}
		for _, w := range []int{2, 5} {
			cfg.Workers = w
			if p := paramsEqual(ref, train(t, cfg, d)); p != "" {
				t.Fatalf("%s: %s differs between 1 and %d workers", describeConfig(cfg), p, w)
			}
		}
	}
}

func TestCategoricalResumeIsBitIdentical(t *testing.T) {
	d := categoricalData(6, 95, catGroups, 2)
	for _, cfg := range catConfigs()[5:] { // PCD, PT, momentum, centred
		cfg.Epochs = 3
		checkResume(t, cfg, d, describeConfig(cfg))
	}
}

// TestCategoricalPTSamplesExactDistribution: parallel tempering's β = 1
// chains sample a small categorical RBM's distribution p(x) ∝ exp(d·x)
// Π_i (1 + exp(b_i + C_i x)) over the 3·2·3 one-hot visible states,
// enumerated in float64, by a χ² test at a false-alarm rate of 10⁻³, as
// TestPTSamplesExactDistribution does for binary units. Swaps need the
// energy of each tempered chain, and the chains at β < 1 draw from the
// softmax of β(d + Cᵀh): a wrong energy or temperature fails it.
func TestCategoricalPTSamplesExactDistribution(t *testing.T) {
	const h, slots, steps = 3, 4000, 60
	sizes := []int{3, 2, 3}
	d := categoricalData(11, 50, sizes, 0)
	x := d.D
	cfg := catConfig(smallConfig(Dense))
	cfg.Hidden, cfg.Batch, cfg.K, cfg.LR = h, slots, 1, 0
	cfg.Sampler, cfg.Temperatures, cfg.MinBeta = ParallelTempering, 5, 0.15
	tr, err := New(cfg, d)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	m := tr.Model()
	weights := []float32{3, -3, 2.5, 3, -2, -3, 3, 2.5, 2, -3, 3, -3, 2, 2.5, -3, -3, 3, 3, 2, -2, 1, -1, 3, -3} // X×H
	copy(m.W, weights)
	for i := range m.HiddenBias {
		m.HiddenBias[i] = -float32(i%2) - 1
	}
	for j := range m.VisibleBias {
		m.VisibleBias[j] = float32(j%3) - 1
	}
	m.refreshC()
	rows := make([]int32, slots)
	for i := range rows {
		rows[i] = int32(i % d.N)
	}
	for s := 0; s < steps; s++ {
		if _, err := tr.Step(rows); err != nil {
			t.Fatal(err)
		}
	}
	g := groupsOf(sizes)
	// A state is the index of the unit on in each group, mixed radix.
	index := func(v []float32) int {
		s, mul := 0, 1
		for k := 0; k < g.Len(); k++ {
			for j := g[k]; j < g[k+1]; j++ {
				if v[j] != 0 {
					s += (j - g[k]) * mul
				}
			}
			mul *= g.Size(k)
		}
		return s
	}
	states := 1
	for _, s := range sizes {
		states *= s
	}
	counts := make([]float64, states)
	for c := 0; c < slots; c++ {
		counts[index(tr.pcd[c*x:(c+1)*x])]++
	}
	p := make([]float64, states)
	var z float64
	for s := range p {
		v := make([]float64, x)
		for k, r := 0, s; k < g.Len(); k++ {
			v[g[k]+r%g.Size(k)] = 1
			r /= g.Size(k)
		}
		lp := 0.0
		for j := 0; j < x; j++ {
			lp += float64(m.VisibleBias[j]) * v[j]
		}
		for i := 0; i < h; i++ {
			a := float64(m.HiddenBias[i])
			for j := 0; j < x; j++ {
				a += float64(m.c[j*h+i]) * v[j]
			}
			lp += math.Log1p(math.Exp(a))
		}
		p[s] = math.Exp(lp)
		z += p[s]
	}
	chi2, cells := chiSquare(counts, p, z, slots)
	limit := distuv.ChiSquared{K: float64(cells - 1)}.Quantile(1 - 1e-3)
	t.Logf("χ² = %.1f over %d cells, limit %.1f", chi2, cells, limit)
	if chi2 > limit {
		t.Errorf("PT's β = 1 chains do not sample the categorical model: χ² = %.1f > %.1f (%d cells)", chi2, limit, cells)
	}
}

// TestCategoricalRefusals: data without groups, groups the rows break,
// and the settings categorical units do not take.
func TestCategoricalRefusals(t *testing.T) {
	good := categoricalData(1, 20, catGroups, 0)
	noGroups := randomData(1, 20, 21, 0)
	broken := categoricalData(1, 20, catGroups, 0)
	broken.X[7*21+1] = 1 // row 7: a second unit on in group 0, or its only one moved
	broken.X[7*21+0], broken.X[7*21+2] = 1, 0
	wrongCover := categoricalData(1, 20, catGroups, 0)
	wrongCover.Groups = groupsOf([]int{3, 2, 4, 1, 5, 3})
	real := gaussData(1, 20, 5)
	learn := catConfig(smallConfig(Dense))
	learn.LearnSigma = true
	mocanu := catConfig(smallConfig(SET))
	mocanu.SETProcedure = Mocanu
	for _, c := range []struct {
		cfg  Config
		d    *Data
		want string
	}{
		{catConfig(smallConfig(NCG)), noGroups, "has no categorical groups"},
		{catConfig(smallConfig(NCG)), broken, "row 7, group 0 (units 0…2)"},
		{catConfig(smallConfig(NCG)), wrongCover, "groups cover 18 units, the rows have 21"},
		{catConfig(smallConfig(NCG)), real, "real-valued"},
		{learn, good, "learn-sigma needs visible gaussian"},
		{mocanu, good, "binary visible units only"},
	} {
		if _, err := New(c.cfg, c.d); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error about %q", describeConfig(c.cfg), err, c.want)
		}
	}
	if _, err := New(catConfig(smallConfig(NCG)), good); err != nil {
		t.Errorf("good data refused: %v", err)
	}
}
