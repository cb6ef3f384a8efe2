package eval

import (
	"context"
	"fmt"
	"math"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/kernel"
)

// DBNBoundConfig configures DBNBound.
type DBNBoundConfig struct {
	// Samples is the number of draws of Q per row (≥ 1).
	Samples int
	// Seed keys the random streams: row r draws from kernel.NewStream(Seed, r).
	Seed uint64
	// Workers is the number of goroutines (≤ 0: GOMAXPROCS). The result
	// does not depend on it.
	Workers int
}

// DBNBoundResult is the estimate of a DBN's variational lower bound on a
// set of rows.
type DBNBoundResult struct {
	// LogP holds each row's estimate: the mean of the integrand over the
	// row's samples.
	LogP []float64
	// RowSE holds each estimate's standard error, the samples' standard
	// deviation (n−1) over √Samples: NaN for one sample, 0 for a DBN of
	// one RBM (no samples: the bound is the RBM's log p(v)).
	RowSE []float64
	// Mean is the mean of LogP, SE its standard error given the rows,
	// √(Σ RowSE²)/N: the Monte Carlo error of the estimate, not the
	// spread of the rows.
	Mean, SE float64
	Samples  int
	Seed     uint64
}

// DBNBound estimates the variational lower bound on each row's
// log-probability under a DBN of Salakhutdinov & Murray (ICML 2008): with
// the recognition chain Q(h¹, …, h^{L−1} | v) = Π_l q(h^{l+1} | h^l),
// q(h^{l+1} | h^l) = σ(c^l + C^lᵀh^l) with RBM l's hidden biases c^l, and
// the DBN's generative model p(v, h¹, …, h^{L−1}) = Π_{l<L−1} p(h^l |
// h^{l+1}) · p_top(h^{L−1}),
//
//	log p(v) ≥ E_Q[log p(v, h¹, …, h^{L−1}) − log Q(h¹, …, h^{L−1} | v)]
//	         = log p(v) − KL(Q ‖ p(h¹, …, h^{L−1} | v)).
//
// p(h^l | h^{l+1}) = σ(d^l + C^l h^{l+1}) takes RBM l's visible (its
// generative) biases d^l, the visible layer by its unit type's
// conditional given h¹ (softmax per group, or N(b + C⁰h¹, σ²): a density);
// the top RBM's marginal of its visible layer is log p_top(y) = −F_top(y)
// − log Z_top, h^L summed out. logZTop is the top RBM's log Z: exact
// (ExactLogZ) or estimated (AIS of Layers[L−1]); with an estimate the
// figure is a bound only as far as log Ẑ is exact (low in expectation, so
// the bound is then high in expectation by as much). A DBN of one RBM has
// no hidden layer to sample: its bound is the RBM's log p(v) = −F(v) −
// log Z.
//
// Each row's expectation is estimated by cfg.Samples draws of the chain
// upwards, h¹ ~ q(· | v), h² ~ q(· | h¹), …, h^{L−1}, from the row's own
// stream, and the integrand is computed in float64 from float32 inputs.
// Rows are cut into fixed chunks, so the result does not depend on the
// number of workers; when ctx is done it stops early with an error
// wrapping ctx.Err().
func DBNBound(ctx context.Context, n *DBN, rows *data.Set, logZTop float64, cfg DBNBoundConfig) (*DBNBoundResult, error) {
	if err := n.Validate(); err != nil {
		return nil, err
	}
	if math.IsNaN(logZTop) || math.IsInf(logZTop, 0) {
		return nil, fmt.Errorf("eval: DBN bound: log Z of the top RBM = %v is not finite", logZTop)
	}
	if cfg.Samples < 1 {
		return nil, fmt.Errorf("eval: DBN bound: %d samples; need at least 1", cfg.Samples)
	}
	b, err := newDBNBound(n, rows)
	if err != nil {
		return nil, err
	}
	N := rows.N
	res := &DBNBoundResult{LogP: make([]float64, N), RowSE: make([]float64, N), Samples: cfg.Samples, Seed: cfg.Seed}
	chunks := (N + rowChunk - 1) / rowChunk
	workers := workerCount(cfg.Workers, chunks)
	sc := make([]*dbnScratch, workers)
	for w := range sc {
		sc[w] = b.newScratch()
	}
	err = parallel(ctx, chunks, workers, func(w, c int) error {
		s := sc[w]
		lo, hi := c*rowChunk, min(N, (c+1)*rowChunk)
		n1 := b.sizes[1]
		b.vis.hiddenInputs(s.a1, rows, lo, hi, &s.rs)
		for r := lo; r < hi; r++ {
			a1 := s.a1[(r-lo)*n1 : (r-lo+1)*n1]
			lv := -b.vis.visibleEnergy(rows, r)
			if b.L == 1 {
				for _, a := range a1 {
					lv += softplus64(float64(a))
				}
				res.LogP[r] = lv - logZTop
				continue
			}
			st := kernel.NewStream(cfg.Seed, uint64(r))
			var sum, ss float64
			for k := 0; k < cfg.Samples; k++ {
				v := b.sample(s, a1, lv, &st) - logZTop
				sum += v
				ss += v * v
			}
			S := float64(cfg.Samples)
			res.LogP[r] = sum / S
			res.RowSE[r] = math.NaN()
			if cfg.Samples > 1 {
				res.RowSE[r] = math.Sqrt(math.Max(ss-sum*sum/S, 0)/(S-1)) / math.Sqrt(S)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	res.Mean = mean(res.LogP)
	var v float64
	for _, se := range res.RowSE {
		v += se * se
	}
	res.SE = math.Sqrt(v) / float64(N)
	return res, nil
}

// dbnBound is what every row's samples read.
type dbnBound struct {
	n      *DBN
	L      int
	sizes  []int
	vis    visible   // the bottom RBM's units: hiddenInputs is q(h¹ | v)'s input
	vrows  []float64 // the visible layer's G given h¹ (layerRows)
	vconst float64
	ct     [][]float32 // C^lᵀ (l = 1…L−2): the generative input of layer l from h^{l+1}
}

func newDBNBound(n *DBN, rows *data.Set) (*dbnBound, error) {
	L := len(n.Layers)
	vis, err := n.Layers[0].units()
	if err != nil {
		return nil, err
	}
	if err := vis.checkRows(rows, 0); err != nil {
		return nil, err
	}
	b := &dbnBound{n: n, L: L, sizes: stackSizes(n.Layers), vis: vis, ct: make([][]float32, L)}
	if L > 1 {
		b.vrows, b.vconst = vis.layerRows()
	}
	for l := 1; l+1 < L; l++ {
		b.ct[l] = n.Layers[l].transposed()
	}
	return b, nil
}

// dbnScratch is a worker's scratch.
type dbnScratch struct {
	rs    rowScratch
	a1    []float32   // rowChunk×n_1: q(h¹ | v)'s inputs
	h     [][]float32 // the sampled layers 1…L−1
	a, pr []float32   // an input and its probabilities (max n)
	u     []float64   // the visible layer's G input (X)
	idx   []int32     // active units (max n)
}

func (b *dbnBound) newScratch() *dbnScratch {
	w := 0
	for _, n := range b.sizes {
		w = max(w, n)
	}
	s := &dbnScratch{a1: make([]float32, rowChunk*b.sizes[1]), h: make([][]float32, b.L),
		a: make([]float32, w), pr: make([]float32, w), u: make([]float64, b.sizes[0]), idx: make([]int32, w)}
	for l := 1; l < b.L; l++ {
		s.h[l] = make([]float32, b.sizes[l])
	}
	return s
}

// sample draws h¹ … h^{L−1} from Q given the row's input a1 to h¹ and
// returns log p(v, h¹, …, h^{L−1}) + log Z_top − log Q(h¹, … | v); lv is
// the row's −visibleEnergy.
func (b *dbnBound) sample(s *dbnScratch, a1 []float32, lv float64, st *kernel.Stream) float64 {
	L, layers := b.L, b.n.Layers
	// h¹ ~ q(· | v); log p(v | h¹) = −visibleEnergy + h¹ᵀC⁰ᵀ(input of v) − G(h¹).
	h1 := s.h[1]
	kernel.SigmoidBernoulli(s.pr[:len(a1)], h1, a1, st)
	lq := logBernoulli(h1, a1)
	act := s.idx[:kernel.Indices(s.idx, h1)]
	lp := lv
	for _, j := range act {
		lp += float64(a1[j]) - float64(layers[0].HiddenBias[j])
	}
	freshRows64(s.u, b.vrows, act)
	lp -= b.vis.layerLogZ(s.u) + b.vconst
	for l := 1; l+1 < L; l++ {
		// h^{l+1} ~ q(· | h^l), then log p(h^l | h^{l+1}).
		m, nu, nl := layers[l], b.sizes[l+1], b.sizes[l]
		a := s.a[:nu]
		copy(a, m.HiddenBias)
		kernel.SumRows(a, m.C, nu, s.idx[:kernel.Indices(s.idx, s.h[l])], nu)
		kernel.SigmoidBernoulli(s.pr[:nu], s.h[l+1], a, st)
		lq += logBernoulli(s.h[l+1], a)
		g := s.a[:nl]
		copy(g, m.VisibleBias)
		kernel.SumRows(g, b.ct[l], nl, s.idx[:kernel.Indices(s.idx, s.h[l+1])], nl)
		lp += logBernoulli(s.h[l], g)
	}
	// log p_top(h^{L−1}) + log Z_top = −F_top(h^{L−1}).
	top, y := layers[L-1], s.h[L-1]
	a := s.a[:top.H]
	copy(a, top.HiddenBias)
	act = s.idx[:kernel.Indices(s.idx, y)]
	kernel.SumRows(a, top.C, top.H, act, top.H)
	for _, j := range act {
		lp += float64(top.VisibleBias[j])
	}
	for _, v := range a {
		lp += softplus64(float64(v))
	}
	return lp - lq
}

// logBernoulli returns log Π_i σ(a_i)^{s_i}(1 − σ(a_i))^{1−s_i} =
// Σ_i s_i·a_i − softplus(a_i) for binary states s, in float64.
func logBernoulli(s, a []float32) float64 {
	var t float64
	for i, x := range a {
		t += float64(s[i])*float64(x) - softplus64(float64(x))
	}
	return t
}
