package eval

import (
	"fmt"
	"math"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/kernel"
)

// binaryStates is what the types whose visible states are 0 or 1 (binary
// and categorical units) do alike: the hidden input of a state is a sum of
// the rows of C of its units that are on, and its energy's visible term
// is −dᵀx. So their free energies, AIS log weights and RAISE steps are the
// same; they differ in which states exist (every binary vector, or one
// unit on per group), hence in the draw, the base model and the exact sum.
type binaryStates struct {
	m *Model
	// AIS and RAISE (anneal): the base model's visible biases d_A, d − d_A
	// in float64 and float32 (the bias of the visible product), C with
	// rows padded to hs, and log Z_A − H·log 2 (the visible units' part).
	dA   []float32
	dd   []float64
	dd32 []float32
	hs   int
	c    []float32
	spA  float64
}

func (s *binaryStates) hiddenInputs(a []float32, rows *data.Set, lo, hi int, sc *rowScratch) {
	m := s.m
	H, X := m.H, m.X
	if sc.idx == nil {
		sc.idx = make([]int32, X)
	}
	for r := lo; r < hi; r++ {
		act := activeIndices(sc.idx, rows.X[r*X:(r+1)*X])
		ar := a[(r-lo)*H : (r-lo+1)*H]
		copy(ar, m.HiddenBias)
		kernel.SumRows(ar, m.C, H, act, H)
	}
}

// visibleEnergy is −dᵀx, summed in float64 over the units on in order.
func (s *binaryStates) visibleEnergy(rows *data.Set, r int) float64 {
	X := s.m.X
	var dx float64
	for j, v := range rows.X[r*X : (r+1)*X] {
		if v != 0 {
			dx += float64(s.m.VisibleBias[j])
		}
	}
	return -dx
}

// checkBase checks the base model's visible biases dA (nil: zeros) and
// prepares what the chains read; the caller sets spA.
func (s *binaryStates) checkBase(dA []float32) error {
	m := s.m
	if dA == nil {
		dA = make([]float32, m.X)
	}
	if len(dA) != m.X {
		return fmt.Errorf("eval: AIS base biases have length %d, want X = %d", len(dA), m.X)
	}
	for j, v := range dA {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return fmt.Errorf("eval: AIS base bias %d = %v is not finite", j, v)
		}
	}
	s.dA = dA
	s.dd = make([]float64, m.X)
	s.dd32 = make([]float32, m.X)
	for j := range s.dd {
		s.dd[j] = float64(m.VisibleBias[j]) - float64(dA[j])
		s.dd32[j] = float32(s.dd[j])
	}
	// Rows start on 64-byte boundaries an odd number of lines apart (see
	// newAISRunner's Cᵀ).
	s.hs = kernel.PadStride(m.H)
	s.c = padRows(m.C, m.X, m.H, s.hs)
	return nil
}

func (s *binaryStates) initBlock(b *chainBlock) {
	size, X := len(b.st), s.m.X
	b.hp = newBlockProduct(size, X, s.m.H)
	b.pre = make([]float32, X)
	b.lin = make([]float64, size)
}

// hiddenChains keeps b.a = b + Cx by blockProduct.
func (s *binaryStates) hiddenChains(b *chainBlock, n int) {
	b.hp.update(b.a, s.m.HiddenBias, s.c, s.hs, n, b.x)
}

// increment is Δβ·xᵀ(d − d_A) + dsp, xᵀ(d − d_A) summed in float64 over
// the units on (b.hp's active lists).
func (s *binaryStates) increment(b *chainBlock, i int, db, dsp float64) float64 {
	X := s.m.X
	var xd float64
	for _, j := range b.hp.act[i*X : i*X+b.hp.ones[i]] {
		xd += s.dd[j]
	}
	return db*xd + dsp
}

// pre sets b.pre = (1−β)d_A + β(d + Cᵀh) = d_A + β·v for chain i: the
// visible pre-activation of the transition at beta.
func (s *binaryStates) pre(b *chainBlock, i int, beta float32) []float32 {
	X := s.m.X
	copy(b.pre, s.dA)
	kernel.Axpy(b.pre, beta, b.v[i*X:(i+1)*X])
	return b.pre
}

func (s *binaryStates) load(b *chainBlock, i int, rows *data.Set, r int) {
	X := s.m.X
	x := b.x[i*X : (i+1)*X]
	for j, v := range rows.X[r*X : (r+1)*X] {
		x[j] = float32(v)
	}
}

// RAISE for binary states. With a(x) = b + Cx and SP_k(x) =
// Σ_i softplus(β_k a_i(x)), log p*_β(x) = xᵀd_A + β·xᵀ(d − d_A) + SP(x),
// and the xᵀd_A terms of successive steps telescope:
//
//	log p̂ = x_Kᵀd_A − log Z_A′ + Σ_k β_k (x_k − x_{k−1})ᵀ(d − d_A) + SP_k(x_k) − SP_k(x_{k−1}),
//
// with x_K the row and log Z_A′ = log Z_A − H·log 2 the base model's
// visible part (p_A(x_0)'s x_0ᵀd_A cancels the last step's). b.lin holds
// each chain's xᵀ(d − d_A).
func (s *binaryStates) raiseStart(b *chainBlock, i int) float64 {
	X := s.m.X
	var logp, xdd float64
	for _, j := range b.hp.act[i*X : i*X+b.hp.ones[i]] {
		logp += float64(s.dA[j])
		xdd += s.dd[j]
	}
	b.lin[i] = xdd
	return logp
}

// raiseUp adds SP_k(x_k).
func (s *binaryStates) raiseUp(b *chainBlock, i int, beta float32, logp float64) float64 {
	return logp + s.softplusSum(b, i, beta)
}

// raiseDown subtracts SP_k(x_{k−1}) and adds β_k(x_k − x_{k−1})ᵀ(d − d_A).
func (s *binaryStates) raiseDown(b *chainBlock, i int, beta float32, logp float64) float64 {
	X := s.m.X
	logp -= s.softplusSum(b, i, beta)
	var xdd1 float64
	for _, j := range b.hp.act[i*X : i*X+b.hp.ones[i]] {
		xdd1 += s.dd[j]
	}
	logp += float64(beta) * (b.lin[i] - xdd1)
	b.lin[i] = xdd1
	return logp
}

func (s *binaryStates) raiseEnd(b *chainBlock, i int, logp float64) float64 {
	return logp - s.spA
}

// softplusSum returns Σ_i softplus(β·a_i) of chain i in float32 terms
// summed in float64.
func (s *binaryStates) softplusSum(b *chainBlock, i int, beta float32) float64 {
	H := s.m.H
	clear(b.s1)
	kernel.Axpy(b.s1, beta, b.a[i*H:(i+1)*H])
	kernel.Softplus(b.s1, b.s1)
	return sum64(b.s1)
}

// checkRoutes: a broad base of the visible marginal (every state equally
// likely) and the hidden marginal from free hidden units.
func (s *binaryStates) checkRoutes() []Route { return []Route{RouteUniform, RouteHidden} }
