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
//
// Every unit type runs in lockstep: binary and categorical states keep
// both products by blockProduct; Gaussian states, real-valued, get their
// hidden inputs by one dense product per block (kernel.Affine, row by row).

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

// runBlock performs runs first … first+len(logw)−1 in lockstep and writes
// their log weights to logw: interval by interval, the hidden inputs of all
// runs (hiddenChains), each run's weight increment and hidden draw, then
// the visible products of all runs (blockProduct) and each run's visible
// draw.
func (r *aisRunner) runBlock(b *chainBlock, first int, logw []float64) {
	m, u := r.m, r.u
	H, n := m.H, len(logw)
	for i := 0; i < n; i++ {
		b.st[i] = kernel.NewStream(r.seed, r.key+uint64(first+i))
		u.start(b, i) // x ~ p_A
		logw[i] = 0
	}
	b.vp.reset()
	if b.hp != nil {
		b.hp.reset()
	}
	K := len(r.beta) - 1
	for k := 1; k <= K; k++ {
		if k%stopEvery == 0 {
			r.advance(n * stopEvery)
			if r.stopped() {
				return
			}
		}
		u.hiddenChains(b, n)
		db := float64(r.beta[k]) - float64(r.beta[k-1])
		for i := 0; i < n; i++ {
			dsp := r.hiddenStep(k, b.a[i*H:(i+1)*H], b.h[i*H:(i+1)*H], &b.st[i], b.s1, b.prob, b.sp)
			logw[i] += u.increment(b, i, db, dsp)
		}
		if k == K {
			r.advance(n * (K % stopEvery))
			break
		}
		b.vp.update(b.v, r.vbias, r.ct, r.xs, n, b.h)
		for i := 0; i < n; i++ {
			u.draw(b, i, r.beta[k])
		}
	}
}
