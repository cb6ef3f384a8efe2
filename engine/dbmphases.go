package engine

// The phases of a DBM's minibatch that run one layer's tiles or one
// half-sweep's chains: the mean field's (dbmfield.go) and the chains'
// Gibbs sweeps (dbmchain.go). The two read the same packed C and write
// disjoint memory (the rows' means, the chains' states), so a minibatch
// runs the chains' phases inside the mean field's, each in one pool phase
// with a mean-field phase (minibatchSchedule): the chains' tasks fill the
// time a worker would otherwise wait at the end of a mean-field phase,
// and the sweep costs no barriers of its own. Neither depends on which
// worker runs a task or what runs beside it, so the result is the same
// bits as one after the other.

// dbmPhaseKind is what a dbmPhase runs.
type dbmPhaseKind uint8

const (
	phaseField      dbmPhaseKind = iota // a layer's mean field: tileTask
	phaseRecon                          // the visible units' reconstruction: reconTask
	phaseChainList                      // a half-sweep's lists of ones: listTask
	phaseChainTiles                     // a half-sweep's inputs: chainTileTask
	phaseChainDraw                      // a half-sweep's draws: chainTask
	phaseBits                           // the chains' 0/1 states into bits: packBits
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
// sweeps, then, if bits, the packing of the 0/1 states into bits for the
// gradient.
func minibatchChains(sweeps int, bits bool) []dbmPhase {
	ps := chainPhases(sweeps)
	if bits {
		ps = append(ps, dbmPhase{kind: phaseBits})
	}
	return ps
}

// tasks is the number of tasks of phase p.
func (j *dbmJoint) tasks(p dbmPhase) int {
	switch p.kind {
	case phaseField:
		return mfParts * (j.tileOff[p.layer+1] - j.tileOff[p.layer])
	case phaseRecon:
		return mfParts * len(j.visTiles)
	case phaseChainTiles:
		return len(j.chTiles[p.parity])
	case phaseBits:
		return len(j.bitTasks)
	}
	return (j.cfg.chains() + blockSize - 1) / blockSize
}

// begin readies phase p (the serial work before its tasks) and returns
// its tasks and their function.
func (j *dbmJoint) begin(p dbmPhase) (int, func(int)) {
	switch p.kind {
	case phaseField:
		j.mfLayer, j.mfFactor, j.mfAbove = p.layer, p.factor, p.above
		return j.tasks(p), j.tileFn
	case phaseRecon:
		return j.tasks(p), j.reconFn
	case phaseChainList:
		j.chParity = p.parity
		return j.tasks(p), j.listFn
	case phaseChainTiles:
		j.chParity = p.parity
		for l := 1 - p.parity; l < len(j.n); l += 2 {
			if o := j.chOnes[l]; o != nil {
				o.Tally()
			}
		}
		return j.tasks(p), j.chainTileFn
	case phaseChainDraw:
		j.chParity = p.parity
		return j.tasks(p), j.chainFn
	default:
		return j.tasks(p), j.bitsFn
	}
}

// runPhases runs the phases ps one after the other.
func (j *dbmJoint) runPhases(ps []dbmPhase) {
	for _, p := range ps {
		n, fn := j.begin(p)
		j.pool.run(n, fn, nil)
	}
}

// runMinibatchPhases runs the mean field's phases and the chains' (the
// sweeps and their bits) as minibatchSchedule pairs them.
func (j *dbmJoint) runMinibatchPhases() {
	for _, m := range j.minibatchSchedule() {
		j.runMixed(m)
	}
}

// mixedPhase is one pool phase of a schedule: phase a of the mean field's
// list and phase b of the chains' (−1: none), and for both the order of
// their tasks (mixTask).
type mixedPhase struct {
	a, b  int
	order []int32
}

// runMixed runs the pool phase m of the minibatch's schedule.
func (j *dbmJoint) runMixed(m mixedPhase) {
	switch {
	case m.b < 0:
		j.runPhases(j.fieldPh[m.a : m.a+1])
	case m.a < 0:
		j.runPhases(j.chainPh[m.b : m.b+1])
	default:
		na, fa := j.begin(j.fieldPh[m.a])
		nb, fb := j.begin(j.chainPh[m.b])
		j.mixA, j.mixB, j.mix = fa, fb, m.order
		j.pool.run(na+nb, j.mixFn, nil)
	}
}

// minibatchSchedule returns the schedule of the field phases beside the
// chain phases on the current pool, built once for its workers: each
// chain phase beside the next field phase in turn, but a half-sweep's
// tiles beside the first field phase (of the next three) that reads the
// same tiles of C, so that each chain tile runs after the mean field's
// tile of the same weights, on the same worker, and finds them in its
// caches.
func (j *dbmJoint) minibatchSchedule() []mixedPhase {
	if j.sched != nil && j.schedWorkers == j.pool.workers {
		return j.sched
	}
	a, b := j.fieldPh, j.chainPh
	var s []mixedPhase
	f := 0
	for ib, p := range b {
		if p.kind == phaseChainTiles {
			for k := f; k < min(f+3, len(a)); k++ {
				if j.partnerLayer(a[k]) == tileLayer(p) {
					for ; f < k; f++ {
						s = append(s, mixedPhase{a: f, b: -1})
					}
					break
				}
			}
		}
		if f >= len(a) {
			s = append(s, mixedPhase{a: -1, b: ib})
			continue
		}
		s = append(s, mixedPhase{a: f, b: ib, order: j.pairOrder(a[f], p)})
		f++
	}
	for ; f < len(a); f++ {
		s = append(s, mixedPhase{a: f, b: -1})
	}
	j.sched, j.schedWorkers = s, j.pool.workers
	return s
}

// partnerLayer is the layer whose tiles of C field phase p reads as a
// chain half-sweep's tiles of that layer do (the tiles above a layer
// below the top, below it at the top), or −1.
func (j *dbmJoint) partnerLayer(p dbmPhase) int {
	if p.kind != phaseField || (!p.above && p.layer < len(j.rbms)) || p.factor != 1 {
		return -1
	}
	return p.layer
}

// tileLayer is the layer of a half-sweep's tiles that can share a field
// phase's: its lowest hidden layer.
func tileLayer(p dbmPhase) int {
	if p.parity == 1 {
		return 1
	}
	return 2
}

// pairOrder returns the task order of field phase a beside chain phase b
// on the current pool. Chain tiles of a's layer follow the field tasks of
// the same tile, the other chain tasks come after a worker's field tasks
// (mixOrder), each worker's share as the pool splits the phase.
func (j *dbmJoint) pairOrder(a, b dbmPhase) []int32 {
	na, nb, W := j.tasks(a), j.tasks(b), j.pool.workers
	l := j.partnerLayer(a)
	if b.kind != phaseChainTiles || l < 0 || l != tileLayer(b) {
		return mixOrder(na, nb, W, b.kind == phaseChainTiles)
	}
	partner := make([][]int32, j.tileOff[l+1]-j.tileOff[l]) // chain tiles by field tile
	var rest []int32
	for i, tc := range j.chTiles[b.parity] {
		if tc.k == l {
			partner[tc.j0/mfTile] = append(partner[tc.j0/mfTile], int32(i))
		} else {
			rest = append(rest, int32(i))
		}
	}
	var order []int32
	for w := 0; w < W; w++ {
		for i := na * w / W; i < na*(w+1)/W; i++ {
			order = append(order, int32(i))
			if i%mfParts == mfParts-1 {
				for _, c := range partner[i/mfParts] {
					order = append(order, -1-c)
				}
			}
		}
		for _, c := range rest[len(rest)*w/W : len(rest)*(w+1)/W] {
			order = append(order, -1-c)
		}
	}
	return order
}

// mixOrder returns the order of the tasks of a pool phase of na tasks of one
// kind (i ≥ 0 for task i) and nb of another (−1 − i for task i), in the
// shares the pool hands its workers: each worker's share of the one kind,
// then its share of the other (the second kind first if bFirst). Every
// worker has both kinds, and the kind last, which the workers take from
// each other's ends once their own share is done, should be the smaller
// tasks, to even out the phase's end.
func mixOrder(na, nb, workers int, bFirst bool) []int32 {
	order := make([]int32, 0, na+nb)
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
