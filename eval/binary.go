package eval

import (
	"errors"
	"fmt"
	"math"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/kernel"
)

// binaryUnits are binary visible units, the paper's RBM: every binary
// vector is a state, drawn unit by unit from σ of its input.
type binaryUnits struct {
	binaryStates
	// The exact sum: the rows of C (or Cᵀ) of the enumerated layer, of
	// length o, and the other layer's biases.
	erows, obias []float32
	o            int
	// layerRows: Cᵀ (H×X) and the visible biases, in float64.
	rows64, d64 []float64
}

func (u *binaryUnits) validate() error {
	if u.m.Sigma != nil {
		return errors.New("eval: model has Sigma but binary visible units (Sigma is for Gaussian ones)")
	}
	if u.m.Groups != nil {
		return errors.New("eval: model has Groups but binary visible units (Groups are for categorical ones)")
	}
	return nil
}

func (u *binaryUnits) checkRows(rows *data.Set, extra int) error {
	if err := checkShape(u.m, rows, extra); err != nil {
		return err
	}
	if err := u.m.Visible.Accepts(rows); err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	return checkData(rows.X, rows.N, rows.D)
}

func (u *binaryUnits) labels(L int) error { return nil }

// exact enumerates the smaller layer (ties: the hidden one): the other,
// binary too, is summed out as Σ softplus of its input, kept in float32 by
// one row added or subtracted per Gray-code step (see ExactLogZ for the
// accuracy).
func (u *binaryUnits) exact() exactSum {
	m := u.m
	if m.H <= m.X {
		u.erows, u.obias, u.o = m.transposed(), m.VisibleBias, m.X
		return exactSum{n: m.H, other: m.X, bias: widen(m.HiddenBias)}
	}
	u.erows, u.obias, u.o = m.C, m.HiddenBias, m.H
	return exactSum{n: m.X, other: m.H, bias: widen(m.VisibleBias), visible: true}
}

// layerRows returns Cᵀ in float64 (row j: C's column j); G has no
// constant.
func (u *binaryUnits) layerRows() ([]float64, float64) {
	u.rows64, u.d64 = transposed64(u.m), widen(u.m.VisibleBias)
	return u.rows64, 0
}

// layerLogZ is Σ_i softplus(d_i + u_i) in float64.
func (u *binaryUnits) layerLogZ(v []float64) float64 {
	var t float64
	for i, x := range v {
		t += softplus64(u.d64[i] + x)
	}
	return t
}

func (u *binaryUnits) exactFresh(s *exactScratch, act []int32) {
	copy(s.pre, u.obias)
	kernel.SumRows(s.pre, u.erows, u.o, act, u.o)
}

func (u *binaryUnits) exactFlip(s *exactScratch, j int, on bool) {
	r := u.erows[j*u.o : (j+1)*u.o]
	if on {
		kernel.Axpy(s.pre, 1, r)
	} else {
		kernel.Axpy(s.pre, -1, r)
	}
}

func (u *binaryUnits) exactTerm(s *exactScratch) float64 {
	kernel.Softplus(s.sp, s.pre)
	return sum64(s.sp)
}

func (u *binaryUnits) fitBase(train *data.Set) ([]float32, error) {
	return DataBaseRate(train.X, train.N, train.D)
}

// anneal prepares the base-rate model: zero weights and hidden biases,
// visible biases d_A (nil: zeros), log Z_A = Σ_j softplus(d_A_j) + H·log 2.
func (u *binaryUnits) anneal(dA []float32) (float64, []float32, error) {
	if err := u.checkBase(dA); err != nil {
		return 0, nil, err
	}
	logZA := float64(u.m.H) * math.Ln2
	for _, v := range u.dA {
		logZA += softplus64(float64(v))
	}
	u.spA = logZA - float64(u.m.H)*math.Ln2
	return logZA, u.dd32, nil
}

// start draws x ~ σ(d_A), unit by unit.
func (u *binaryUnits) start(b *chainBlock, i int) {
	X := u.m.X
	kernel.SigmoidBernoulli(b.prob[:X], b.x[i*X:(i+1)*X], u.dA, &b.st[i])
}

// draw draws x ~ σ((1−β)d_A + β(d + Cᵀh)), unit by unit.
func (u *binaryUnits) draw(b *chainBlock, i int, beta float32) {
	X := u.m.X
	kernel.SigmoidBernoulli(b.prob[:X], b.x[i*X:(i+1)*X], u.pre(b, i, beta), &b.st[i])
}

// marginalStep is Σ_j softplus(bk·v_j) − softplus(bp·v_j) and the draw x ~
// σ(bk·v), as AIS's hidden units step (softplusStep).
func (u *binaryUnits) marginalStep(b *chainBlock, i int, bk, bp float32, draw bool) float64 {
	X := u.m.X
	return softplusStep(bk, bp, draw, b.v[i*X:(i+1)*X], b.x[i*X:(i+1)*X], &b.st[i], b.sx, b.prob, b.spx)
}

// marginalConst is G_0 = X·log 2.
func (u *binaryUnits) marginalConst() float64 { return float64(u.m.X) * math.Ln2 }
