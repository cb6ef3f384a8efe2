package eval

import (
	"context"
	"fmt"
	"math"

	"github.com/ncg-rbm/ncg/kernel"
)

// DBMAISConfig configures DBMAIS. The zero value runs DefaultRuns runs
// over DefaultSchedule from the base model of zero biases.
type DBMAISConfig struct {
	// Runs is the number of independent AIS runs (≤ 0: DefaultRuns).
	Runs int
	// Betas is the schedule of inverse temperatures, from 0 to 1,
	// non-decreasing (nil: DefaultSchedule).
	Betas []float64
	// Seed keys the random streams: run r draws from kernel.NewStream(Seed, r).
	Seed uint64
	// Workers is the number of goroutines (≤ 0: GOMAXPROCS). The result
	// does not depend on it.
	Workers int
	// Base holds the base model's biases, one entry per layer (nil: every
	// entry nil), usually FitDBMBase of the training rows. Base[0] is the
	// visible layer's, as AISConfig.BaseBias is for the bottom RBM (nil:
	// its type's default of zeros); Base[l] for an even l ≥ 2 the biases
	// of layer l's independent units (nil: zeros). The odd layers are
	// summed out and have none: their entries must be nil.
	Base [][]float32
}

// DBMAIS estimates a DBM's log Z by annealed importance sampling on the
// model with its odd layers summed out (Salakhutdinov & Hinton, AISTATS
// 2009, who sum h¹ out of a two-layer DBM and anneal {v, h²}). Given the
// even layers, each odd layer's units are independent, so the even
// layers' marginal is known up to Z in closed form:
//
//	log f(even) = Σ_{l even} b^lᵀh^l + Σ_{l odd} Σ_i softplus(a^l_i),
//	a^l = b^l + C^{l−1}ᵀh^{l−1} + C^l h^{l+1},
//
// with the visible layer's own terms for Gaussian or categorical units.
// The base model p_A has independent units: the even layers' with the
// biases cfg.Base (the visible layer's base as AIS's of the bottom RBM),
// the odd layers' free (probability ½), so log Z_A = the visible layer's
// log partition function + Σ_{even l ≥ 2} Σ_i softplus(b_A^l_i) +
// Σ_{odd l} n_l·log 2. The intermediate distributions are
// π_β ∝ exp(−(1−β)E_A − βE), whose even marginal is
//
//	log f_β = (1−β)·(−E_A(even)) + β·Σ_{l even} b^lᵀh^l + Σ_{l odd} Σ_i softplus(β·a^l_i).
//
// Each run draws the even layers from p_A, then for every β_k adds log
// f_{β_k} − log f_{β_{k−1}} at its state to its log weight and, below the
// last β, makes a Gibbs sweep of π_{β_k}: the odd layers given the even
// (h^l ~ σ(β_k a^l)), then the even given the odd (the visible layer
// from its conditional at β_k as in AIS of the bottom RBM, each even
// hidden layer from σ((1−β_k)b_A^l + β_k a^l)). log Ẑ = log Z_A +
// log mean(w), an unbiased Ẑ: log Ẑ is low in expectation, and by many
// nats when the annealing misses part of the mass.
//
// The visible layer and layer 1 reuse AIS's per-type code and its
// lockstep products (the bias of layer 1 in float32); the layers above
// are row sums of the rows of C^l or C^lᵀ named by the binary states.
// Runs are independent, each with its own stream, advanced in blocks
// whose arithmetic is per run, so the result is bit-identical for any
// number of workers. When ctx is done it stops early (every run looks
// every stopEvery intervals) with an error wrapping ctx.Err().
func DBMAIS(ctx context.Context, d *DBM, cfg DBMAISConfig) (*AISResult, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	r, logZA, err := newDBMRunner(d, cfg)
	if err != nil {
		return nil, err
	}
	r.done = ctx.Done()
	runs := cfg.Runs
	if runs <= 0 {
		runs = DefaultRuns
	}
	logw, err := runInBlocks(ctx, runs, cfg.Workers, r.newBlock, r.block, r.stopErr)
	if err != nil {
		return nil, err
	}
	return aisResult(logw, logZA, cfg.Seed, len(r.beta)-1), nil
}

// dbmRunner holds what all runs of DBMAIS share (read-only).
type dbmRunner struct {
	*aisRunner // the visible layer, C⁰ and layer 1's bias; the schedule and streams
	L          int
	sizes      []int
	stride     []int       // the row stride of the products into layer l
	down, up   [][]float32 // rows of C^{l−1} (into l ≥ 2 from below), of C^lᵀ (into l < L from above), padded
	bias       [][]float32 // the bias of layer l's input from below (l ≥ 2): b^l (odd), b^l − b_A^l (even)
	bA         [][]float32 // even l ≥ 2: the base biases
	bb         [][]float64 // even l ≥ 2: b^l − b_A^l
}

// newDBMRunner checks cfg and prepares the runs; it returns log Z_A.
func newDBMRunner(d *DBM, cfg DBMAISConfig) (*dbmRunner, float64, error) {
	L := len(d.Layers)
	sizes, b := stackSizes(d.Layers), d.biases()
	if cfg.Base != nil && len(cfg.Base) != L+1 {
		return nil, 0, fmt.Errorf("eval: DBM AIS base has %d layers, want %d (one per layer, the odd ones nil)", len(cfg.Base), L+1)
	}
	base := func(l int) []float32 {
		if cfg.Base == nil {
			return nil
		}
		return cfg.Base[l]
	}
	m0 := bottom(d.Layers[0], narrow(b[1]))
	u, err := m0.units()
	if err != nil {
		return nil, 0, err
	}
	ar, logZA, err := newAISRunner(m0, u, cfg.Betas, base(0), cfg.Seed)
	if err != nil {
		return nil, 0, err
	}
	r := &dbmRunner{aisRunner: ar, L: L, sizes: sizes, stride: make([]int, L+1),
		down: make([][]float32, L+1), up: make([][]float32, L+1), bias: make([][]float32, L+1),
		bA: make([][]float32, L+1), bb: make([][]float64, L+1)}
	for l := 1; l <= L; l++ {
		n := sizes[l]
		if l%2 == 1 {
			if l > 1 {
				logZA += float64(n) * math.Ln2
			}
			if base(l) != nil {
				return nil, 0, fmt.Errorf("eval: DBM AIS base of layer %d: the odd layers are summed out and have no base", l)
			}
			r.bias[l] = narrow(b[l])
		} else {
			bA := base(l)
			if bA == nil {
				bA = make([]float32, n)
			}
			if len(bA) != n {
				return nil, 0, fmt.Errorf("eval: DBM AIS base of layer %d has %d biases, want %d", l, len(bA), n)
			}
			r.bA[l], r.bb[l], r.bias[l] = bA, make([]float64, n), make([]float32, n)
			for i, v := range bA {
				if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
					return nil, 0, fmt.Errorf("eval: DBM AIS base bias %d of layer %d = %v is not finite", i, l, v)
				}
				logZA += softplus64(float64(v))
				r.bb[l][i] = b[l][i] - float64(v)
				r.bias[l][i] = float32(r.bb[l][i])
			}
		}
		// Strides other than the row length make kernel.AffineBinaryStride
		// sum rows for every run alike, so a run's sums do not depend on
		// the ones of its block.
		r.stride[l] = kernel.PadStride(n)
		if r.stride[l] == n {
			r.stride[l] = kernel.PadStride(n + 1)
		}
		if l >= 2 {
			r.down[l] = padRows(d.Layers[l-1].C, sizes[l-1], n, r.stride[l])
		}
		if l < L {
			r.up[l] = padRows(d.Layers[l].transposed(), sizes[l+1], n, r.stride[l])
		}
	}
	return r, logZA, nil
}

// dbmBlock is a worker's scratch for a block of runs: the chain block of
// the visible layer and layer 1, and the layers above.
type dbmBlock struct {
	*chainBlock
	hs           [][]float32 // size×n_l: the states of layers l ≥ 2
	below, above [][]float32 // size×n_l: the inputs from below (with the bias) and from above
	idx, cnt     []int32
	// One run's scratch of a layer (max n; wsp 2·max n): softplusStep's,
	// the pre-activation and the input.
	ws1, wprob, wsp, wpre, wv []float32
}

func (r *dbmRunner) newBlock(size int) *dbmBlock {
	w := 0
	for _, n := range r.sizes {
		w = max(w, n)
	}
	b := &dbmBlock{chainBlock: r.aisRunner.newBlock(size),
		hs: make([][]float32, r.L+1), below: make([][]float32, r.L+1), above: make([][]float32, r.L+1),
		idx: make([]int32, size*w), cnt: make([]int32, size),
		ws1: make([]float32, w), wprob: make([]float32, w), wsp: make([]float32, 2*w), wpre: make([]float32, w), wv: make([]float32, w)}
	for l := 1; l <= r.L; l++ {
		n := size * r.sizes[l]
		if l >= 2 {
			b.hs[l], b.below[l] = make([]float32, n), make([]float32, n)
		}
		b.above[l] = make([]float32, n)
	}
	return b
}

// state returns the states of layer l of the block's runs.
func (b *dbmBlock) state(l int) []float32 {
	switch l {
	case 0:
		return b.x
	case 1:
		return b.h
	}
	return b.hs[l]
}

// inputs computes, for the block's first n runs, the inputs of the layers
// l ≥ 1 of the given parity: from below (l ≥ 2, with the bias) and from
// above (l < L).
func (r *dbmRunner) inputs(b *dbmBlock, n, parity int) {
	for l := 2 - parity; l <= r.L; l += 2 {
		nl := r.sizes[l]
		if l >= 2 {
			nb := r.sizes[l-1]
			kernel.AffineBinaryStride(b.below[l], r.bias[l], b.state(l - 1)[:n*nb], r.down[l], r.stride[l], n, nb, nl, b.idx, b.cnt)
		}
		if l < r.L {
			na := r.sizes[l+1]
			kernel.AffineBinaryStride(b.above[l], nil, b.state(l + 1)[:n*na], r.up[l], r.stride[l], n, na, nl, b.idx, b.cnt)
		}
	}
}

// input sets b.wv to run i's input of layer l, less the base bias for an
// even layer: (bias + below) + above, layer 1's from below being the
// chain block's b + C⁰ᵀ·(input of x).
func (r *dbmRunner) input(b *dbmBlock, i, l int) []float32 {
	nl := r.sizes[l]
	v := b.wv[:nl]
	if l == 1 {
		copy(v, b.a[i*nl:(i+1)*nl])
	} else {
		copy(v, b.below[l][i*nl:(i+1)*nl])
	}
	if l < r.L {
		kernel.Axpy(v, 1, b.above[l][i*nl:(i+1)*nl])
	}
	return v
}

// block performs runs first … first+len(logw)−1 in lockstep and writes
// their log weights to logw.
func (r *dbmRunner) block(b *dbmBlock, first int, logw []float64) {
	u, n := r.u, len(logw)
	cb := b.chainBlock
	for i := 0; i < n; i++ {
		b.st[i] = kernel.NewStream(r.seed, r.key+uint64(first+i))
		u.start(cb, i)
		for l := 2; l <= r.L; l += 2 {
			nl := r.sizes[l]
			kernel.SigmoidBernoulli(b.wprob[:nl], b.hs[l][i*nl:(i+1)*nl], r.bA[l], &b.st[i])
		}
		logw[i] = 0
	}
	b.vp.reset()
	if b.hp != nil {
		b.hp.reset()
	}
	K := len(r.beta) - 1
	for k := 1; k <= K; k++ {
		if k%stopEvery == 0 && r.stopped() {
			return
		}
		bk, bp := r.beta[k], r.beta[k-1]
		db := float64(bk) - float64(bp)
		// The weight at the even state, and the odd layers drawn at β_k.
		u.hiddenChains(cb, n)
		r.inputs(b, n, 1)
		for i := 0; i < n; i++ {
			var w float64
			for l := 1; l <= r.L; l += 2 {
				nl := r.sizes[l]
				dsp := softplusStep(bk, bp, k < K, r.input(b, i, l), b.state(l)[i*nl:(i+1)*nl], &b.st[i], b.ws1, b.wprob, b.wsp)
				if l == 1 {
					w += u.increment(cb, i, db, dsp)
				} else {
					w += dsp
				}
			}
			for l := 2; l <= r.L; l += 2 {
				nl := r.sizes[l]
				var hb float64
				for j, s := range b.hs[l][i*nl : (i+1)*nl] {
					if s != 0 {
						hb += r.bb[l][j]
					}
				}
				w += db * hb
			}
			logw[i] += w
		}
		if k == K {
			break
		}
		// The even layers given the odd at β_k.
		b.vp.update(b.v, r.vbias, r.ct, r.xs, n, b.h)
		for i := 0; i < n; i++ {
			u.draw(cb, i, bk)
		}
		r.inputs(b, n, 0)
		for l := 2; l <= r.L; l += 2 {
			nl := r.sizes[l]
			for i := 0; i < n; i++ {
				pre := b.wpre[:nl]
				copy(pre, r.bA[l])
				kernel.Axpy(pre, bk, r.input(b, i, l))
				kernel.SigmoidBernoulli(b.wprob[:nl], b.hs[l][i*nl:(i+1)*nl], pre, &b.st[i])
			}
		}
	}
}
