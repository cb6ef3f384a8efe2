package engine

import (
	"math"
	"testing"

	"github.com/ncg-rbm/ncg/kernel"
	"github.com/ncg-rbm/ncg/unit"
)

// A float64 reference of one minibatch, as docs/algorithm.md states it,
// that the engine must match to within float32 rounding.

// refState is what the reference carries from one minibatch to the next
// beside the model: the epoch, momentum's velocities (visible-major like W;
// nil without momentum) and PT's chains (temperature-major, [k][slot][X]).
type refState struct {
	epoch      int
	vW, vB, vV []float64
	chains     []float64
	lambda     []float64 // a centred run's hidden offsets (nil: ½ each)
}

// reference runs one CD-k minibatch exactly as docs/algorithm.md ("One minibatch") states it, in
// float64 loops over the paper's H×X indexing, drawing the same uniforms
// as the engine (the same streams, consumed call by call), and applies the
// update to a copy of m. With momentum, weight decay, a learning-rate
// schedule or parallel tempering it follows their definitions in
// docs/training.md: the step s = g − L2·w − L1·sign(w) of the mean
// gradient g, v = μv + s, w += α·v·a (biases: no decay; A′: the plain
// gradient), PCD's chain continued from its persistent state, and PT's
// Gibbs steps at β·energy, then Metropolis swaps of neighbours with
// probability min(1, p_i(s_j)p_j(s_i)/(p_i(s_i)p_j(s_j))). DoubleUp and
// DoubleDown double the input (not the bias) of the hidden and of the
// visible units in every conditional of the chains.
func reference(t *testing.T, m0 *Model, cfg Config, d *Data, rows []int32, streams []kernel.Stream, in refState) (*Model, refState) {
	t.Helper()
	m := m0.Clone()
	X, H, D := m.X, m.H, m.DataUnits
	w := func(i, j int) float64 { return float64(m0.W[j*H+i]) }
	c := func(i, j int) float64 { return float64(m0.c[j*H+i]) }
	sig := func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }
	G := make([]float64, X*H) // [i*X+j]
	gb, gd := make([]float64, H), make([]float64, X)
	B := float64(len(rows))
	streams = append([]kernel.Stream(nil), streams...)
	out := refState{epoch: in.epoch, chains: append([]float64(nil), in.chains...)}
	pt := cfg.Sampler == ParallelTempering
	fu, fd := 1.0, 1.0 // the factors of the hidden and visible units' inputs
	if cfg.DoubleUp {
		fu = 2
	}
	if cfg.DoubleDown {
		fd = 2
	}
	M := cfg.Temperatures
	betas := make([]float64, M)
	for k := range betas { // the geometric ladder from 1 to MinBeta
		betas[k] = math.Exp(float64(k) / float64(M-1) * math.Log(cfg.MinBeta))
	}
	// Centred (docs/algorithm.md, "Centred training"): the visible offsets
	// are the data's means, the hidden ones carried in the state; zero
	// offsets leave every formula below uncentred.
	vOff, hOff := make([]float64, X), make([]float64, H)
	if cfg.Centre {
		for r := 0; r < d.N; r++ {
			for j := 0; j < D; j++ {
				vOff[j] += float64(d.X[r*D+j]) / float64(d.N)
			}
			if d.Classes > 0 {
				vOff[D+int(d.Labels[r])] += 1 / float64(d.N)
			}
		}
		for i := range hOff {
			hOff[i] = 0.5
		}
		if in.lambda != nil {
			copy(hOff, in.lambda)
		}
		out.lambda = append([]float64(nil), hOff...)
	}
	// Categorical units: the data's groups, and the label units as one
	// more group (nil: binary units).
	var groups []int
	if cfg.Visible == unit.Categorical {
		groups = append(groups, d.Groups...)
		if d.Classes > 0 {
			groups = append(groups, X)
		}
	}
	for s, r := range rows {
		st := &streams[s]
		x0 := make([]float64, X)
		for j := 0; j < D; j++ {
			x0[j] = float64(d.X[int(r)*D+j])
		}
		if d.Classes > 0 {
			x0[D+int(d.Labels[r])] = 1
		}
		sample := func(p []float64) []float64 {
			u := make([]float32, len(p))
			st.Uniforms(u)
			out := make([]float64, len(p))
			for k := range p {
				if float64(u[k]) < p[k] {
					out[k] = 1
				}
			}
			return out
		}
		upBeta := func(x []float64, beta float64) []float64 {
			p := make([]float64, H)
			for i := range p {
				var in float64
				for j := 0; j < X; j++ {
					in += c(i, j) * x[j]
				}
				p[i] = sig(beta * (float64(m0.HiddenBias[i]) + fu*in))
			}
			return p
		}
		up := func(x []float64) []float64 { return upBeta(x, 1) }
		down := func(h []float64) []float64 {
			p := make([]float64, X)
			for j := range p {
				var in float64
				for i := 0; i < H; i++ {
					in += c(i, j) * h[i]
				}
				p[j] = sig(float64(m0.VisibleBias[j]) + fd*in)
			}
			return p
		}
		// sampleVisible draws the visible units from their inputs
		// d + Cᵀh at inverse temperature β: binary units one by one,
		// categorical ones a unit of each group (one uniform a group),
		// the first whose cumulative softmax probability exceeds it.
		sampleVisible := func(h []float64, beta float64) []float64 {
			a := make([]float64, X)
			for j := range a {
				var in float64
				for i := 0; i < H; i++ {
					in += c(i, j) * h[i]
				}
				a[j] = beta * (float64(m0.VisibleBias[j]) + fd*in)
			}
			if groups == nil {
				p := make([]float64, X)
				for j := range p {
					p[j] = sig(a[j])
				}
				return sample(p)
			}
			u := make([]float32, len(groups)-1)
			st.Uniforms(u)
			out := make([]float64, X)
			for g := range u {
				g0, g1 := groups[g], groups[g+1]
				mx := math.Inf(-1)
				for _, v := range a[g0:g1] {
					mx = math.Max(mx, v)
				}
				var z float64
				for _, v := range a[g0:g1] {
					z += math.Exp(v - mx)
				}
				k, cum := g1-1, 0.0
				for j := g0; j < g1; j++ {
					cum += math.Exp(a[j]-mx) / z
					if cum > float64(u[g]) {
						k = j
						break
					}
				}
				out[k] = 1
			}
			return out
		}
		energies := make([]float64, M)
		hpos := up(x0)
		h := sample(hpos)
		x := x0
		if pt {
			for round := 0; round < cfg.K; round++ {
				for k := 0; k < M; k++ {
					st = &streams[cfg.Batch+k*cfg.Batch+s]
					xk := out.chains[(k*cfg.Batch+s)*X : (k*cfg.Batch+s+1)*X]
					hk := sample(upBeta(xk, betas[k]))
					copy(xk, sampleVisible(hk, betas[k]))
					// E(x, h) = −b·h − d·x − xᵀC h.
					var e float64
					for i := 0; i < H; i++ {
						e -= float64(m0.HiddenBias[i]) * hk[i]
						for j := 0; j < X; j++ {
							e -= xk[j] * c(i, j) * hk[i]
						}
					}
					for j := 0; j < X; j++ {
						e -= float64(m0.VisibleBias[j]) * xk[j]
					}
					energies[k] = e
				}
				st = &streams[s]
				u := make([]float32, M-1)
				st.Uniforms(u)
				for k := 0; k+1 < M; k++ {
					bi, bj, ei, ej := betas[k], betas[k+1], energies[k], energies[k+1]
					ratio := math.Exp(-bi*ej-bj*ei) / math.Exp(-bi*ei-bj*ej)
					if float64(u[k]) < math.Min(1, ratio) {
						a, b := out.chains[(k*cfg.Batch+s)*X:(k*cfg.Batch+s+1)*X], out.chains[((k+1)*cfg.Batch+s)*X:((k+1)*cfg.Batch+s+1)*X]
						for j := range a {
							a[j], b[j] = b[j], a[j]
						}
						energies[k], energies[k+1] = ej, ei
					}
				}
			}
			x = append([]float64(nil), out.chains[s*X:(s+1)*X]...)
		} else if cfg.SETProcedure == Mocanu {
			// The SET authors' statistics: the sampled h⁰; visible
			// probabilities (never sampled); the last hidden sample.
			hpos = h
			for step := 1; step <= cfg.K; step++ {
				x = down(h)
				h = sample(up(x))
			}
		} else {
			pcd := cfg.sampler() == PersistentCD
			if pcd { // the chain continues from its persistent state
				x = out.chains[s*X : (s+1)*X]
				h = sample(up(x))
			}
			for step := 1; step <= cfg.K; step++ {
				x = sampleVisible(h, 1)
				if step < cfg.K {
					h = sample(up(x))
				}
			}
		}
		if cfg.sampler() == PersistentCD {
			copy(out.chains[s*X:(s+1)*X], x)
		}
		hneg := up(x)
		if cfg.SETProcedure == Mocanu {
			hneg = h
		}
		for i := 0; i < H; i++ {
			for j := 0; j < X; j++ {
				G[i*X+j] += ((hpos[i]-hOff[i])*(x0[j]-vOff[j]) - (hneg[i]-hOff[i])*(x[j]-vOff[j])) / B
			}
			gb[i] += (hpos[i] - hneg[i]) / B
			if cfg.Centre {
				out.lambda[i] += HiddenOffsetRate * (hpos[i] - hOff[i]) / B
			}
		}
		for j := 0; j < X; j++ {
			gd[j] += (x0[j] - x[j]) / B
		}
	}
	// The epoch's learning rate and momentum.
	lr, mu := cfg.LR, cfg.Momentum
	e := float64(in.epoch)
	switch cfg.LRSchedule {
	case Linear:
		lr = cfg.LR*(1-e/float64(cfg.Epochs-1)) + cfg.LRFinal*e/float64(cfg.Epochs-1)
	case Step:
		for n := 0; n < in.epoch/cfg.LRStepEvery; n++ {
			lr *= cfg.LRStepFactor
		}
	}
	if in.epoch < cfg.MomentumEpochs {
		mu = cfg.MomentumStart
	}
	momentum := in.vW != nil
	biasL2 := 0.0 // the biases never decay, except in the SET authors' procedure
	if cfg.SETProcedure == Mocanu {
		biasL2 = cfg.L2
	}
	if momentum {
		out.vW, out.vB, out.vV = make([]float64, X*H), make([]float64, H), make([]float64, X)
	}
	// step returns the parameter's change and sets its new velocity.
	step := func(v0 []float64, vout []float64, k int, g, w, l2, l1, a float64) float64 {
		s := g - l2*w
		if w > 0 {
			s -= l1
		} else if w < 0 {
			s += l1
		}
		if momentum {
			s += mu * v0[k]
			vout[k] = s * a
		}
		return lr * s * a
	}
	// The centred biases b_c = b + C μ and d_c = d + Cᵀλ take the steps;
	// the ordinary ones follow from them and the new C at the end.
	bc, dc := make([]float64, H), make([]float64, X)
	for i := 0; i < H; i++ {
		bc[i] = float64(m0.HiddenBias[i])
		for j := 0; j < X; j++ {
			bc[i] += c(i, j) * vOff[j]
		}
	}
	for j := 0; j < X; j++ {
		dc[j] = float64(m0.VisibleBias[j])
		for i := 0; i < H; i++ {
			dc[j] += c(i, j) * hOff[i]
		}
	}
	for i := 0; i < H; i++ {
		for j := 0; j < X; j++ {
			k := j*H + i
			g := G[i*X+j]
			label := j >= D
			switch {
			case cfg.Method == Dense || label:
				m.W[k] = float32(w(i, j) + step(in.vW, out.vW, k, g, w(i, j), cfg.L2, cfg.L1, 1))
			case cfg.Method == NCG:
				m.W[k] = float32(w(i, j) + step(in.vW, out.vW, k, g, w(i, j), cfg.L2, cfg.L1, float64(m0.A[k])))
				ap := math.Min(math.Max(float64(m0.AP[k])+cfg.LRConn*g*w(i, j), 0), 1)
				m.AP[k] = float32(ap)
				m.A[k] = 0
				if ap >= cfg.Gamma {
					m.A[k] = 1
				}
			default:
				m.W[k] = float32(w(i, j) + step(in.vW, out.vW, k, g, w(i, j), cfg.L2, cfg.L1, float64(m0.A[k])))
			}
			m.c[k] = m.W[k] * m.A[k]
		}
		bc[i] += step(in.vB, out.vB, i, gb[i], float64(m0.HiddenBias[i]), biasL2, 0, 1)
	}
	for j := 0; j < X; j++ {
		dc[j] += step(in.vV, out.vV, j, gd[j], float64(m0.VisibleBias[j]), biasL2, 0, 1)
	}
	for i := 0; i < H; i++ {
		for j := 0; j < X; j++ {
			bc[i] -= float64(m.c[j*H+i]) * vOff[j]
		}
		m.HiddenBias[i] = float32(bc[i])
	}
	for j := 0; j < X; j++ {
		for i := 0; i < H; i++ {
			dc[j] -= float64(m.c[j*H+i]) * hOff[i]
		}
		m.VisibleBias[j] = float32(dc[j])
	}
	return m, out
}

func TestMinibatchMatchesSpec(t *testing.T) {
	for _, method := range allMethods {
		for _, classes := range []int{0, 3} {
			d := randomData(3, 40, 21, classes)
			cfg := smallConfig(method)
			cfg.Hidden, cfg.Batch, cfg.K = 7, 5, 3
			tr, err := New(cfg, d)
			if err != nil {
				t.Fatal(err)
			}
			rows := []int32{4, 17, 0, 33, 9}
			m0 := tr.Model().Clone()
			streams := append([]kernel.Stream(nil), tr.streams...)
			if _, err := tr.Step(rows); err != nil {
				t.Fatal(err)
			}
			tr.Close()
			want, _ := reference(t, m0, cfg, d, rows, streams, refState{})
			got := tr.Model()
			cmp := func(name string, a, b []float32, tol float64) {
				t.Helper()
				for k := range a {
					if math.Abs(float64(a[k]-b[k])) > tol {
						t.Fatalf("%s classes=%d: %s[%d] = %g, want %g", method, classes, name, k, a[k], b[k])
					}
				}
			}
			cmp("W", got.W, want.W, 1e-5)
			cmp("A", got.A, want.A, 0)
			cmp("C", got.c, want.c, 1e-5)
			cmp("b", got.HiddenBias, want.HiddenBias, 1e-5)
			cmp("d", got.VisibleBias, want.VisibleBias, 1e-5)
			if method == NCG {
				cmp("A′", got.AP, want.AP, 1e-5)
			}
			// The copies the products read follow C.
			if msg := copiesFollowC(got); msg != "" {
				t.Fatal(msg)
			}
		}
	}
}
