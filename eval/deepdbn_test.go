package eval

import (
	"context"
	"math"
	"testing"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/unit"
)

// bruteLogBern returns Σ_i s_i·a_i − log(1 + e^{a_i}) in float64.
func bruteLogBern(s, a []float64) float64 {
	var t float64
	for i := range a {
		t += s[i]*a[i] - math.Log1p(math.Exp(a[i]))
	}
	return t
}

// bruteDBN returns, for a row v of a DBN, log p(v) and E_Q[log p(v, h) −
// log Q(h | v)] over every state of the hidden layers 1…L−1, from the
// definitions: p(v | h¹) by the visible type (Bernoulli, softmax per
// group, Gaussian density), p(h^l | h^{l+1}) = σ(d^l + C^l h^{l+1}),
// p_top(y) = Σ_z exp(−E_top(y, z))/Z_top with Z_top summed over every
// state of the top RBM, and Q(h^{l+1} | h^l) = σ(c^l + C^lᵀh^l) (the
// input of a Gaussian v is v/σ²).
func bruteDBN(n *DBN, v []float64) (logp, elbo float64) {
	L := len(n.Layers)
	sizes := stackSizes(n.Layers)
	top := n.Layers[L-1]
	// log Z_top and log p*_top(y) = log Σ_z exp(dᵀy + bᵀz + yᵀCz).
	topStar := func(y []float64) float64 {
		var terms []float64
		for zc := 0; zc < 1<<top.H; zc++ {
			z := bitStates(zc, top.H)
			e := 0.0
			for j := 0; j < top.X; j++ {
				e += float64(top.VisibleBias[j]) * y[j]
				for i := 0; i < top.H; i++ {
					e += y[j] * float64(top.C[j*top.H+i]) * z[i]
				}
			}
			for i := 0; i < top.H; i++ {
				e += float64(top.HiddenBias[i]) * z[i]
			}
			terms = append(terms, e)
		}
		return logSumExp(terms)
	}
	var zt []float64
	for yc := 0; yc < 1<<top.X; yc++ {
		zt = append(zt, topStar(bitStates(yc, top.X)))
	}
	logZTop := logSumExp(zt)
	// gen returns d^l + C^l h^{l+1}; rec returns c^l + C^lᵀ·(input of h^l).
	gen := func(l int, up []float64) []float64 {
		m := n.Layers[l]
		g := make([]float64, m.X)
		for j := range g {
			g[j] = float64(m.VisibleBias[j])
			for i := 0; i < m.H; i++ {
				g[j] += float64(m.C[j*m.H+i]) * up[i]
			}
		}
		return g
	}
	rec := func(l int, low []float64) []float64 {
		m := n.Layers[l]
		a := make([]float64, m.H)
		for i := range a {
			a[i] = float64(m.HiddenBias[i])
			for j := 0; j < m.X; j++ {
				x := low[j]
				if l == 0 && m.Visible == unit.Gaussian {
					x /= m.sigma(j) * m.sigma(j)
				}
				a[i] += x * float64(m.C[j*m.H+i])
			}
		}
		return a
	}
	logVisible := func(h1 []float64) float64 {
		m := n.Layers[0]
		g := gen(0, h1)
		switch m.Visible {
		case unit.Gaussian:
			var t float64
			for j, mu := range g {
				s := m.sigma(j)
				t += -(v[j]-mu)*(v[j]-mu)/(2*s*s) - 0.5*math.Log(2*math.Pi*s*s)
			}
			return t
		case unit.Categorical:
			var t float64
			for k := 0; k < m.Groups.Len(); k++ {
				grp := g[m.Groups[k]:m.Groups[k+1]]
				for j, x := range grp {
					t += v[m.Groups[k]+j] * x
				}
				t -= logSumExp(grp)
			}
			return t
		}
		return bruteLogBern(v, g)
	}
	if L == 1 {
		return math.NaN(), math.NaN()
	}
	var lj []float64
	var el float64
	forEachHidden(sizes[:L], func(h [][]float64) {
		h[0] = v
		lp := logVisible(h[1])
		lq := bruteLogBern(h[1], rec(0, v))
		for l := 1; l+1 < L; l++ {
			lp += bruteLogBern(h[l], gen(l, h[l+1]))
			lq += bruteLogBern(h[l+1], rec(l, h[l]))
		}
		lp += topStar(h[L-1]) - logZTop
		lj = append(lj, lp)
		el += math.Exp(lq) * (lp - lq)
	})
	return logSumExp(lj), el
}

// bruteTopLogZ returns log Z of a DBN's top RBM by brute force.
func bruteTopLogZ(n *DBN) float64 { return bruteLogZ(n.Layers[len(n.Layers)-1]) }

// Each row's estimate is within its standard error of the expectation of
// the same integrand summed over every hidden state, and below the row's
// exact log p(v) (which that expectation is, less the KL). For each model
// two tests of the estimates against the expectations: the mean over the
// 24 rows, |z| ≤ 3.29 with the result's SE (α = 0.001 for a normal z;
// measured over 4,000 fresh seeds of these models: 4 above); and Σ_r z_r²
// of the rows ≤ 65.0, the 0.999 quantile measured over those seeds (the
// rows' SEs come from 200 draws each, so the sum's tail is heavier than
// χ²₂₄'s, whose 0.999 quantile is 51.18).
func TestDBNBoundBruteForce(t *testing.T) {
	ctx := context.Background()
	for k, c := range []struct {
		name  string
		sizes []int
		vis   unit.Type
	}{
		{"binary 6-4-3", []int{6, 4, 3}, unit.Binary},
		{"binary 5-4-3-3", []int{5, 4, 3, 3}, unit.Binary},
		{"categorical 5-4-3", []int{5, 4, 3}, unit.Categorical},
		{"gaussian 3-4-3", []int{3, 4, 3}, unit.Gaussian},
	} {
		layers := randomStack(c.sizes, 1.2, uint64(20+k))
		switch c.vis {
		case unit.Categorical:
			layers[0].Visible, layers[0].Groups = unit.Categorical, data.Groups{0, 2, 5}
		case unit.Gaussian:
			layers[0].Visible, layers[0].Sigma = unit.Gaussian, []float32{0.8, 1.1, 1}
		}
		n := &DBN{Layers: layers}
		rows := dbmTrainRows(&DBM{Layers: layers}, 24, uint64(k))
		logZTop := bruteTopLogZ(n)
		res, err := DBNBound(ctx, n, rows, logZTop, DBNBoundConfig{Samples: 200, Seed: uint64(k)})
		if err != nil {
			t.Fatal(err)
		}
		var chi2, meanP, meanE, se2 float64
		for r := 0; r < rows.N; r++ {
			logp, want := bruteDBN(n, rowFloat64(rows, r))
			z := (res.LogP[r] - want) / res.RowSE[r]
			chi2 += z * z
			meanP += logp / float64(rows.N)
			meanE += want / float64(rows.N)
			se2 += res.RowSE[r] * res.RowSE[r]
			if !(want <= logp+1e-9) {
				t.Errorf("%s row %d: brute-force expectation %.6f above log p(v) %.6f", c.name, r, want, logp)
			}
			if res.LogP[r] > logp+4*res.RowSE[r] {
				t.Errorf("%s row %d: bound %.6f ± %.6f above log p(v) = %.6f", c.name, r, res.LogP[r], res.RowSE[r], logp)
			}
		}
		t.Logf("%s: mean bound %.5f ± %.5f, expectation %.5f, mean log p(v) %.5f; Σ z² = %.1f over %d rows",
			c.name, res.Mean, res.SE, meanE, meanP, chi2, rows.N)
		if chi2 > 65.0 {
			t.Errorf("%s: Σ z² = %.1f over 24 rows exceeds 65.0", c.name, chi2)
		}
		if z := (res.Mean - meanE) / res.SE; math.Abs(z) > 3.29 {
			t.Errorf("%s: mean bound %.5f ± %.5f, expectation %.5f: z = %.2f", c.name, res.Mean, res.SE, meanE, z)
		}
		if math.Abs(res.SE-math.Sqrt(se2)/float64(rows.N)) > 1e-12 || res.Mean != mean(res.LogP) {
			t.Errorf("%s: Mean %v SE %v, want the rows' mean and √(Σ SE²)/N", c.name, res.Mean, res.SE)
		}
		if !(res.Mean < meanP) {
			t.Errorf("%s: mean bound %.5f not below the mean log p(v) %.5f", c.name, res.Mean, meanP)
		}
	}
}

// A DBN whose top RBM is the bottom one transposed is the bottom RBM (its
// prior over h¹ is the RBM's marginal), and Q is the RBM's own factorial
// posterior: every draw's integrand is the RBM's log p(v), so the bound
// is tight. A DBN of one RBM is the RBM: −F(v) − log Z.
func TestDBNBoundTight(t *testing.T) {
	ctx := context.Background()
	m := randomModel(7, 4, 1, 8)
	tm := &Model{X: 4, H: 7, C: m.transposed(), VisibleBias: m.HiddenBias, HiddenBias: m.VisibleBias}
	rows := allBinaryRows(7)
	logZ, err := ExactLogZ(ctx, m, 1)
	if err != nil {
		t.Fatal(err)
	}
	f, err := FreeEnergies(ctx, m, rows, 1)
	if err != nil {
		t.Fatal(err)
	}
	two, err := DBNBound(ctx, &DBN{Layers: []*Model{m, tm}}, rows, logZ, DBNBoundConfig{Samples: 5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	one, err := DBNBound(ctx, &DBN{Layers: []*Model{m}}, rows, logZ, DBNBoundConfig{Samples: 5})
	if err != nil {
		t.Fatal(err)
	}
	for r := 0; r < rows.N; r++ {
		want := -bruteFreeEnergy(m, rows.X[r*7:(r+1)*7]) - logZ
		if math.Abs(two.LogP[r]-want) > 1e-4 || !(two.RowSE[r] < 1e-4) {
			t.Errorf("row %d: bound %.7f ± %.2g, the RBM's log p(v) %.7f", r, two.LogP[r], two.RowSE[r], want)
		}
		if math.Abs(one.LogP[r]-want) > 1e-5 || math.Abs(one.LogP[r]-(-f[r]-logZ)) > 1e-5 || one.RowSE[r] != 0 {
			t.Errorf("row %d: one RBM's bound %.9f ± %v, −F − log Z = %.9f (FreeEnergies: %.9f)", r, one.LogP[r], one.RowSE[r], want, -f[r]-logZ)
		}
	}
}

// The same bits for any number of workers, rows in several chunks.
func TestDBNBoundWorkers(t *testing.T) {
	n := &DBN{Layers: randomStack([]int{9, 4, 3, 3}, 1, 5)}
	rows := allBinaryRows(9)
	cfg := DBNBoundConfig{Samples: 3, Seed: 4, Workers: 1}
	ref, err := DBNBound(context.Background(), n, rows, 2, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []int{2, 3} {
		cfg.Workers = w
		res, err := DBNBound(context.Background(), n, rows, 2, cfg)
		if err != nil {
			t.Fatal(err)
		}
		for r := range ref.LogP {
			if res.LogP[r] != ref.LogP[r] || res.RowSE[r] != ref.RowSE[r] {
				t.Fatalf("workers %d row %d: %v, workers 1: %v", w, r, res.LogP[r], ref.LogP[r])
			}
		}
	}
}

func TestDBNBoundBadInput(t *testing.T) {
	ctx := context.Background()
	n := &DBN{Layers: randomStack([]int{4, 3, 2}, 1, 1)}
	for _, c := range []struct {
		rows *data.Set
		logZ float64
		cfg  DBNBoundConfig
	}{
		{allBinaryRows(5), 0, DBNBoundConfig{Samples: 1}},
		{allBinaryRows(4), math.Inf(1), DBNBoundConfig{Samples: 1}},
		{allBinaryRows(4), 0, DBNBoundConfig{}},
		{realRows(make([]float32, 8), 2, 4), 0, DBNBoundConfig{Samples: 1}},
	} {
		if _, err := DBNBound(ctx, n, c.rows, c.logZ, c.cfg); err == nil {
			t.Errorf("rows of %d units, log Z %v, %+v: accepted", c.rows.D, c.logZ, c.cfg)
		}
	}
}

// Each row's standard error is the spread of its estimate over seeds:
// over 8 rows and 64 seeds of 20 draws, the estimates' variance across
// seeds (504 degrees of freedom) over the mean squared SE lies in
// [0.75, 1.3], beyond ±4 standard deviations of the ratio (≈ 0.065) had
// the SEs the right scale.
func TestDBNBoundSE(t *testing.T) {
	ctx := context.Background()
	n := &DBN{Layers: randomStack([]int{6, 4, 3}, 1.2, 31)}
	rows := dbmTrainRows(&DBM{Layers: n.Layers}, 8, 2)
	const seeds = 64
	est := make([][]float64, rows.N)
	var se2 float64
	for s := 0; s < seeds; s++ {
		res, err := DBNBound(ctx, n, rows, 0, DBNBoundConfig{Samples: 20, Seed: uint64(s)})
		if err != nil {
			t.Fatal(err)
		}
		for r := range est {
			est[r] = append(est[r], res.LogP[r])
			se2 += res.RowSE[r] * res.RowSE[r] / float64(seeds*rows.N)
		}
	}
	var v float64
	for _, e := range est {
		m := mean(e)
		for _, x := range e {
			v += (x - m) * (x - m) / float64((seeds-1)*rows.N)
		}
	}
	if ratio := v / se2; ratio < 0.75 || ratio > 1.3 {
		t.Errorf("variance of the estimates across seeds %.5f, mean squared SE %.5f: ratio %.3f", v, se2, ratio)
	}
}
