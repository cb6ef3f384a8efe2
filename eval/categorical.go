package eval

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/kernel"
)

// categoricalUnits are categorical visible units: the model's Groups
// partition the visible units, each group a categorical attribute in
// one-hot form, and given h group g's unit k is the one on with
// probability softmax_k(d_gk + (Ch)_gk). A state has exactly one unit on
// in each group, so the model puts no mass on any other binary vector: a
// binary RBM on the same rows spreads its mass over every binary vector,
// and both NLLs are of the same observed rows, so they compare directly.
type categoricalUnits struct {
	binaryStates
	// The exact sum: C's columns, C_·j for hidden unit j (H×X,
	// hidden-major), and the visible biases, in float64.
	rows, d []float64
	g32     []int32 // AIS and RAISE: Groups for kernel.SoftmaxSample
}

func (u *categoricalUnits) validate() error {
	m := u.m
	if m.Sigma != nil {
		return errors.New("eval: model has Sigma but categorical visible units (Sigma is for Gaussian ones)")
	}
	if m.Groups == nil {
		return errors.New("eval: a model of categorical visible units needs its Groups")
	}
	if err := m.Groups.Check(m.X); err != nil {
		return fmt.Errorf("eval: model Groups: %w", err)
	}
	return nil
}

// checkRows checks binary rows whose groups (rows.Groups, and one group of
// label units when the set has them) are the model's first groups, with
// extra units left for a last group of label units, and that every row has
// one unit on in each group.
func (u *categoricalUnits) checkRows(rows *data.Set, extra int) error {
	m := u.m
	if err := checkShape(m, rows, extra); err != nil {
		return err
	}
	if err := m.Visible.Accepts(rows); err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	if err := checkData(rows.X, rows.N, rows.D); err != nil {
		return err
	}
	want := slices.Clone(rows.Groups)
	if rows.LabelUnits > 0 {
		want = append(want, rows.D)
	}
	if extra > 0 {
		want = append(want, m.X)
	}
	if !slices.Equal(want, m.Groups) {
		return fmt.Errorf("eval: %s: the groups of the rows %v (with %d label units in the rows and %d after them) are not the model's %v",
			rows.Name, rows.Groups, rows.LabelUnits, extra, m.Groups)
	}
	if L := rows.LabelUnits; L > 0 {
		// The label units, one group: one on in every row.
		if err := (data.Groups{rows.D - L, rows.D}).CheckRows(rows.X, rows.N, rows.D); err != nil {
			return fmt.Errorf("eval: %s: label units: %w", rows.Name, err)
		}
	}
	return nil
}

// labels requires the last L units to be the model's last group.
func (u *categoricalUnits) labels(L int) error {
	g := u.m.Groups
	if L < 1 || g[len(g)-2] != u.m.X-L {
		return fmt.Errorf("eval: %d label units, but the model's last group is units %d…%d", L, g[len(g)-2], u.m.X-1)
	}
	return nil
}

// exact sums over the 2^H hidden states, each group summed analytically
// given h: the term of h is bᵀh + Σ_g logsumexp_k(d_gk + u_gk) with u = Ch
// kept in float64.
func (u *categoricalUnits) exact() exactSum {
	m := u.m
	u.rows, u.d = transposed64(m), widen(m.VisibleBias)
	return exactSum{n: m.H, other: m.X, bias: widen(m.HiddenBias)}
}

// layerRows returns the exact sum's rows, C's columns; G has no constant.
func (u *categoricalUnits) layerRows() ([]float64, float64) {
	u.exact()
	return u.rows, 0
}

func (u *categoricalUnits) exactFresh(s *exactScratch, act []int32) {
	freshRows64(s.u, u.rows, act)
}

func (u *categoricalUnits) exactFlip(s *exactScratch, j int, on bool) {
	X := u.m.X
	flipRow64(s.u, u.rows[j*X:(j+1)*X], on)
}

func (u *categoricalUnits) exactTerm(s *exactScratch) float64 { return u.layerLogZ(s.u) }

// layerLogZ is Σ_g logsumexp_k(d_gk + v_gk) in float64.
func (u *categoricalUnits) layerLogZ(v []float64) float64 {
	g := u.m.Groups
	var t float64
	for k := 0; k < g.Len(); k++ {
		lo, hi := g[k], g[k+1]
		mx := math.Inf(-1)
		for i := lo; i < hi; i++ {
			mx = math.Max(mx, u.d[i]+v[i])
		}
		var e float64
		for i := lo; i < hi; i++ {
			e += math.Exp(u.d[i] + v[i] - mx)
		}
		t += mx + math.Log(e)
	}
	return t
}

// fitBase returns d_A = the log of each unit's frequency within its group,
// smoothed by BasePseudoCount·N added to every unit's count: p_gk =
// (count_gk + αN)/(N + K_g·αN) for a group of K_g units, so that a group of
// two units is DataBaseRate's model.
func (u *categoricalUnits) fitBase(train *data.Set) ([]float32, error) {
	n, X := train.N, u.m.X
	if n == 0 {
		return nil, errors.New("eval: the base model of categorical units needs at least one training row")
	}
	cnt := make([]int, X)
	for r := 0; r < n; r++ {
		for j, v := range train.X[r*X : (r+1)*X] {
			cnt[j] += int(v)
		}
	}
	alpha := BasePseudoCount * float64(n)
	g := u.m.Groups
	dA := make([]float32, X)
	for k := 0; k < g.Len(); k++ {
		den := float64(n) + float64(g.Size(k))*alpha
		for j := g[k]; j < g[k+1]; j++ {
			dA[j] = float32(math.Log((float64(cnt[j]) + alpha) / den))
		}
	}
	return dA, nil
}

// anneal prepares the base model of independent groups, group g drawn from
// softmax(d_A_g): log Z_A = Σ_g logsumexp_k d_A_gk + H·log 2.
func (u *categoricalUnits) anneal(dA []float32) (float64, []float32, error) {
	if err := u.checkBase(dA); err != nil {
		return 0, nil, err
	}
	g := u.m.Groups
	var lz float64
	for k := 0; k < g.Len(); k++ {
		v := make([]float64, g.Size(k))
		for i := range v {
			v[i] = float64(u.dA[g[k]+i])
		}
		lz += logSumExp(v)
	}
	u.spA = lz
	u.g32 = make([]int32, len(g))
	for k, o := range g {
		u.g32[k] = int32(o)
	}
	return lz + float64(u.m.H)*math.Ln2, u.dd32, nil
}

// start draws each group from softmax(d_A_g).
func (u *categoricalUnits) start(b *chainBlock, i int) {
	X := u.m.X
	kernel.SoftmaxSample(b.prob[:X], b.x[i*X:(i+1)*X], u.dA, u.g32, &b.st[i])
}

// draw draws each group from softmax((1−β)d_A_g + β(d + Cᵀh)_g).
func (u *categoricalUnits) draw(b *chainBlock, i int, beta float32) {
	X := u.m.X
	kernel.SoftmaxSample(b.prob[:X], b.x[i*X:(i+1)*X], u.pre(b, i, beta), u.g32, &b.st[i])
}

// marginalStep is Σ_g logsumexp_k(bk·v_gk) − logsumexp_k(bp·v_gk), in
// float64, and the draw of each group from softmax(bk·v_g): by the series
// of lseDiffTaylor from the draw's probabilities where every group's
// |Δβ|·(range of v_g) is small, else from two log-sum-exps per group.
func (u *categoricalUnits) marginalStep(b *chainBlock, i int, bk, bp float32, draw bool) float64 {
	X := u.m.X
	v := b.v[i*X : (i+1)*X]
	clear(b.sx)
	kernel.Axpy(b.sx, bk, v)
	if draw {
		kernel.SoftmaxSample(b.prob[:X], b.x[i*X:(i+1)*X], b.sx, u.g32, &b.st[i])
	} else {
		kernel.Softmax(b.prob[:X], b.sx, u.g32)
	}
	g := u.m.Groups
	if d, ok := lseDiffTaylor(float64(bk)-float64(bp), v, b.prob[:X], g); ok && taylorWeights {
		return d
	}
	var d float64
	for k := 0; k < g.Len(); k++ {
		d += scaledLogSumExp(v[g[k]:g[k+1]], float64(bk)) - scaledLogSumExp(v[g[k]:g[k+1]], float64(bp))
	}
	return d
}

// lseDiffTaylor returns Σ_g logsumexp(β_k·v_g) − logsumexp((β_k − db)·v_g)
// by the Taylor series of β ↦ logsumexp(β·v_g) about β_k to third order,
//
//	db·m1 − db²/2·m2 + db³/6·m3,
//
// m1, m2 and m3 the mean, variance and third central moment of v_g under
// the group's probabilities p = softmax(β_k·v_g) (the derivatives of the
// log-sum-exp), in float64. The first omitted term is at most
// (db·r)⁴/192 for a group of range r (its fourth cumulant is at most r⁴/8
// in size), below 3.3e-9 at db·r ≤ aisTaylorMax: as accurate as the
// softplus series of binary units. ok is false, and the sum meaningless,
// when some group's |db|·r exceeds that.
func lseDiffTaylor(db float64, v, p []float32, g data.Groups) (sum float64, ok bool) {
	for k := 0; k < g.Len(); k++ {
		lo, hi := math.Inf(1), math.Inf(-1)
		var m1 float64
		for j := g[k]; j < g[k+1]; j++ {
			x := float64(v[j])
			lo, hi = math.Min(lo, x), math.Max(hi, x)
			m1 += float64(p[j]) * x
		}
		if math.Abs(db)*(hi-lo) > aisTaylorMax {
			return 0, false
		}
		var m2, m3 float64
		for j := g[k]; j < g[k+1]; j++ {
			e := float64(v[j]) - m1
			m2 += float64(p[j]) * e * e
			m3 += float64(p[j]) * e * e * e
		}
		sum += db*m1 - db*db*0.5*m2 + db*db*db*(1.0/6)*m3
	}
	return sum, true
}

// scaledLogSumExp returns log Σ_k exp(beta·v_k) in float64.
func scaledLogSumExp(v []float32, beta float64) float64 {
	mx := math.Inf(-1)
	for _, x := range v {
		mx = math.Max(mx, beta*float64(x))
	}
	var s float64
	for _, x := range v {
		s += math.Exp(beta*float64(x) - mx)
	}
	return mx + math.Log(s)
}

// marginalConst is G_0 = Σ_g log K_g.
func (u *categoricalUnits) marginalConst() float64 {
	g := u.m.Groups
	var c float64
	for k := 0; k < g.Len(); k++ {
		c += math.Log(float64(g.Size(k)))
	}
	return c
}
