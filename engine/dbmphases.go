package engine

// The phases of a DBM's minibatch that run one layer's tiles or one
// half-sweep's chains: the mean field's (dbmfield.go) and the chains'
// Gibbs sweeps (dbmchain.go). The two read the same packed C and write
// disjoint memory (the rows' means, the chains' states), so the pool runs
// the chains' phases inside the mean field's, phase i of the one beside
// phase i of the other: the chains' tasks fill the time a worker would
// otherwise wait at the end of a mean-field phase, and the sweep costs no
// barriers of its own. Neither depends on which worker runs a task or
// what runs beside it, so the result is the same bits as one after the
// other.

// dbmPhaseKind is what a dbmPhase runs.
type dbmPhaseKind uint8

const (
	phaseField      dbmPhaseKind = iota // a layer's mean field: tileTask
	phaseRecon                          // the visible units' reconstruction: reconTask
	phaseChainList                      // a half-sweep's lists of ones: listTask
	phaseChainTiles                     // a half-sweep's inputs: chainTileTask
	phaseChainDraw                      // a half-sweep's draws: chainTask
	phaseBits                           // the chains' hidden states into bits: packBits
)

// dbmPhase is one phase of the mean field or of the chains' sweeps.
type dbmPhase struct {
	kind   dbmPhaseKind
	layer  int     // phaseField: the layer
	factor float32 // phaseField: the factor of the input from below
	above  bool    // phaseField: with the input from above
	parity int     // chain phases: the parity of the layers drawn
}

// fieldPhases are the mean field's phases: the bottom-up pass (doubled
// below the top), sweeps fixed-point sweeps, and the reconstruction.
func fieldPhases(L, sweeps int) []dbmPhase {
	var ps []dbmPhase
	for l := 1; l <= L; l++ {
		f := float32(2)
		if l == L {
			f = 1
		}
		ps = append(ps, dbmPhase{kind: phaseField, layer: l, factor: f})
	}
	for it := 0; it < sweeps; it++ {
		for l := 1; l <= L; l++ {
			ps = append(ps, dbmPhase{kind: phaseField, layer: l, factor: 1, above: true})
		}
	}
	return append(ps, dbmPhase{kind: phaseRecon})
}

// chainPhases are the phases of sweeps Gibbs sweeps: the odd layers drawn
// given the even ones, then the even given the odd.
func chainPhases(sweeps int) []dbmPhase {
	var ps []dbmPhase
	for s := 0; s < sweeps; s++ {
		for _, p := range [2]int{1, 0} {
			ps = append(ps, dbmPhase{kind: phaseChainList, parity: p}, dbmPhase{kind: phaseChainTiles, parity: p},
				dbmPhase{kind: phaseChainDraw, parity: p})
		}
	}
	return ps
}

// minibatchChains are the chain phases of a minibatch: sweeps Gibbs
// sweeps, then the packing of the hidden states into bits for the
// gradient (with two or more hidden layers).
func minibatchChains(sweeps int, bits bool) []dbmPhase {
	ps := chainPhases(sweeps)
	if bits {
		ps = append(ps, dbmPhase{kind: phaseBits})
	}
	return ps
}

// begin readies phase p (the serial work before its tasks) and returns
// its tasks and their function.
func (j *dbmJoint) begin(p dbmPhase) (int, func(int)) {
	switch p.kind {
	case phaseField:
		j.mfLayer, j.mfFactor, j.mfAbove = p.layer, p.factor, p.above
		return mfParts * (j.tileOff[p.layer+1] - j.tileOff[p.layer]), j.tileFn
	case phaseRecon:
		return mfParts * len(j.visTiles), j.reconFn
	case phaseChainList:
		j.chParity = p.parity
		return (j.cfg.chains() + blockSize - 1) / blockSize, j.listFn
	case phaseChainTiles:
		j.chParity = p.parity
		for l := 1 - p.parity; l < len(j.n); l += 2 {
			if o := j.chOnes[l]; o != nil {
				o.Tally()
			}
		}
		return len(j.chTiles[p.parity]), j.chainTileFn
	case phaseChainDraw:
		j.chParity = p.parity
		return (j.cfg.chains() + blockSize - 1) / blockSize, j.chainFn
	default:
		return len(j.bitTasks), j.bitsFn
	}
}

// runPhases runs the phases of a and b, phase i of a in one pool phase
// with phase i of b (either list may be the shorter or empty).
func (j *dbmJoint) runPhases(a, b []dbmPhase) {
	for i := 0; i < max(len(a), len(b)); i++ {
		switch {
		case i >= len(b):
			n, fn := j.begin(a[i])
			j.pool.run(n, fn, nil)
		case i >= len(a):
			n, fn := j.begin(b[i])
			j.pool.run(n, fn, nil)
		default:
			na, fa := j.begin(a[i])
			nb, fb := j.begin(b[i])
			j.mixA, j.mixB = fa, fb
			// Larger tasks first in each worker's share: the chains' tiles
			// before the mean field's, the mean field's before the
			// chains' other tasks.
			j.mix = mixOrder(j.mix[:0], na, nb, j.pool.workers, b[i].kind == phaseChainTiles)
			j.pool.run(na+nb, j.mixFn, nil)
		}
	}
}

// mixOrder appends to order the tasks of a pool phase of na tasks of one
// kind (i ≥ 0 for task i) and nb of another (−1 − i for task i), in the
// shares the pool hands its workers: each worker's share of the one kind,
// then its share of the other (the second kind first if bFirst). Every
// worker has both kinds, and the kind last, which the workers take from
// each other's ends once their own share is done, should be the smaller
// tasks, to even out the phase's end.
func mixOrder(order []int32, na, nb, workers int, bFirst bool) []int32 {
	for w := 0; w < workers; w++ {
		for pass := 0; pass < 2; pass++ {
			if (pass == 0) != bFirst {
				for i := na * w / workers; i < na*(w+1)/workers; i++ {
					order = append(order, int32(i))
				}
			} else {
				for i := nb * w / workers; i < nb*(w+1)/workers; i++ {
					order = append(order, int32(-1-i))
				}
			}
		}
	}
	return order
}

// mixTask runs task i of a mixed phase (mixOrder).
func (j *dbmJoint) mixTask(i int) {
	if t := j.mix[i]; t >= 0 {
		j.mixA(int(t))
	} else {
		j.mixB(int(-1 - t))
	}
}
