package engine

import (
	"errors"
	"fmt"
	"math"

	"github.com/ncg-rbm/ncg/kernel"
)

// Gaussian visible units (unit.Gaussian; docs/algorithm.md, "Gaussian
// visible units"), in the parameterisation of Cho, Ilin & Raiko (2011),
// with z = log σ² per visible unit:
//
//	E(v, h) = Σ_j (v_j − d_j)²/(2σ_j²) − Σ_i b_i h_i − Σ_j (v_j/σ_j²)·(Cᵀh)_j
//	v_j | h ~ N(d_j + (Cᵀh)_j, σ_j²),  P(h_i = 1 | v) = sigmoid(b_i + (C(v/σ²))_i)
//
// with visible biases d and hidden biases b (docs/algorithm.md's notation;
// C is H×X there, stored visible-major here).
//
// The hidden states stay binary, so the down pass is the binary models'
// (rows of C summed, incrementally after the first step); the up pass
// multiplies C by the real-valued v/σ² (kernel.Affine), and the gradient
// of W (and of NCG's A′) pairs ĥ with v/σ² where a binary model pairs it
// with x: one dense product of the chunk's columns of [v⁺/σ²; v⁻/σ²] with
// the statistics [ĥ⁺; −ĥ⁻] per row chunk. Gaussian models train on the
// dense matrices, but when a mask leaves at most SparseDensity() of C
// present, a minibatch's chains take their products from compressed
// copies of C (gaussrows.go).
type gaussianUnits struct {
	// gg, the gradient rows of W (X×H); gST, each row chunk's columns of
	// the scaled states (rowChunk × 2·Batch).
	gg, gST []float32
	// With learned σ: invVar = 1/σ² (X), spos and sneg the slots' x⁰/σ²
	// and x̃/σ² (Batch×X), dzBlock each chain block's share of z's
	// gradient (X), gZ its sum and velZ its velocity.
	invVar, spos, sneg, dzBlock []float32
	gZ, velZ                    []float32
	// sv, sig: each chain block's scaled states v/σ² of an intermediate
	// step, and parallel tempering's σ/√β.
	sv, sig [][]float32
	// gHid and gVis are a masked model's compressed copies of C
	// (hidden-major and visible-major), which its chains use in a
	// minibatch when sparse (gaussrows.go).
	gHid, gVis *sparseRows
	sparse     bool
	// minZ = 2 log MinSigma in float32, the least z (learned σ with a
	// floor only).
	minZ float32
}

// setGaussian makes m a model of Gaussian visible units with σ = 1.
func (m *Model) setGaussian() {
	m.LogVar, m.Sigma = make([]float32, m.X), make([]float32, m.X)
	fill(m.Sigma, 1)
}

// refreshSigma sets Sigma[j] = exp(LogVar[j]/2) for j0 ≤ j < j1, and, if
// invVar is not nil, invVar[j] = exp(−LogVar[j]) = 1/σ².
func (m *Model) refreshSigma(invVar []float32, j0, j1 int) {
	for j := j0; j < j1; j++ {
		z := float64(m.LogVar[j])
		m.Sigma[j] = float32(math.Exp(z / 2))
		if invVar != nil {
			invVar[j] = float32(math.Exp(-z))
		}
	}
}

func (g *gaussianUnits) binaryStates() bool { return false }

func (g *gaussianUnits) initModel(m *Model, _ *Data) { m.setGaussian() }
func (g *gaussianUnits) bind(*Model)                 {}

func (g *gaussianUnits) checkConfig(c Config, bad func(string, ...any)) {
	if c.SETProcedure == Mocanu {
		bad("set-procedure %s trains binary visible units only", Mocanu)
	}
	for _, p := range []struct {
		name string
		v    float64
	}{{"sigma-step", c.SigmaStep}, {"min-sigma", c.MinSigma}} {
		if math.IsNaN(p.v) || math.IsInf(p.v, 0) || p.v < 0 {
			bad("%s = %v: need a finite value ≥ 0", p.name, p.v)
		}
	}
	if c.MinSigma > 1e18 { // σ² would overflow float32
		bad("min-sigma = %v: need σ² within float32", c.MinSigma)
	}
}

// checkModel checks σ and log σ²: X of each, σ positive, σ² and 1/σ²
// within float32 (the samplers compute both from log σ²: |log σ²| ≤ 88),
// and log σ² = 2 log σ to float32 rounding of either.
func (g *gaussianUnits) checkModel(m *Model) error {
	if len(m.LogVar) != m.X || len(m.Sigma) != m.X {
		return fmt.Errorf("gaussian units: %d log σ² and %d σ, want X = %d", len(m.LogVar), len(m.Sigma), m.X)
	}
	const maxLogVar = 88 // exp(±88) is a finite float32; exp(±89) is not
	for j, s := range m.Sigma {
		z := float64(m.LogVar[j])
		switch {
		case !(s > 0) || math.IsInf(float64(s), 0):
			return fmt.Errorf("sigma[%d] = %v: want σ > 0, finite", j, s)
		case math.IsNaN(z) || math.Abs(z) > maxLogVar:
			return fmt.Errorf("sigma[%d] = %v, log_var[%d] = %.4g: σ² and 1/σ² must be finite float32 numbers, |log σ²| ≤ %d", j, s, j, z, maxLogVar)
		case math.Abs(float64(s)-math.Exp(z/2)) > 1e-6*(1+math.Abs(z))*math.Exp(z/2): // float32 z is within |z|·2⁻²⁴
			return fmt.Errorf("sigma[%d] = %v but log_var[%d] = %v, whose σ is %v: log σ² is 2 log σ", j, s, j, z, math.Exp(z/2))
		}
	}
	return nil
}

func (g *gaussianUnits) fileNames() []string { return []string{"sigma", "log_var"} }

func (g *gaussianUnits) fileEntries(m *Model) []npzItem {
	return []npzItem{{"sigma", m.Sigma}, {"log_var", m.LogVar}}
}

// readFile reads σ, and log σ² (computed from σ when the file lacks it).
func (g *gaussianUnits) readFile(f *npzFile, m *Model) error {
	if err := f.read("sigma", &m.Sigma, m.X); err != nil {
		return err
	}
	if f.has("log_var") {
		return f.read("log_var", &m.LogVar, m.X)
	}
	m.LogVar = make([]float32, m.X)
	for j, s := range m.Sigma {
		m.LogVar[j] = float32(2 * math.Log(float64(s)))
	}
	return nil
}

func (g *gaussianUnits) checkData(d *Data) error {
	if d.Classes > 0 {
		return errors.New("visible gaussian trains generative models only (no label units)")
	}
	return nil
}

// alloc sizes the scratch of a Gaussian model (after the trainer's).
func (g *gaussianUnits) alloc(t *Trainer) {
	b, x, h := t.cfg.Batch, t.m.X, t.m.H
	chunks := len(t.rowOK)
	g.gg = make([]float32, x*h)
	g.gST = make([]float32, chunks*rowChunk*2*b)
	g.sv, g.sig = make([][]float32, len(t.scratch)), make([][]float32, len(t.scratch))
	for i := range t.scratch {
		g.sv[i] = make([]float32, t.block*x)
		g.sig[i] = make([]float32, x)
	}
	if t.cfg.LearnSigma {
		if t.cfg.MinSigma > 0 {
			g.minZ = float32(2 * math.Log(t.cfg.MinSigma))
		}
		g.invVar = make([]float32, x)
		g.spos, g.sneg = make([]float32, b*x), make([]float32, b*x)
		g.dzBlock = make([]float32, len(t.scratch)*x)
		g.gZ = make([]float32, x)
		if !t.cfg.plainUpdate() {
			g.velZ = make([]float32, x)
		}
	}
	g.refresh(t)
	g.allocRows(t)
}

func (g *gaussianUnits) refresh(t *Trainer) { t.m.refreshSigma(g.invVar, 0, t.m.X) }

func (g *gaussianUnits) load(dst []float32, d *Data, r int) {
	copy(dst, d.Real[r*d.D:(r+1)*d.D])
}

// prepare chooses the form of the chain products (gaussrows.go).
func (g *gaussianUnits) prepare(t *Trainer) { g.form(t) }

func (g *gaussianUnits) gradStates(t *Trainer) (pos, neg []float32) {
	if g.spos != nil {
		return g.spos, g.sneg
	}
	return t.x0, t.xs
}

// up sets hpre = b + C(v/σ²) for the chains' states (v/σ² is kept for
// the gradient: the data's in spos, the final state's in sneg; with σ = 1
// it is v itself), on the compressed rows when sparse.
func (g *gaussianUnits) up(t *Trainer, blk, c0, c1 int, hpre, states []float32, r stateRole, _ bool) {
	m := t.m
	x, nc := m.X, c1-c0
	in := states
	if g.invVar != nil {
		scaled := g.sv[blk]
		switch r {
		case rolePos:
			scaled = g.spos[c0*x : c1*x]
		case roleNeg:
			scaled = g.sneg[c0*x : c1*x]
		}
		for c := 0; c < nc; c++ {
			out := scaled[c*x : (c+1)*x]
			for j, v := range states[c*x : (c+1)*x] {
				out[j] = v * g.invVar[j]
			}
		}
		in = scaled[:nc*x]
	}
	if g.sparse {
		kernel.SparseAffineChains(hpre, m.HiddenBias, in, nc, &g.gHid.csr, t.scratch[blk].upWork)
		return
	}
	kernel.Affine(hpre, m.HiddenBias, in, m.c, nc, x, m.H)
}

// mean is the input itself: E[v | h] = d + Cᵀh.
func (g *gaussianUnits) mean(_, pre []float32, _ int) []float32 { return pre }

// sample draws v ~ N(d + Cᵀh, σ²/β) (kernel.GaussianSample).
func (g *gaussianUnits) sample(t *Trainer, blk int, states, _, pre []float32, nc int, beta float64, streams []kernel.Stream) []float32 {
	x := t.m.X
	sig := t.m.Sigma
	if beta != 1 {
		sig = g.sig[blk]
		tempSigma(sig, t.m.Sigma, beta)
	}
	for c := 0; c < nc; c++ {
		kernel.GaussianSample(states[c*x:(c+1)*x], pre[c*x:(c+1)*x], sig, &streams[c])
	}
	return pre
}

// energy returns E(v, h) of a Gaussian chain's state in float64, from
// the down pass's vpre = d + Cᵀh:
//
//	E = Σ_j ((v_j − d_j)²/2 − v_j·(vpre_j − d_j))/σ_j² − Σ_i b_i h_i.
func (g *gaussianUnits) energy(t *Trainer, h, v, vpre []float32) float64 {
	m := t.m
	var e float64
	for i, s := range h {
		if s != 0 {
			e -= float64(m.HiddenBias[i])
		}
	}
	for j, vj := range v {
		b := float64(m.VisibleBias[j])
		d := float64(vj) - b
		q := (d*d/2 - float64(vj)*(float64(vpre[j])-b))
		if g.invVar != nil {
			q *= float64(g.invVar[j])
		}
		e += q
	}
	return e
}

// finishBlock sets block blk's share of the gradient of z = log σ²
// (learned σ only; Cho, Ilin & Raiko 2011, with the hidden units'
// probabilities for h as in the gradient of W):
//
//	Σ_c e^(−z_j)·(½(x⁰_cj − d_j)² − x⁰_cj·(Cᵀĥ⁺_c)_j) − e^(−z_j)·(½(x̃_cj − d_j)² − x̃_cj·(Cᵀĥ⁻_c)_j)
//
// summed in slot order within the block, as blockVisibleGrad's share.
// It uses the block's rows of vpre as scratch (the chains are done).
func (g *gaussianUnits) finishBlock(t *Trainer, blk int) {
	if g.dzBlock == nil {
		return
	}
	m := t.m
	x, h := m.X, m.H
	c0, c1 := blk*t.block, min((blk+1)*t.block, t.nb)
	nc := c1 - c0
	dz := g.dzBlock[blk*x : (blk+1)*x]
	clear(dz)
	u := t.vpre[c0*x : c1*x]
	for k, sign := range [2]float32{1, -1} {
		states, stat := t.x0, t.hpos
		if k == 1 {
			states, stat = t.xs, t.nhneg // −ĥ⁻: u is −C ĥ⁻
		}
		if g.sparse {
			kernel.SparseAffineChains(u, nil, stat[c0*h:c1*h], nc, &g.gVis.csr, t.scratch[blk].downWork)
		} else {
			kernel.Affine(u, nil, stat[c0*h:c1*h], m.ch, nc, h, x)
		}
		for c := 0; c < nc; c++ {
			v, uc := states[(c0+c)*x:(c0+c+1)*x], u[c*x:(c+1)*x]
			for j := range dz {
				d := v[j] - m.VisibleBias[j]
				gz := float32(0.5*float32(d*d)) - float32(v[j]*float32(sign*uc[j]))
				dz[j] += sign * float32(g.invVar[j]*gz)
			}
		}
	}
}

// rowGrad sets the gradient rows j0…j1−1 of W (row chunk k): G[j,:] =
// Σ_c s⁺_cj ĥ⁺_c − s⁻_cj ĥ⁻_c with s = v/σ², one dense product of the
// chunk's columns of the scaled states (slots beyond the minibatch zero)
// with the statistics hstat.
func (g *gaussianUnits) rowGrad(t *Trainer, k, j0, j1 int) {
	b, x, h := t.cfg.Batch, t.m.X, t.m.H
	n := j1 - j0
	st := g.gST[k*rowChunk*2*b : (k*rowChunk+n)*2*b]
	pos, neg := g.gradStates(t)
	for r := 0; r < n; r++ {
		j := j0 + r
		row := st[r*2*b : (r+1)*2*b]
		for c := 0; c < t.nb; c++ {
			row[c], row[b+c] = pos[c*x+j], neg[c*x+j]
		}
		for c := t.nb; c < b; c++ {
			row[c], row[b+c] = 0, 0
		}
	}
	kernel.Affine(g.gg[j0*h:j1*h], nil, st, t.hstat, n, 2*b, h)
}

func (g *gaussianUnits) gradRow(t *Trainer, _, j int, _ []float32) []float32 {
	h := t.m.H
	return g.gg[j*h : (j+1)*h]
}

// step updates z = log σ² of the visible units j0…j1−1 from the chain
// blocks' shares of its gradient (learned σ only), then their σ and
// 1/σ², and reports whether the new z are finite.
func (g *gaussianUnits) step(t *Trainer, j0, j1 int) bool {
	if g.dzBlock == nil {
		return true
	}
	x := t.m.X
	gz := g.gZ[j0:j1]
	for blk := 0; blk*t.block < t.nb; blk++ {
		kernel.Axpy(gz, 1, g.dzBlock[blk*x+j0:blk*x+j1])
	}
	z := t.m.LogVar[j0:j1]
	var ok bool
	switch f := t.cfg.SigmaStep; {
	case f == 0 || f == 1: // the visible biases' step
		ok = t.updateBias(z, gz, sub(g.velZ, j0, j1))
	case t.cfg.plainUpdate():
		ok = kernel.UpdateDense(z, nil, gz, float32(t.cfg.LRAt(t.epoch)*f/float64(t.nb)))
	default:
		p := t.step
		p.L1, p.L2, p.LR = 0, 0, float32(t.cfg.LRAt(t.epoch)*f)
		ok = kernel.UpdateMomentum(z, nil, nil, gz, sub(g.velZ, j0, j1), p)
	}
	if g.minZ != 0 || t.cfg.MinSigma != 0 {
		for j, v := range z {
			if v < g.minZ {
				z[j] = g.minZ
			}
		}
	}
	t.m.refreshSigma(g.invVar, j0, j1)
	return ok
}

func (g *gaussianUnits) inputScale() []float32 { return g.invVar }

func (g *gaussianUnits) params(t *Trainer) [][]float32 { return [][]float32{t.m.LogVar} }

func (g *gaussianUnits) velocities(*Trainer) [][]float32 {
	if g.velZ == nil {
		return nil
	}
	return [][]float32{g.velZ}
}

// tempSigma sets sig = σ/√β, the standard deviation of the visible units
// of the chain at inverse temperature β: p_β(v | h) = N(d + Cᵀh, σ²/β).
func tempSigma(sig, sigma []float32, beta float64) {
	f := float32(1 / math.Sqrt(beta))
	for j, s := range sigma {
		sig[j] = s * f
	}
}
