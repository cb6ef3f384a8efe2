package engine

import "github.com/ncg-rbm/ncg/kernel"

// binaryInput is what binary and categorical units share: visible states
// of 0 and 1, which enter the up pass as the rows of C their ones select
// (the lists of ones kept up to date between a chain's steps: product)
// and the gradient as lists of the slots whose unit j is on (rowTask).
type binaryInput struct{}

func (binaryInput) binaryStates() bool      { return true }
func (binaryInput) alloc(*Trainer)          {}
func (binaryInput) initModel(*Model, *Data) {}
func (binaryInput) bind(*Model)             {}
func (binaryInput) prepare(*Trainer)        {}
func (binaryInput) refresh(*Trainer)        {}

func (binaryInput) checkConfig(c Config, bad func(string, ...any)) {
	if c.LearnSigma {
		bad("learn-sigma needs visible gaussian")
	}
}
func (binaryInput) checkData(*Data) error   { return nil }
func (binaryInput) checkModel(*Model) error { return nil }

func (binaryInput) load(dst []float32, d *Data, r int) {
	for j, v := range d.X[r*d.D : (r+1)*d.D] {
		dst[j] = float32(v)
	}
}

// stateLists returns where the up pass of chains c0…c1−1 lists the ones
// of states of role r: the data's and the final state's for the gradient,
// an intermediate state's for the incremental products (none on
// compressed rows, whose products are fresh).
func (t *Trainer) stateLists(r stateRole, c0, c1 int) (idx, cnt []int32) {
	x := t.m.X
	switch r {
	case rolePos:
		return t.posIdx[c0*x : c1*x], t.posCnt[c0:c1]
	case roleNeg:
		return t.negIdx[c0*x : c1*x], t.negCnt[c0:c1]
	}
	idx, cnt, _, _ = t.indexLists(c0, c1)
	return idx, cnt
}

// up sums the rows of C named by each chain's ones. The data's sums are
// fresh and become the state the chain's later products update from
// (xref); later ones update the last sums by the units that changed
// (product.update), unless fresh or on compressed rows.
func (binaryInput) up(t *Trainer, blk, c0, c1 int, hpre, states []float32, r stateRole, fresh bool) {
	m := t.m
	x, h, nc := m.X, m.H, c1-c0
	sc := &t.scratch[blk]
	idx, cnt := t.stateLists(r, c0, c1)
	if fresh || t.sp != nil {
		t.up.affineBinary(hpre, m.HiddenBias, states, nc, x, h, idx, cnt, sc)
		if r == rolePos && t.sp == nil {
			copy(t.xref[c0*x:c1*x], states)
		}
		return
	}
	xref := t.xref[c0*x : c1*x]
	for c := 0; c < nc; c++ {
		cnt[c] = int32(sc.up.update(hpre[c*h:(c+1)*h], m.HiddenBias, t.up, xref[c*x:(c+1)*x], states[c*x:(c+1)*x], idx[c*x:(c+1)*x]))
	}
}

// energy is E(x, h) = −b·h − x·(d + Cᵀh) of binary states.
func (binaryInput) energy(t *Trainer, h, v, vpre []float32) float64 {
	return energy(t.m.HiddenBias, h, v, vpre)
}

// finishBlock sets where each row chunk starts in the block's lists.
func (binaryInput) finishBlock(t *Trainer, blk int) {
	t.blockOffsets(blk*t.block, min((blk+1)*t.block, t.nb))
}

func (binaryInput) gradStates(t *Trainer) (pos, neg []float32) { return t.x0, t.xs }

// rowGrad lists, for each visible row of chunk k, the hstat rows its
// gradient sums: the slots whose data have unit j on (their ĥ⁺), then
// those whose final state has (their −ĥ⁻), in slot order.
func (binaryInput) rowGrad(t *Trainer, k, j0, j1 int) {
	x, b := t.m.X, t.cfg.Batch
	k1 := len(t.rowOK) + 1
	lists, lens := t.rowList[k*rowChunk*2*b:(k+1)*rowChunk*2*b], t.rowLen[k*rowChunk:(k+1)*rowChunk]
	clear(lens)
	for c := 0; c < t.nb; c++ {
		for _, j := range t.posIdx[c*x+int(t.posOff[c*k1+k]) : c*x+int(t.posOff[c*k1+k+1])] {
			r := int(j) - j0
			lists[r*2*b+int(lens[r])] = int32(c)
			lens[r]++
		}
	}
	for c := 0; c < t.nb; c++ {
		for _, j := range t.negIdx[c*x+int(t.negOff[c*k1+k]) : c*x+int(t.negOff[c*k1+k+1])] {
			r := int(j) - j0
			lists[r*2*b+int(lens[r])] = int32(b + c)
			lens[r]++
		}
	}
}

// gradRow sums row j's listed hstat rows into g:
//
//	G[j,:] = Σ_{c: x⁰_cj = 1} ĥ⁺_c − Σ_{c: x̃_cj = 1} ĥ⁻_c
func (binaryInput) gradRow(t *Trainer, k, j int, g []float32) []float32 {
	h, b := t.m.H, t.cfg.Batch
	r := j - k*rowChunk
	list := t.rowList[k*rowChunk*2*b+r*2*b:]
	kernel.SumRows(g, t.hstat, h, list[:t.rowLen[k*rowChunk+r]], h)
	return g
}

func (binaryInput) fileNames() []string             { return nil }
func (binaryInput) fileEntries(*Model) []npzItem    { return nil }
func (binaryInput) readFile(*npzFile, *Model) error { return nil }
func (binaryInput) step(*Trainer, int, int) bool    { return true }
func (binaryInput) inputScale() []float32           { return nil }
func (binaryInput) params(*Trainer) [][]float32     { return nil }
func (binaryInput) velocities(*Trainer) [][]float32 { return nil }

// binaryUnits are the paper's binary visible units: P(x_j = 1 | h) =
// σ(d_j + (C h)_j), each drawn on its own.
type binaryUnits struct{ binaryInput }

func (binaryUnits) mean(dst, pre []float32, nc int) []float32 {
	kernel.Sigmoid(dst, pre)
	return dst
}

// sample draws x ~ σ(β(d + C h)) unit by unit (kernel.SigmoidBernoulli).
func (binaryUnits) sample(t *Trainer, blk int, states, dst, pre []float32, nc int, beta float64, streams []kernel.Stream) []float32 {
	x := t.m.X
	if beta != 1 {
		scale(dst[:nc*x], pre[:nc*x], beta)
		pre = dst
	}
	for c := 0; c < nc; c++ {
		kernel.SigmoidBernoulli(dst[c*x:(c+1)*x], states[c*x:(c+1)*x], pre[c*x:(c+1)*x], &streams[c])
	}
	return dst
}
