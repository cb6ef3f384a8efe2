package eval

import "github.com/ncg-rbm/ncg/kernel"

// AIS runs in lockstep.
//
// A run's products b + Cx and (d − d_A) + Cᵀh add, at every interval, about
// a hundred rows of C or Cᵀ (the units that flipped, or all active units on
// a refresh). One run at a time, every such row comes from memory: C and Cᵀ
// take 3.3 MB together, more than L2. A block of runs advanced in lockstep
// sums the rows of all its runs in one kernel.FlipRowsBatch call per
// direction (the rows switched on and those switched off in one pass over
// the matrix), whose blocked schedule reads each tile of a row once for
// every run of the block that needs it. Each run's arithmetic is unchanged
// (its rows are added in increasing order into its own vector, as binProduct
// does), so the log weights are bit-identical to those of one run at a
// time with binProduct (the reference in ais_test.go,
// TestAISLockstepMatchesRuns).

// maxBlockRuns bounds the runs of one block: the blocked row sums take at
// most 64 chains a pass.
const maxBlockRuns = 64

// blockProduct is binProduct for the n runs of a block: out (n×nout, run i
// at out[i*nout:]) = bias + Σ_{j active in run i} m[j], kept up to date
// incrementally with the same rules (and hence the same float32 results).
type blockProduct struct {
	nin, nout int
	old       []float32 // n×nin: the states out was computed for
	act       []int32   // n×nin: active units of each run
	add, off  []int32   // n×nin: rows to add (switched on, or all active) and to subtract
	ones      []int     // n: active units of each run
	nadd      []int32   // n: entries of add per run
	noff      []int32   // n: entries of off per run
	valid     []bool
	since     []int
	tmp       []float32 // n×nout: FlipRowsBatch's sums of the rows switched off
}

func newBlockProduct(n, nin, nout int) *blockProduct {
	return &blockProduct{
		nin: nin, nout: nout,
		old: make([]float32, n*nin),
		act: make([]int32, n*nin), add: make([]int32, n*nin), off: make([]int32, n*nin),
		ones: make([]int, n), nadd: make([]int32, n), noff: make([]int32, n),
		valid: make([]bool, n), since: make([]int, n),
		tmp: make([]float32, n*nout),
	}
}

func (p *blockProduct) reset() { clear(p.valid) }

// update brings out up to date for the states s (n×nin) of the block's
// first n runs; p.act and p.ones then hold each run's active units.
func (p *blockProduct) update(out, bias, m []float32, ldm, n int, s []float32) {
	nin, nout := p.nin, p.nout
	for i := 0; i < n; i++ {
		lo, hi := i*nin, (i+1)*nin
		ones, non, noff := kernel.Changes(p.act[lo:hi], p.add[lo:hi], p.off[lo:hi], p.old[lo:hi], s[lo:hi])
		p.ones[i] = ones
		if incrementalPays(p.valid[i], p.since[i], ones, non, noff) {
			// binProduct's FlipRows: add the rows switched on, subtract the
			// sum of those switched off.
			p.nadd[i], p.noff[i] = int32(non), int32(noff)
			p.since[i]++
			continue
		}
		// A fresh sum: bias plus every active row.
		copy(out[i*nout:(i+1)*nout], bias[:nout])
		copy(p.add[lo:lo+ones], p.act[lo:lo+ones])
		p.nadd[i], p.noff[i] = int32(ones), 0
		p.since[i], p.valid[i] = 0, true
	}
	kernel.FlipRowsBatch(out, p.tmp, m, ldm, n, nin, nout, p.add, p.nadd, p.off, p.noff)
}

// aisBlock is a worker's scratch for a block of up to maxBlockRuns runs.
type aisBlock struct {
	x, h   []float32 // runs×X, runs×H binary states
	a      []float32 // runs×H: b + Cx
	v      []float32 // runs×X: (d − d_A) + Cᵀh
	st     []kernel.Stream
	hp, vp *blockProduct
	s1     []float32 // β_k·a (H)
	sp     []float32 // scratch for softplusDiff (2H)
	pre    []float32 // visible pre-activation (X)
	prob   []float32 // probabilities (max(H, X))
}

func newAISBlock(runs, H, X int) *aisBlock {
	return &aisBlock{
		x: make([]float32, runs*X), h: make([]float32, runs*H),
		a: make([]float32, runs*H), v: make([]float32, runs*X),
		st: make([]kernel.Stream, runs),
		hp: newBlockProduct(runs, X, H), vp: newBlockProduct(runs, H, X),
		s1: make([]float32, H), sp: make([]float32, 2*H),
		pre: make([]float32, X), prob: make([]float32, max(H, X)),
	}
}

// runBlock performs runs first … first+len(logw)−1 in lockstep and writes
// their log weights to logw: interval by interval, each direction's
// products of all runs in one batch, then each run's hiddenStep or
// visibleStep.
func (r *aisRunner) runBlock(b *aisBlock, first int, logw []float64) {
	m := r.m
	H, X, n := m.H, m.X, len(logw)
	for i := 0; i < n; i++ {
		b.st[i] = kernel.NewStream(r.seed, uint64(first+i))
		// x ~ p_A.
		kernel.SigmoidBernoulli(b.prob[:X], b.x[i*X:(i+1)*X], r.dA, &b.st[i])
		logw[i] = 0
	}
	b.hp.reset()
	b.vp.reset()
	K := len(r.beta) - 1
	for k := 1; k <= K; k++ {
		if k%stopEvery == 0 {
			r.advance(n * stopEvery)
			if r.stopped() {
				return
			}
		}
		b.hp.update(b.a, m.HiddenBias, r.c, r.hs, n, b.x)
		for i := 0; i < n; i++ {
			act := b.hp.act[i*X : i*X+b.hp.ones[i]]
			logw[i] += r.hiddenStep(k, b.a[i*H:(i+1)*H], act, b.h[i*H:(i+1)*H], &b.st[i], b.s1, b.prob, b.sp)
		}
		if k == K {
			r.advance(n * (K % stopEvery))
			break
		}
		b.vp.update(b.v, r.dd32, r.ct, r.xs, n, b.h)
		for i := 0; i < n; i++ {
			r.visibleStep(k, b.v[i*X:(i+1)*X], b.x[i*X:(i+1)*X], &b.st[i], b.pre, b.prob)
		}
	}
}
