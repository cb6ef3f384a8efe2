package eval

import (
	"math"
	"math/rand/v2"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/unit"
)

// randomStack returns RBMs of the given layer sizes (visible first), with
// weights ~ N(0, scale²) and every bias ~ N(0, 1/4): both biases of an
// intermediate layer are non-zero, so that a DBM's sum of them is tested.
func randomStack(sizes []int, scale float64, seed uint64) []*Model {
	rng := rand.New(rand.NewPCG(seed, 1234))
	var layers []*Model
	for l := 0; l+1 < len(sizes); l++ {
		X, H := sizes[l], sizes[l+1]
		m := &Model{X: X, H: H, C: make([]float32, X*H), HiddenBias: make([]float32, H), VisibleBias: make([]float32, X)}
		for k := range m.C {
			m.C[k] = float32(rng.NormFloat64() * scale)
		}
		for k := range m.HiddenBias {
			m.HiddenBias[k] = float32(rng.NormFloat64() * 0.5)
		}
		for k := range m.VisibleBias {
			m.VisibleBias[k] = float32(rng.NormFloat64() * 0.5)
		}
		layers = append(layers, m)
	}
	return layers
}

// bruteBias returns a DBM's bias of layer l from the definition: the
// visible biases for l = 0, the top RBM's hidden biases for the top, and
// the sum of the hidden biases of the RBM below and the visible biases of
// the RBM above otherwise, in float64.
func bruteBias(d *DBM, l int) []float64 {
	L := len(d.Layers)
	var b []float64
	switch {
	case l == 0:
		for _, v := range d.Layers[0].VisibleBias {
			b = append(b, float64(v))
		}
	case l == L:
		for _, v := range d.Layers[L-1].HiddenBias {
			b = append(b, float64(v))
		}
	default:
		for i, v := range d.Layers[l-1].HiddenBias {
			b = append(b, float64(v)+float64(d.Layers[l].VisibleBias[i]))
		}
	}
	return b
}

// bruteDBMHidden returns, for binary hidden layers h[1…L] (h[0] the
// visible state of binary or categorical units), the DBM's −E(h) =
// Σ_l b^lᵀh^l + Σ_l h^lᵀC^l h^{l+1}, in float64.
func bruteDBMNegEnergy(d *DBM, h [][]float64) float64 {
	var e float64
	for l := range h {
		for i, b := range bruteBias(d, l) {
			e += b * h[l][i]
		}
	}
	for l, m := range d.Layers {
		for j := 0; j < m.X; j++ {
			for i := 0; i < m.H; i++ {
				e += h[l][j] * float64(m.C[j*m.H+i]) * h[l+1][i]
			}
		}
	}
	return e
}

// bitStates returns the n low bits of code as 0/1 values.
func bitStates(code, n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = float64(code >> i & 1)
	}
	return s
}

// forEachHidden calls fn with every joint state of layers 1…L of sizes.
func forEachHidden(sizes []int, fn func(h [][]float64)) {
	total := 0
	for _, s := range sizes[1:] {
		total += s
	}
	for code := 0; code < 1<<total; code++ {
		h := make([][]float64, len(sizes))
		c := code
		for l := 1; l < len(sizes); l++ {
			h[l] = bitStates(c, sizes[l])
			c >>= sizes[l]
		}
		fn(h)
	}
}

// visibleStates returns every visible state of a binary or categorical
// layer (one-hot in each group).
func visibleStates(m *Model) [][]float64 {
	if m.Visible != unit.Categorical {
		var out [][]float64
		for c := 0; c < 1<<m.X; c++ {
			out = append(out, bitStates(c, m.X))
		}
		return out
	}
	out := [][]float64{make([]float64, m.X)}
	g := m.Groups
	for k := 0; k < g.Len(); k++ {
		var next [][]float64
		for _, s := range out {
			for j := g[k]; j < g[k+1]; j++ {
				t := append([]float64(nil), s...)
				t[j] = 1
				next = append(next, t)
			}
		}
		out = next
	}
	return out
}

// bruteDBMJoint returns log Σ exp(−E) over every joint state of a DBM of
// binary or categorical visible units with layer 0 fixed to x (nil: every
// visible state too), in float64.
func bruteDBMJoint(d *DBM, x []float64) float64 {
	sizes := stackSizes(d.Layers)
	xs := [][]float64{x}
	if x == nil {
		xs = visibleStates(d.Layers[0])
	}
	var terms []float64
	forEachHidden(sizes, func(h [][]float64) {
		for _, v := range xs {
			h[0] = v
			terms = append(terms, bruteDBMNegEnergy(d, h))
		}
	})
	return logSumExp(terms)
}

// bruteGaussDBMLogZ returns log Z of a DBM of Gaussian visible units:
// over every hidden state, the hidden terms of −E plus the integral over
// v of exp(−Σ_i (v_i − b_i)²/(2σ_i²) + Σ_i (v_i/σ_i²)(C⁰h¹)_i), which
// completing the square gives as Σ_i (μ_i² − b_i²)/(2σ_i²) + ½·log(2πσ_i²),
// μ = b + C⁰h¹.
func bruteGaussDBMLogZ(d *DBM) float64 {
	sizes := stackSizes(d.Layers)
	m0 := d.Layers[0]
	var terms []float64
	forEachHidden(sizes, func(h [][]float64) {
		h[0] = make([]float64, sizes[0]) // no visible terms in −E
		t := bruteDBMNegEnergy(d, h)
		for i := 0; i < m0.X; i++ {
			b, s := float64(m0.VisibleBias[i]), m0.sigma(i)
			mu := b
			for j := 0; j < m0.H; j++ {
				mu += float64(m0.C[i*m0.H+j]) * h[1][j]
			}
			t += (mu*mu-b*b)/(2*s*s) + 0.5*math.Log(2*math.Pi*s*s)
		}
		terms = append(terms, t)
	})
	return logSumExp(terms)
}

// dbmRows returns every visible state of a binary DBM (2^X rows) as a set.
func allBinaryRows(X int) *data.Set {
	n := 1 << X
	x := make([]uint8, n*X)
	for r := 0; r < n; r++ {
		for j := 0; j < X; j++ {
			x[r*X+j] = uint8(r >> j & 1)
		}
	}
	return binRows(x, n, X)
}

// rowState returns row r of a binary set as float64 values.
func rowState(rows *data.Set, r int) []float64 {
	s := make([]float64, rows.D)
	for j, v := range rows.X[r*rows.D : (r+1)*rows.D] {
		s[j] = float64(v)
	}
	return s
}

// bruteVisibleNegEnergy returns the visible layer's own terms of −E and
// its input to layer 1 (C⁰ᵀ·x, or C⁰ᵀ·(v/σ²) for Gaussian units), from
// the definitions in Model, in float64.
func bruteVisibleNegEnergy(m *Model, v []float64) (e float64, in []float64) {
	in = make([]float64, m.H)
	for j := 0; j < m.X; j++ {
		x := v[j]
		if m.Visible == unit.Gaussian {
			b, s := float64(m.VisibleBias[j]), m.sigma(j)
			e -= (x - b) * (x - b) / (2 * s * s)
			x /= s * s
		} else {
			e += float64(m.VisibleBias[j]) * x
		}
		for i := 0; i < m.H; i++ {
			in[i] += x * float64(m.C[j*m.H+i])
		}
	}
	return e, in
}

// bruteDBMLogJoint returns −E(v, h) of a DBM for hidden states h[1…L]
// (h[0] ignored) and a visible row v of any unit type.
func bruteDBMLogJoint(d *DBM, v []float64, h [][]float64) float64 {
	e, in := bruteVisibleNegEnergy(d.Layers[0], v)
	h[0] = make([]float64, len(v)) // the hidden terms alone
	e += bruteDBMNegEnergy(d, h)
	for i, a := range in {
		e += a * h[1][i]
	}
	return e
}

// rowFloat64 returns row r of a binary or real-valued set in float64.
func rowFloat64(rows *data.Set, r int) []float64 {
	if rows.Real != nil {
		v := make([]float64, rows.D)
		for j, x := range rows.Real[r*rows.D : (r+1)*rows.D] {
			v[j] = float64(x)
		}
		return v
	}
	return rowState(rows, r)
}

// sigmoid64 is σ(x) in float64.
func sigmoid64(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
