package eval

import (
	"errors"
	"fmt"
	"math"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/kernel"
)

// gaussUnits are Gaussian visible units (Model): real-valued, v_i | h ~
// N(b_i + Σ_j C_ij h_j, σ_i²), giving the hidden units v/σ² as input.
//
// AIS and RAISE. The base model p_A has independent visible units v_i ~
// N(m_i, σ_i²), with the model's σ and the means m = AISConfig.BaseBias
// (BaseMean of the training rows; nil: zeros), and H free hidden units:
// Z_A = 2^H·Π_i √(2π)σ_i. The intermediate distributions are p*_β(v, h) =
// exp(−(1−β)E_A(v) − βE(v, h)) with E_A(v) = Σ_i (v_i − m_i)²/(2σ_i²), as in
// Salakhutdinov & Murray's binary AIS. Summing out h,
//
//	log p*_β(v) = −(1−β)·Q_A(v) − β·Q(v) + Σ_j softplus(β·a_j(v)),
//
// with Q_A(v) = Σ_i (v_i − m_i)²/(2σ_i²), Q(v) = Σ_i (v_i − b_i)²/(2σ_i²) and
// a_j(v) = c_j + Σ_i C_ij v_i/σ_i². Its Gibbs transition: h_j ~ σ(β·a_j(v)),
// then, completing the square in v_i (the quadratic coefficient is
// 1/(2σ_i²) for every β),
//
//	v_i ~ N((1−β)·m_i + β·(b_i + Σ_j C_ij h_j), σ_i²).
//
// The log-weight increment of step k is log p*_{β_k}(v) − log p*_{β_{k−1}}(v)
// = −Δβ·(Q(v) − Q_A(v)) + Σ_j softplus(β_k a_j) − softplus(β_{k−1} a_j), with
// Q(v) − Q_A(v) = Σ_i (m_i − b_i)(v_i − (b_i + m_i)/2)/σ_i².
type gaussUnits struct {
	m       *Model
	p32     []float32 // 1/σ² (X): the scale of v in the hidden input
	p64     []float64
	rows, r []float64 // the exact sum: C_ij/σ_i (H×X, hidden-major) and b_i/σ_i
	mA      []float32 // AIS: base means (X)
	sig     []float32 // σ (X)
	g       []float64 // (m − b)/σ² (X)
	centre  []float64 // (b + m)/2 (X)
	logs    float64   // Σ_i ½·log(2πσ_i²)
}

// sigma returns σ_i of a Gaussian model (1 when Sigma is nil).
func (m *Model) sigma(i int) float64 {
	if m.Sigma == nil {
		return 1
	}
	return float64(m.Sigma[i])
}

func (u *gaussUnits) validate() error {
	m := u.m
	if m.Groups != nil {
		return errors.New("eval: model has Groups but Gaussian visible units (Groups are for categorical ones)")
	}
	if m.Sigma != nil && len(m.Sigma) != m.X {
		return fmt.Errorf("eval: model standard deviations Sigma have length %d, want X = %d", len(m.Sigma), m.X)
	}
	for k, v := range m.Sigma {
		if !(v > 0) || math.IsInf(float64(v), 0) {
			return fmt.Errorf("eval: model parameter Sigma[%d] = %v is not positive and finite", k, v)
		}
	}
	u.precisions()
	return nil
}

func (u *gaussUnits) checkRows(rows *data.Set, extra int) error {
	if err := checkShape(u.m, rows, extra); err != nil {
		return err
	}
	if err := u.m.Visible.Accepts(rows); err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	return checkRealData(rows.Real, rows.N, rows.D)
}

func (u *gaussUnits) labels(L int) error {
	return errors.New("eval: label units (and accuracy) need binary or categorical visible units; this model's are Gaussian")
}

// precisions sets 1/σ_i² in float32 (the scale of the visible states in
// the hidden input) and in float64.
func (u *gaussUnits) precisions() {
	m := u.m
	u.p32, u.p64 = make([]float32, m.X), make([]float64, m.X)
	for i := range u.p64 {
		s := m.sigma(i)
		u.p64[i] = 1 / (s * s)
		u.p32[i] = float32(u.p64[i])
	}
}

// scale writes v/σ² to s (the input of the hidden units).
func (u *gaussUnits) scale(s, v []float32) {
	for k, x := range v {
		s[k] = x * u.p32[k%len(u.p32)]
	}
}

// hiddenInputs is one dense float32 product for the chunk (kernel.Affine
// of the rows scaled by 1/σ²).
func (u *gaussUnits) hiddenInputs(a []float32, rows *data.Set, lo, hi int, sc *rowScratch) {
	m := u.m
	if sc.s == nil {
		sc.s = make([]float32, rowChunk*m.X)
	}
	u.scale(sc.s[:(hi-lo)*m.X], rows.Real[lo*m.X:hi*m.X])
	kernel.Affine(a, m.HiddenBias, sc.s, m.C, hi-lo, m.X, m.H)
}

// visibleEnergy is Σ_i (v_i − b_i)²/(2σ_i²), so that F(v) makes p(v) =
// exp(−F(v))/Z a density.
func (u *gaussUnits) visibleEnergy(rows *data.Set, r int) float64 {
	X := u.m.X
	return quadratic(rows.Real[r*X:(r+1)*X], u.m.VisibleBias, u.p64)
}

// quadratic returns Σ_i (v_i − b_i)²·p_i/2 in float64 (p = 1/σ²).
func quadratic(v, b []float32, p []float64) float64 {
	var q float64
	for i, x := range v {
		d := float64(x) - float64(b[i])
		q += d * d * p[i]
	}
	return q / 2
}

// exact sums over the 2^H hidden states, the integral over v done
// analytically. For a hidden state h let μ_i(h) = b_i + Σ_j C_ij h_j. Since
// (v_i − b_i)² − 2v_i(μ_i − b_i) = (v_i − μ_i)² − (μ_i² − b_i²),
//
//	−E(v, h) = cᵀh + Σ_i (μ_i² − b_i²)/(2σ_i²) − Σ_i (v_i − μ_i)²/(2σ_i²),
//
// and ∫ exp(−(v_i − μ_i)²/(2σ_i²)) dv_i = √(2π)·σ_i, so
//
//	log Z = log Σ_h exp(cᵀh + Σ_i (μ_i(h)² − b_i²)/(2σ_i²)) + Σ_i ½·log(2πσ_i²).
//
// With r_i = b_i/σ_i and u_i(h) = (μ_i(h) − b_i)/σ_i = Σ_j (C_ij/σ_i) h_j
// the exponent is cᵀh + Σ_i u_i·(r_i + u_i/2), which is what is summed,
// with u and the rows C_·j/σ in float64: as accurate as float64 allows
// (≈ 1e-12 relative for weights of size ~1).
func (u *gaussUnits) exact() exactSum {
	m := u.m
	H, X := m.H, m.X
	u.rows = make([]float64, H*X) // rows[j*X+i] = C_ij/σ_i
	u.r = make([]float64, X)      // b_i/σ_i
	var gauss float64             // Σ_i ½·log(2πσ_i²)
	for i := 0; i < X; i++ {
		s := m.sigma(i)
		for j := 0; j < H; j++ {
			u.rows[j*X+i] = float64(m.C[i*H+j]) / s
		}
		u.r[i] = float64(m.VisibleBias[i]) / s
		gauss += 0.5 * math.Log(2*math.Pi*s*s)
	}
	return exactSum{n: H, other: X, bias: widen(m.HiddenBias), constant: gauss}
}

// layerRows returns the exact sum's rows, C_·j/σ, and its constant
// Σ_i ½·log(2πσ_i²).
func (u *gaussUnits) layerRows() ([]float64, float64) {
	e := u.exact()
	return u.rows, e.constant
}

func (u *gaussUnits) exactFresh(s *exactScratch, act []int32) {
	freshRows64(s.u, u.rows, act)
}

func (u *gaussUnits) exactFlip(s *exactScratch, j int, on bool) {
	X := u.m.X
	flipRow64(s.u, u.rows[j*X:(j+1)*X], on)
}

func (u *gaussUnits) exactTerm(s *exactScratch) float64 { return u.layerLogZ(s.u) }

// layerLogZ returns Σ_i u_i·(r_i + u_i/2) for u = v, with four
// accumulators (a fixed order).
func (u *gaussUnits) layerLogZ(v []float64) float64 {
	r := u.r
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(v); i += 4 {
		s0 += v[i] * (r[i] + 0.5*v[i])
		s1 += v[i+1] * (r[i+1] + 0.5*v[i+1])
		s2 += v[i+2] * (r[i+2] + 0.5*v[i+2])
		s3 += v[i+3] * (r[i+3] + 0.5*v[i+3])
	}
	for ; i < len(v); i++ {
		s0 += v[i] * (r[i] + 0.5*v[i])
	}
	return (s0 + s1) + (s2 + s3)
}

func (u *gaussUnits) fitBase(train *data.Set) ([]float32, error) {
	return BaseMean(train.Real, train.N, train.D)
}

// anneal checks the base means (nil: zeros) and prepares the chains.
func (u *gaussUnits) anneal(mA []float32) (float64, []float32, error) {
	m := u.m
	if mA == nil {
		mA = make([]float32, m.X)
	}
	if len(mA) != m.X {
		return 0, nil, fmt.Errorf("eval: AIS base means have length %d, want X = %d", len(mA), m.X)
	}
	for i, v := range mA {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return 0, nil, fmt.Errorf("eval: AIS base mean %d = %v is not finite", i, v)
		}
	}
	u.mA, u.sig, u.g, u.centre = mA, make([]float32, m.X), make([]float64, m.X), make([]float64, m.X)
	for i := range u.sig {
		s := m.sigma(i)
		u.sig[i] = float32(s)
		b, mi := float64(m.VisibleBias[i]), float64(mA[i])
		u.g[i] = (mi - b) * u.p64[i]
		u.centre[i] = (b + mi) / 2
		u.logs += 0.5 * math.Log(2*math.Pi*s*s)
	}
	return float64(m.H)*math.Ln2 + u.logs, m.VisibleBias, nil
}

func (u *gaussUnits) initBlock(b *chainBlock) {
	X := u.m.X
	b.s = make([]float32, len(b.st)*X)
	b.z, b.zbuf = make([]float32, X), make([]uint32, X+1)
}

// start draws v ~ N(m_A, σ²).
func (u *gaussUnits) start(b *chainBlock, i int) {
	X := u.m.X
	u.visibleDraw(b.x[i*X:(i+1)*X], 0, u.mA, &b.st[i], b.z, b.zbuf)
}

// hiddenChains is one dense product for the block (kernel.Affine, which
// computes each chain's row by itself, so a chain's result does not depend
// on its block).
func (u *gaussUnits) hiddenChains(b *chainBlock, n int) {
	m := u.m
	u.scale(b.s[:n*m.X], b.x[:n*m.X])
	kernel.Affine(b.a, m.HiddenBias, b.s, m.C, n, m.X, m.H)
}

// increment is dsp − Δβ·(Q(v) − Q_A(v)).
func (u *gaussUnits) increment(b *chainBlock, i int, db, dsp float64) float64 {
	X := u.m.X
	return dsp - db*u.quadDiff(b.x[i*X:(i+1)*X])
}

// quadDiff returns Q(v) − Q_A(v) = Σ_i (m_i − b_i)(v_i − (b_i + m_i)/2)/σ_i².
func (u *gaussUnits) quadDiff(v []float32) float64 {
	var d float64
	for i, x := range v {
		d += u.g[i] * (float64(x) - u.centre[i])
	}
	return d
}

// draw draws v ~ N((1−β)m_A + β(b + Ch), σ²), with b.v = b + Ch.
func (u *gaussUnits) draw(b *chainBlock, i int, beta float32) {
	X := u.m.X
	u.visibleDraw(b.x[i*X:(i+1)*X], beta, b.v[i*X:(i+1)*X], &b.st[i], b.z, b.zbuf)
}

// visibleDraw sets v = (1−β)m_A + β·mu + σ·z in float32, z standard normal
// from st (z and buf are scratch of X and X+1).
func (u *gaussUnits) visibleDraw(v []float32, beta float32, mu []float32, st *kernel.Stream, z []float32, buf []uint32) {
	gaussians(z, st, buf)
	for i := range v {
		v[i] = u.mA[i] + beta*(mu[i]-u.mA[i]) + u.sig[i]*z[i]
	}
}

// gaussians fills z with standard normal draws from st by the Box–Muller
// transform: pair p takes two draws a, b (Uint32s of 2⌈len(z)/2⌉ into buf),
// u = (a + ½)·2⁻³², w = (b + ½)·2⁻³² in (0, 1), and gives √(−2 log u)·cos(2πw)
// and √(−2 log u)·sin(2πw) (the second dropped when len(z) is odd), in
// float64. u ≥ 2⁻³³ truncates the pair's radius at 6.8: the probability
// mass cut off is 2⁻³³ ≈ 1.2e-10 per pair.
func gaussians(z []float32, st *kernel.Stream, buf []uint32) {
	n := 2 * ((len(z) + 1) / 2)
	buf = buf[:n]
	st.Uint32s(buf)
	for p := 0; p < n; p += 2 {
		u := (float64(buf[p]) + 0.5) * (1.0 / (1 << 32))
		w := (float64(buf[p+1]) + 0.5) * (1.0 / (1 << 32))
		rad := math.Sqrt(-2 * math.Log(u))
		s, c := math.Sincos(2 * math.Pi * w)
		z[p] = float32(rad * c)
		if p+1 < len(z) {
			z[p+1] = float32(rad * s)
		}
	}
}

func (u *gaussUnits) load(b *chainBlock, i int, rows *data.Set, r int) {
	X := u.m.X
	copy(b.x[i*X:(i+1)*X], rows.Real[r*X:(r+1)*X])
}

// RAISE: p̂(v) = p_A(v_0) · Π_k p*_{β_k}(v_k) / p*_{β_k}(v_{k−1}), each
// log p*_β in full (logPStar), and log p_A(v_0) = −Q_A(v_0) − Σ_i ½·log(2πσ_i²).
func (u *gaussUnits) raiseStart(b *chainBlock, i int) float64 { return 0 }

func (u *gaussUnits) raiseUp(b *chainBlock, i int, beta float32, logp float64) float64 {
	return logp + u.logPStar(b, i, beta)
}

func (u *gaussUnits) raiseDown(b *chainBlock, i int, beta float32, logp float64) float64 {
	return logp - u.logPStar(b, i, beta)
}

func (u *gaussUnits) raiseEnd(b *chainBlock, i int, logp float64) float64 {
	X := u.m.X
	return logp - quadratic(b.x[i*X:(i+1)*X], u.mA, u.p64) - u.logs
}

// logPStar returns log p*_β(v) of chain i given its hidden input a (b.s1
// is scratch).
func (u *gaussUnits) logPStar(b *chainBlock, i int, beta float32) float64 {
	H, X := u.m.H, u.m.X
	v := b.x[i*X : (i+1)*X]
	bt := float64(beta)
	lp := -(1-bt)*quadratic(v, u.mA, u.p64) - bt*quadratic(v, u.m.VisibleBias, u.p64)
	clear(b.s1)
	kernel.Axpy(b.s1, beta, b.a[i*H:(i+1)*H])
	kernel.Softplus(b.s1, b.s1)
	return lp + sum64(b.s1)
}

// marginalStep is (bk − bp)·Σ_i (μ_i² − b_i²)/(2σ_i²), μ = b.v = b + Ch,
// and the draw v ~ N(μ, σ²/bk) (none at bk = 0, where the hidden draw
// that follows does not read v).
func (u *gaussUnits) marginalStep(b *chainBlock, i int, bk, bp float32, draw bool) float64 {
	X := u.m.X
	mu := b.v[i*X : (i+1)*X]
	var q float64
	for j, x := range mu {
		c := float64(u.m.VisibleBias[j])
		q += (float64(x) - c) * (float64(x) + c) * u.p64[j]
	}
	if draw && bk > 0 {
		gaussians(b.z, &b.st[i], b.zbuf)
		sd := float32(1 / math.Sqrt(float64(bk)))
		v := b.x[i*X : (i+1)*X]
		for j := range v {
			v[j] = mu[j] + u.sig[j]*sd*b.z[j]
		}
	}
	return (float64(bk) - float64(bp)) * q / 2
}

// marginalConst is Σ_i ½·log(2πσ_i²), the Gaussian integral at β = 1.
func (u *gaussUnits) marginalConst() float64 { return u.logs }

// checkRoutes: the hidden marginal from free hidden units (its visible
// draws, of variance σ²/β, are broad early on) and from the data's hidden
// base. A visible base of zero means would be no broader than the data's
// own: it has the model's σ.
func (u *gaussUnits) checkRoutes() []Route { return []Route{RouteHidden, RouteHiddenData} }

// checkRealData validates n rows of X finite real values.
func checkRealData(v []float32, n, X int) error {
	if n < 0 {
		return fmt.Errorf("eval: negative number of rows %d", n)
	}
	if X > 0 && n > math.MaxInt/X {
		return fmt.Errorf("eval: %d rows of %d units is too large", n, X)
	}
	if len(v) != n*X {
		return fmt.Errorf("eval: real-valued data has %d values, want %d rows × %d units = %d", len(v), n, X, n*X)
	}
	for k, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("eval: data row %d unit %d has value %v; want a finite number", k/X, k%X, x)
		}
	}
	return nil
}

// BaseMean returns the mean of each of the X units over the n real-valued
// rows of v (summed in float64): the visible biases (means) of the
// Gaussian base model that AIS and RAISE start from for a Gaussian model
// (AISConfig.BaseBias).
func BaseMean(v []float32, n, X int) ([]float32, error) {
	if X <= 0 {
		return nil, fmt.Errorf("eval: base mean needs X > 0 units (have %d)", X)
	}
	if n == 0 {
		return nil, errors.New("eval: base mean needs at least one row")
	}
	if err := checkRealData(v, n, X); err != nil {
		return nil, err
	}
	s := make([]float64, X)
	for r := 0; r < n; r++ {
		for i, x := range v[r*X : (r+1)*X] {
			s[i] += float64(x)
		}
	}
	mu := make([]float32, X)
	for i := range mu {
		mu[i] = float32(s[i] / float64(n))
	}
	return mu, nil
}
