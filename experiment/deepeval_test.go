package experiment

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/engine"
	"github.com/ncg-rbm/ncg/eval"
	"github.com/ncg-rbm/ncg/unit"
)

// smallDeep trains a deep model of kind k on 24 random rows of 6 binary
// units: RBMs of 4 and 3 hidden units, NCG then dense.
func smallDeep(t *testing.T, k engine.StackKind) (*engine.Stack, *data.Set) {
	t.Helper()
	r := rand.New(rand.NewPCG(3, 4))
	set := &data.Set{Name: "random", N: 24, D: 6, X: make([]uint8, 24*6)}
	for i := range set.X {
		set.X[i] = uint8(r.IntN(2))
	}
	d, err := engine.FromSet(set, false)
	if err != nil {
		t.Fatal(err)
	}
	a := engine.DefaultConfig()
	a.Hidden, a.Batch, a.LR, a.LRConn, a.Epochs, a.K, a.LineWidth = 4, 6, 0.1, 0.25, 30, 2, 3
	b := a
	b.Method, b.Hidden = engine.Dense, 3
	j := engine.DefaultJoint()
	j.Epochs, j.Batch, j.LR = 20, 6, 0.05
	tr, err := engine.NewStack(engine.StackConfig{Kind: k, Layers: []engine.Config{a, b}, Seed: 2, Joint: j}, d)
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Train(context.Background(), engine.StackOptions{}); err != nil {
		t.Fatal(err)
	}
	return tr.Model(), set
}

// states calls f with every binary vector of n units.
func states(n int, f func([]float64)) {
	s := make([]float64, n)
	for k := 0; k < 1<<n; k++ {
		for i := range s {
			s[i] = float64(k >> i & 1)
		}
		f(s)
	}
}

func logSumExp(xs []float64) float64 {
	m := math.Inf(-1)
	for _, x := range xs {
		m = math.Max(m, x)
	}
	var s float64
	for _, x := range xs {
		s += math.Exp(x - m)
	}
	return m + math.Log(s)
}

// dot is aᵀb and bilinear aᵀCb for C visible-major (len(a) × len(b)).
func dot(a []float64, b []float32) (s float64) {
	for i, v := range a {
		s += v * float64(b[i])
	}
	return s
}

func bilinear(a []float64, c []float32, b []float64) (s float64) {
	for j, x := range a {
		for i, y := range b {
			s += x * float64(c[j*len(b)+i]) * y
		}
	}
	return s
}

// TestEvaluateStackAgainstBruteForce: a small DBM's and DBN's evaluation
// with the exact log Z has the log Z of the model enumerated state by
// state in float64 (the DBM's every layer; the DBN's top RBM, within
// 1e-5 nats of its float32 inputs), and an NLL
// that bounds the enumerated NLL from above: a DBM's mean-field bound by
// at most 1 nat here, a DBN's equal to the bound's exact expectation
// over the recognition q(h¹ | v), enumerated, within 4.5 standard errors
// of its 10 samples per row (a false alarm in fewer than 1 run in 10⁵).
// AIS's log Ẑ (100 runs of 1,000 intervals, which on models this small
// land within a few thousandths of a nat) is within 0.05 of the exact
// value: the log Z of another model (the bottom RBM's, a DBM's without
// its combined biases) is off by nats.
func TestEvaluateStackAgainstBruteForce(t *testing.T) {
	ctx := context.Background()
	plan := eval.Plan{Likelihood: eval.LikelihoodExact, AISRuns: 100, AISIntervals: 1000, AISSeed: 5, Workers: 2}

	s, set := smallDeep(t, engine.DBM)
	m0, m1 := s.RBMs[0], s.RBMs[1]
	b0, b1, b2 := s.Bias(0), s.Bias(1), s.Bias(2)
	negE := func(v, h1, h2 []float64) float64 {
		return dot(v, b0) + dot(h1, b1) + dot(h2, b2) + bilinear(v, m0.C(), h1) + bilinear(h1, m1.C(), h2)
	}
	var all []float64
	states(6, func(v []float64) {
		states(4, func(h1 []float64) {
			states(3, func(h2 []float64) { all = append(all, negE(v, h1, h2)) })
		})
	})
	logZ := logSumExp(all)
	var nll float64
	for r := 0; r < set.N; r++ {
		v := make([]float64, 6)
		for j, x := range set.Row(r) {
			v[j] = float64(x)
		}
		var terms []float64
		states(4, func(h1 []float64) {
			states(3, func(h2 []float64) { terms = append(terms, negE(v, h1, h2)) })
		})
		nll -= logSumExp(terms) - logZ
	}
	nll /= float64(set.N)
	got, err := EvaluateStack(ctx, s, eval.Sets{Train: set}, plan)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got.LogZ-logZ) > 1e-9*math.Abs(logZ) || got.Likelihood != eval.LikelihoodExact || got.Set != "train" || got.Rows != set.N {
		t.Errorf("DBM: log Z %v (%s), enumerated %v", got.LogZ, got.Likelihood, logZ)
	}
	if got.NLL < nll-1e-9 || got.NLL > nll+1 {
		t.Errorf("DBM: NLL %v, want a bound above the enumerated %v by less than 1 nat", got.NLL, nll)
	}
	plan.Likelihood = eval.LikelihoodAIS
	if ais, err := EvaluateStack(ctx, s, eval.Sets{Train: set}, plan); err != nil || math.Abs(ais.LogZ-logZ) > 0.05 || ais.AIS == nil {
		t.Errorf("DBM: AIS log Ẑ %v (%v), exact %v", ais.LogZ, err, logZ)
	}

	plan.Likelihood = eval.LikelihoodAuto // exact: the top RBM has 4 × 3 units
	s, set = smallDeep(t, engine.DBN)
	m0, m1 = s.RBMs[0], s.RBMs[1]
	var top []float64
	logTop := func(h1 []float64) float64 { // log Σ_{h2} exp(−E_top(h1, h2)), unnormalised
		var t []float64
		states(3, func(h2 []float64) {
			t = append(t, dot(h1, m1.VisibleBias)+dot(h2, m1.HiddenBias)+bilinear(h1, m1.C(), h2))
		})
		return logSumExp(t)
	}
	states(4, func(h1 []float64) { top = append(top, logTop(h1)) })
	logZTop := logSumExp(top)
	sigmoid := func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
	var bound, variance float64
	for r := 0; r < set.N; r++ {
		v := make([]float64, 6)
		for j, x := range set.Row(r) {
			v[j] = float64(x)
		}
		var mean, sq float64
		states(4, func(h1 []float64) {
			logQ, logPV := 0.0, 0.0
			for i := range h1 { // q(h¹ | v) = σ(c + Cᵀv)
				in := float64(m0.HiddenBias[i])
				for j := range v {
					in += v[j] * float64(m0.C()[j*4+i])
				}
				p := sigmoid(in)
				logQ += math.Log(h1[i]*p + (1-h1[i])*(1-p))
			}
			for j := range v { // p(v | h¹) = σ(d + Ch¹)
				in := float64(m0.VisibleBias[j])
				for i := range h1 {
					in += float64(m0.C()[j*4+i]) * h1[i]
				}
				p := sigmoid(in)
				logPV += math.Log(v[j]*p + (1-v[j])*(1-p))
			}
			f := logPV + logTop(h1) - logZTop - logQ
			mean += math.Exp(logQ) * f
			sq += math.Exp(logQ) * f * f
		})
		bound += mean
		variance += (sq - mean*mean) / DBNSamples
	}
	bound /= float64(set.N)
	se := math.Sqrt(variance) / float64(set.N)
	got, err = EvaluateStack(ctx, s, eval.Sets{Train: set}, plan)
	if err != nil {
		t.Fatal(err)
	}
	// The top RBM's exact sum takes its inputs in float32 (eval.ExactLogZ:
	// off by ~1e-4 nats at most for weights of size 1).
	if math.Abs(got.LogZ-logZTop) > 1e-5 || got.Likelihood != eval.LikelihoodExact {
		t.Errorf("DBN: log Z %v (%s), the top RBM's enumerated %v", got.LogZ, got.Likelihood, logZTop)
	}
	if math.Abs(-got.NLL-bound) > 4.5*se {
		t.Errorf("DBN: NLL %v, want minus the bound's expectation %v ± %v", got.NLL, -bound, 4.5*se)
	}
	plan.Likelihood = eval.LikelihoodAIS
	if ais, err := EvaluateStack(ctx, s, eval.Sets{Train: set}, plan); err != nil || math.Abs(ais.LogZ-logZTop) > 0.05 {
		t.Errorf("DBN: AIS log Ẑ %v (%v), exact %v", ais.LogZ, err, logZTop)
	}
	plan.Likelihood = eval.LikelihoodNone
	if none, err := EvaluateStack(ctx, s, eval.Sets{Train: set}, plan); err != nil || !math.IsNaN(none.NLL) || !math.IsNaN(none.LogZ) {
		t.Errorf("-likelihood none measured %+v (%v)", none, err)
	}
}

// TestStackExactUnits: the units the exact log Z of a deep model sums
// over, as the run's checks count them, are those eval enumerates.
func TestStackExactUnits(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for trial := 0; trial < 40; trial++ {
		L := 1 + r.IntN(4)
		sizes := make([]int, L+1)
		for l := range sizes {
			sizes[l] = 1 + r.IntN(9)
		}
		vis := []unit.Type{unit.Binary, unit.Gaussian}[r.IntN(2)]
		d := &eval.DBM{}
		for l := 0; l < L; l++ {
			x, h := sizes[l], sizes[l+1]
			m := &eval.Model{X: x, H: h, C: make([]float32, x*h), HiddenBias: make([]float32, h), VisibleBias: make([]float32, x)}
			if l == 0 && vis == unit.Gaussian {
				m.Visible, m.Sigma = unit.Gaussian, make([]float32, x)
				for j := range m.Sigma {
					m.Sigma[j] = 1
				}
			}
			d.Layers = append(d.Layers, m)
		}
		want, _, err := eval.DBMExactUnits(d)
		if err != nil {
			t.Fatal(err)
		}
		if got := StackExactUnits(engine.DBM, vis, sizes); got != want {
			t.Errorf("DBM of %s visible units, layers %v: %d units, eval enumerates %d", vis.Name(), sizes, got, want)
		}
	}
	if got := StackExactUnits(engine.DBN, unit.Gaussian, []int{9, 30, 7}); got != 7 {
		t.Errorf("DBN's top RBM of 30 × 7 binary units: %d", got)
	}
	if got := StackExactUnits(engine.DBN, unit.Gaussian, []int{3, 30}); got != 30 {
		t.Errorf("DBN of one Gaussian RBM of 3 × 30 units: %d (the hidden layer)", got)
	}
}
