package eval

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/kernel"
)

// MeanFieldConfig configures the mean-field inference of a DBM's hidden
// layers given a row.
type MeanFieldConfig struct {
	// Iterations is the most fixed-point sweeps after the bottom-up pass
	// that starts them (≥ 0; 0: the bottom-up pass alone).
	Iterations int
	// Tol stops a row's sweeps once the largest change of any of its
	// means in a sweep is below Tol (0: never; every row runs Iterations
	// sweeps).
	Tol float64
	// Workers is the number of goroutines (≤ 0: GOMAXPROCS). The result
	// does not depend on it.
	Workers int
	// Means keeps every row's means in the result (MeanFieldResult.Means).
	Means bool
}

// MeanFieldResult is the mean-field bound of a DBM on a set of rows.
type MeanFieldResult struct {
	// LogP holds each row's bound Σ_h q(h)(−E(v, h)) + H(q) − log Z.
	LogP []float64
	// Mean is the mean of LogP (in row order, float64).
	Mean float64
	// Sweeps holds the fixed-point sweeps each row took (Iterations, or
	// fewer when it met Tol).
	Sweeps []int
	// Means[l−1] holds μ^l of every row, N×n_l row-major, for l = 1…L
	// (with MeanFieldConfig.Means; else nil): the q the bound is of.
	Means [][]float32
}

// DBMMeanField returns the variational lower bound of each row's
// log-probability under the DBM (Salakhutdinov & Hinton, AISTATS 2009):
// with q(h) = Π_l Π_i Bernoulli(h^l_i; μ^l_i) factorial over the hidden
// layers,
//
//	log p(v) ≥ Σ_h q(h)(−E(v, h)) + H(q) − log Z = log p(v) − KL(q ‖ p(h | v)),
//
// whose first term, E being linear in each layer, is −E(v, μ) (the means
// in the place of the states: Σ_l b^lᵀμ^l + vᵀC⁰μ¹ + Σ_{l≥1} μ^lᵀC^lμ^{l+1}
// and the visible layer's own terms) and H(q) = −Σ μ log μ + (1−μ)
// log(1−μ). The means come from the fixed-point equations
//
//	μ^l = σ(b^l + C^{l−1}ᵀμ^{l−1} + C^l μ^{l+1}), μ^0 = v,
//
// swept from l = 1 up to the top (each layer from the latest values of
// its neighbours), started by a bottom-up pass that doubles the input from
// below for every layer but the top (μ^l = σ(b^l + 2C^{l−1}ᵀμ^{l−1}), the
// top σ(b^L + C^{L−1}ᵀμ^{L−1})), as the DBM's training does; for Gaussian
// visible units the input from v is C⁰ᵀ(v/σ²). Each row stops after
// cfg.Iterations sweeps or the first sweep whose largest change is below
// cfg.Tol.
//
// The bound is a lower bound on log p(v) only with the exact log Z
// (DBMExactLogZ). With an AIS estimate (DBMAIS) it is an estimate whose
// error is that of log Ẑ: log Ẑ is low in expectation, so the bound is
// then high in expectation by as much, and by many nats where AIS misses
// part of the model's mass.
//
// The sweeps run in float32 kernels on fixed chunks of rows, a row's
// arithmetic independent of its chunk; the bound's terms are summed in
// float64. The result does not depend on the number of workers.
func DBMMeanField(ctx context.Context, d *DBM, rows *data.Set, logZ float64, cfg MeanFieldConfig) (*MeanFieldResult, error) {
	if math.IsNaN(logZ) || math.IsInf(logZ, 0) {
		return nil, fmt.Errorf("eval: mean-field bound: log Z = %v is not finite", logZ)
	}
	mf, err := newMeanField(d, rows, cfg)
	if err != nil {
		return nil, err
	}
	n := rows.N
	res := &MeanFieldResult{LogP: make([]float64, n), Sweeps: make([]int, n)}
	if cfg.Means {
		res.Means = make([][]float32, mf.L)
		for l := range res.Means {
			res.Means[l] = make([]float32, n*mf.sizes[l+1])
		}
	}
	err = mf.chunks(ctx, func(sc *mfScratch, lo, hi int) {
		for r := lo; r < hi; r++ {
			res.LogP[r] = mf.bound(sc, r-lo, rows, r) - logZ
			res.Sweeps[r] = sc.sweeps[r-lo]
		}
		for l := range res.Means {
			nl := mf.sizes[l+1]
			copy(res.Means[l][lo*nl:hi*nl], sc.mu[l+1][:(hi-lo)*nl])
		}
	})
	if err != nil {
		return nil, err
	}
	res.Mean = mean(res.LogP)
	return res, nil
}

// meanField is what the sweeps of every chunk of rows read.
type meanField struct {
	cfg   MeanFieldConfig
	rows  *data.Set
	L     int
	sizes []int
	b32   [][]float32 // each layer's bias (layers 1…L)
	b64   [][]float64
	c     [][]float32 // C^l, n_l×n_{l+1}: the input from below
	ct    [][]float32 // C^lᵀ, n_{l+1}×n_l: the input from above (l ≥ 1)
	vis   visible     // the visible layer, with zero hidden biases: hiddenInputs is C⁰ᵀ·(input of the row)
}

// newMeanField checks d, the rows and cfg, and prepares the sweeps.
func newMeanField(d *DBM, rows *data.Set, cfg MeanFieldConfig) (*meanField, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	if cfg.Iterations < 0 {
		return nil, fmt.Errorf("eval: mean-field iterations = %d is negative", cfg.Iterations)
	}
	if !(cfg.Tol >= 0) || math.IsInf(cfg.Tol, 0) {
		return nil, fmt.Errorf("eval: mean-field tolerance %v is not a finite number ≥ 0", cfg.Tol)
	}
	L := len(d.Layers)
	mf := &meanField{cfg: cfg, rows: rows, L: L, sizes: stackSizes(d.Layers), b64: d.biases()}
	v, err := bottom(d.Layers[0], make([]float32, d.Layers[0].H)).units()
	if err != nil {
		return nil, err
	}
	if err := v.checkRows(rows, 0); err != nil {
		return nil, err
	}
	mf.vis = v
	mf.b32 = make([][]float32, L+1)
	mf.c, mf.ct = make([][]float32, L), make([][]float32, L)
	for l := 1; l <= L; l++ {
		mf.b32[l] = narrow(mf.b64[l])
		if l < L {
			mf.c[l], mf.ct[l] = d.Layers[l].C, d.Layers[l].transposed()
		}
	}
	return mf, nil
}

// mfScratch is a worker's scratch for a chunk of rows.
type mfScratch struct {
	rs      rowScratch
	a1      []float32   // chunk×n_1: C⁰ᵀ·(input of each row)
	mu      [][]float32 // the means of layers 1…L, chunk×n_l
	pre, up []float32   // chunk×max n_l
	change  []float32   // each row's largest change in a sweep
	sweeps  []int
	active  []bool
}

func (mf *meanField) newScratch() *mfScratch {
	w := 0
	for _, s := range mf.sizes[1:] {
		w = max(w, s)
	}
	sc := &mfScratch{a1: make([]float32, rowChunk*mf.sizes[1]), mu: make([][]float32, mf.L+1),
		pre: make([]float32, rowChunk*w), up: make([]float32, rowChunk*w),
		change: make([]float32, rowChunk), sweeps: make([]int, rowChunk), active: make([]bool, rowChunk)}
	for l := 1; l <= mf.L; l++ {
		sc.mu[l] = make([]float32, rowChunk*mf.sizes[l])
	}
	return sc
}

// chunks solves the means of every fixed chunk of rows, on the workers,
// and calls done with each chunk's scratch.
func (mf *meanField) chunks(ctx context.Context, done func(sc *mfScratch, lo, hi int)) error {
	n := mf.rows.N
	chunks := (n + rowChunk - 1) / rowChunk
	workers := workerCount(mf.cfg.Workers, chunks)
	sc := make([]*mfScratch, workers)
	for w := range sc {
		sc[w] = mf.newScratch()
	}
	return parallel(ctx, chunks, workers, func(w, c int) error {
		lo, hi := c*rowChunk, min(n, (c+1)*rowChunk)
		mf.solve(sc[w], lo, hi)
		done(sc[w], lo, hi)
		return nil
	})
}

// solve runs the bottom-up pass and the sweeps for rows lo…hi−1.
func (mf *meanField) solve(sc *mfScratch, lo, hi int) {
	nc := hi - lo
	mf.vis.hiddenInputs(sc.a1, mf.rows, lo, hi, &sc.rs)
	for i := 0; i < nc; i++ {
		sc.active[i], sc.sweeps[i] = true, 0
	}
	for l := 1; l <= mf.L; l++ {
		f := float32(2)
		if l == mf.L {
			f = 1
		}
		mf.layer(sc, l, nc, f, false)
	}
	for it := 0; it < mf.cfg.Iterations; it++ {
		clear(sc.change[:nc])
		for l := 1; l <= mf.L; l++ {
			mf.layer(sc, l, nc, 1, true)
		}
		left := false
		for i := 0; i < nc; i++ {
			if !sc.active[i] {
				continue
			}
			sc.sweeps[i]++
			if float64(sc.change[i]) < mf.cfg.Tol {
				sc.active[i] = false
			}
			left = left || sc.active[i]
		}
		if !left {
			return
		}
	}
}

// layer sets μ^l of the chunk's active rows to σ(b^l + f·(input from
// below) + (input from above, when sweep and l is below the top)),
// recording each row's largest change when sweep is set.
func (mf *meanField) layer(sc *mfScratch, l, nc int, f float32, sweep bool) {
	n := mf.sizes[l]
	pre := sc.pre[:nc*n]
	if l == 1 {
		copy(pre, sc.a1[:nc*n])
	} else {
		kernel.Affine(pre, nil, sc.mu[l-1], mf.c[l-1], nc, mf.sizes[l-1], n)
	}
	above := sweep && l < mf.L
	if above {
		kernel.Affine(sc.up, nil, sc.mu[l+1], mf.ct[l], nc, mf.sizes[l+1], n)
	}
	b := mf.b32[l]
	for i := 0; i < nc; i++ {
		p := pre[i*n : (i+1)*n]
		for k := range p {
			p[k] = b[k] + f*p[k]
			if above {
				p[k] += sc.up[i*n+k]
			}
		}
	}
	kernel.Sigmoid(pre, pre)
	mu := sc.mu[l]
	for i := 0; i < nc; i++ {
		if !sc.active[i] {
			continue
		}
		old, nw := mu[i*n:(i+1)*n], pre[i*n:(i+1)*n]
		if sweep {
			ch := sc.change[i]
			for k, v := range nw {
				ch = max(ch, float32(math.Abs(float64(v-old[k]))))
			}
			sc.change[i] = ch
		}
		copy(old, nw)
	}
}

// bound returns −E(v, μ) + H(q) of chunk row i (row r of the rows), in
// float64: the visible layer's own terms (−visibleEnergy), vᵀC⁰μ¹, the
// biases' terms, μ^lᵀC^lμ^{l+1} (C^lμ^{l+1} a float32 product) and the
// Bernoulli entropies.
func (mf *meanField) bound(sc *mfScratch, i int, rows *data.Set, r int) float64 {
	e := -mf.vis.visibleEnergy(rows, r)
	n1 := mf.sizes[1]
	for k, a := range sc.a1[i*n1 : (i+1)*n1] {
		e += float64(a) * float64(sc.mu[1][i*n1+k])
	}
	for l := 1; l <= mf.L; l++ {
		n := mf.sizes[l]
		mu := sc.mu[l][i*n : (i+1)*n]
		for k, m := range mu {
			e += mf.b64[l][k]*float64(m) + bernoulliEntropy(float64(m))
		}
		if l < mf.L {
			up := sc.up[:n]
			kernel.Affine(up, nil, sc.mu[l+1][i*mf.sizes[l+1]:(i+1)*mf.sizes[l+1]], mf.ct[l], 1, mf.sizes[l+1], n)
			for k, m := range mu {
				e += float64(m) * float64(up[k])
			}
		}
	}
	return e
}

// bernoulliEntropy is −p log p − (1−p) log(1−p), 0 at p = 0 and p = 1.
func bernoulliEntropy(p float64) float64 {
	var h float64
	if p > 0 {
		h -= p * math.Log(p)
	}
	if p < 1 {
		h -= (1 - p) * math.Log1p(-p)
	}
	return h
}

// FitDBMBase returns the base model of DBMAIS fitted to the training rows
// (DBMAISConfig.Base): for the visible layer the base of the single-RBM
// AIS (FitBase of the bottom RBM: the data's base rate for binary units),
// for each even hidden layer l the base rate of its mean-field means over
// the rows (DBMMeanField's q, cfg's sweeps), logit((Σ_r μ^l_ri + αN)/(N +
// 2αN)) with α = BasePseudoCount as DataBaseRate smooths; odd layers, which
// DBMAIS sums out, have none (nil).
func FitDBMBase(ctx context.Context, d *DBM, train *data.Set, cfg MeanFieldConfig) ([][]float32, error) {
	mf, err := newMeanField(d, train, cfg)
	if err != nil {
		return nil, err
	}
	n := train.N
	if n == 0 {
		return nil, errors.New("eval: the base model of a DBM needs at least one training row")
	}
	base := make([][]float32, mf.L+1)
	if base[0], err = FitBase(d.Layers[0], train); err != nil {
		return nil, err
	}
	chunks := (n + rowChunk - 1) / rowChunk
	sums := make([][][]float64, chunks) // per chunk, per layer, per unit
	err = mf.chunks(ctx, func(sc *mfScratch, lo, hi int) {
		s := make([][]float64, mf.L+1)
		for l := 2; l <= mf.L; l += 2 {
			nl := mf.sizes[l]
			s[l] = make([]float64, nl)
			for i := 0; i < hi-lo; i++ {
				for k, m := range sc.mu[l][i*nl : (i+1)*nl] {
					s[l][k] += float64(m)
				}
			}
		}
		sums[lo/rowChunk] = s
	})
	if err != nil {
		return nil, err
	}
	alpha := BasePseudoCount * float64(n)
	for l := 2; l <= mf.L; l += 2 {
		tot := make([]float64, mf.sizes[l])
		for _, s := range sums {
			for k, v := range s[l] {
				tot[k] += v
			}
		}
		base[l] = make([]float32, mf.sizes[l])
		for k, t := range tot {
			p := (t + alpha) / (float64(n) + 2*alpha)
			base[l][k] = float32(math.Log(p) - math.Log1p(-p))
		}
	}
	return base, nil
}
