package engine

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ncg-rbm/ncg/unit"
)

// jointOnly returns a DBM trainer in joint training (no pre-training
// epochs) with sizes n (visible first) on d.
func jointOnly(t *testing.T, d *Data, n []int, method Method, j JointConfig) *StackTrainer {
	t.Helper()
	var layers []Config
	for l := 1; l < len(n); l++ {
		c := smallConfig(method)
		c.Hidden, c.Epochs, c.P, c.Gamma, c.LRConn = n[l], 0, 0.7, 0.5, 0.3
		c.Init, c.InitScale = Normal, 1
		if l == 1 && d.Real != nil {
			c.Visible = unit.Gaussian // σ = 1
		}
		layers = append(layers, c)
	}
	je := j
	je.Epochs = 0
	tr, err := NewStack(StackConfig{Kind: DBM, Layers: layers, Seed: 11, Joint: je, Workers: 2}, d)
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Train(context.Background(), StackOptions{}); err != nil {
		t.Fatal(err)
	}
	tr.joint.cfg = j
	return tr
}

func sigmoid64(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// refMeanField is the positive phase in float64, written from its
// definition: a bottom-up pass with doubled input below the top, then
// sweeps from the bottom layer up with input from both neighbours.
func refMeanField(rbms []*Model, bias [][]float64, v []float64, iters int) [][]float64 {
	L := len(rbms)
	mu := make([][]float64, L+1)
	mu[0] = v
	input := func(l int, withAbove bool) []float64 {
		below, m := rbms[l-1], rbms[l-1]
		out := make([]float64, below.H)
		for i := range out {
			s := 0.0
			for j := 0; j < m.X; j++ {
				s += mu[l-1][j] * float64(m.W[j*m.H+i]*m.A[j*m.H+i])
			}
			out[i] = s
		}
		if withAbove && l < L {
			up := rbms[l]
			for i := range out {
				s := 0.0
				for k := 0; k < up.H; k++ {
					s += float64(up.W[i*up.H+k]*up.A[i*up.H+k]) * mu[l+1][k]
				}
				out[i] += s
			}
		}
		return out
	}
	for l := 1; l <= L; l++ {
		f := 2.0
		if l == L {
			f = 1
		}
		in := input(l, false)
		mu[l] = make([]float64, len(in))
		for i, x := range in {
			mu[l][i] = sigmoid64(bias[l][i] + f*x)
		}
	}
	for it := 0; it < iters; it++ {
		for l := 1; l <= L; l++ {
			in := input(l, true)
			for i, x := range in {
				mu[l][i] = sigmoid64(bias[l][i] + x)
			}
		}
	}
	return mu
}

// TestDBMStepMatchesReference runs one joint minibatch of a 3-layer DBM
// and compares every new weight, connection strength and bias with the
// step computed in float64 from the definitions: the mean field of the
// old parameters, the chains' states after their sweeps (read back), and
// the NCG update of each matrix.
func TestDBMStepMatchesReference(t *testing.T) {
	n := []int{9, 6, 21, 4}
	for _, c := range []struct {
		method        Method
		centre, gauss bool
	}{{Dense, false, false}, {NCG, false, false}, {Dense, true, false}, {NCG, true, false}, {NCG, false, true}} {
		method := c.method
		// Binary data, or Gaussian visible units of σ = 1 on real data
		// (their mean is their input, the rest of the step the same).
		d, value, mean := randomData(3, 40, 9, 0), func(d *Data, i int) float64 { return float64(d.X[i]) }, sigmoid64
		if c.gauss {
			d, value, mean = gaussData(3, 40, 9), func(d *Data, i int) float64 { return float64(d.Real[i]) }, func(a float64) float64 { return a }
		}
		// More rows and chains than a block, so that the blocks' tasks
		// and the reconstruction error's block sums count.
		j := JointConfig{Batch: 11, Chains: 10, MeanField: 3, Gibbs: 2, LR: 0.3, Centre: c.centre}
		tr := jointOnly(t, d, n, method, j)
		// Biases away from their start at 0, so that every layer's counts.
		brng := rand.New(rand.NewPCG(7, 8))
		for l := range n {
			for u := range tr.joint.bias[l] {
				tr.joint.bias[l][u] = brng.Float32() - 0.5
			}
		}
		if c.centre {
			// Offsets away from their start, so that every term counts.
			rng := rand.New(rand.NewPCG(5, 6))
			for l := 1; l < len(n); l++ {
				for u := range tr.joint.ctr.lambda[l] {
					tr.joint.ctr.lambda[l][u] = rng.Float32()
				}
			}
		}
		lambda := make([][]float64, len(n))
		for l := range n {
			lambda[l] = make([]float64, n[l])
			if c.centre {
				for u, v := range tr.joint.ctr.lambda[l] {
					lambda[l][u] = float64(v)
				}
			}
		}
		rbms := tr.joint.rbms
		oldC := make([][]float32, len(rbms))
		for k, m := range rbms {
			oldC[k] = append([]float32(nil), m.C()...)
		}
		type snap struct{ w, a, ap []float32 }
		old := make([]snap, len(rbms))
		for k, m := range rbms {
			old[k] = snap{append([]float32(nil), m.W...), append([]float32(nil), m.A...), append([]float32(nil), m.AP...)}
		}
		bias := make([][]float64, len(n))
		for l := range n {
			for _, b := range tr.joint.bias[l] {
				bias[l] = append(bias[l], float64(b))
			}
		}
		rows := []int32{4, 17, 0, 33, 8, 21, 2, 39, 12, 5, 26}
		mus := make([][][]float64, len(rows))
		for r, row := range rows {
			v := make([]float64, n[0])
			for k := range v {
				v[k] = value(d, int(row)*n[0]+k)
			}
			mus[r] = refMeanField(rbms, bias, v, j.MeanField)
		}
		if err := tr.Step(rows); err != nil {
			t.Fatal(err)
		}
		tr.Close()
		// The step's reconstruction error: Σ (v − σ(d + C⁰μ¹))² over the rows.
		wantRecon := 0.0
		for r, row := range rows {
			for x := 0; x < n[0]; x++ {
				a := bias[0][x]
				for h := 0; h < n[1]; h++ {
					a += float64(oldC[0][x*n[1]+h]) * mus[r][1][h]
				}
				dv := value(d, int(row)*n[0]+x) - mean(a)
				wantRecon += dv * dv
			}
		}
		if got := tr.joint.reconSum; math.Abs(got-wantRecon) > 1e-5*(1+wantRecon) {
			t.Fatalf("%s: reconstruction error %v, want %v", method, got, wantRecon)
		}
		s := tr.joint.s
		B, M := float64(len(rows)), float64(j.Chains)
		gb := make([][]float64, len(n))
		for l := range n {
			gb[l] = make([]float64, n[l])
			for i := range gb[l] {
				for r := range rows {
					gb[l][i] += mus[r][l][i]
				}
				for c := 0; c < j.Chains; c++ {
					gb[l][i] -= B / M * float64(s[l][c*n[l]+i])
				}
			}
		}
		for k, m := range rbms {
			for a := 0; a < n[k]; a++ {
				for b := 0; b < n[k+1]; b++ {
					g := 0.0
					for r := range rows {
						g += mus[r][k][a] * mus[r][k+1][b]
					}
					for c := 0; c < j.Chains; c++ {
						g -= B / M * float64(s[k][c*n[k]+a]*s[k+1][c*n[k+1]+b])
					}
					g -= gb[k][a]*lambda[k+1][b] + lambda[k][a]*gb[k+1][b]
					idx := a*n[k+1] + b
					w0 := float64(old[k].w[idx])
					wantW := w0 + j.LR/B*g*float64(old[k].a[idx])
					if math.Abs(float64(m.W[idx])-wantW) > 1e-5 {
						t.Fatalf("%s: matrix %d W[%d,%d] = %v, want %v", method, k+1, a, b, m.W[idx], wantW)
					}
					// After Close, C is the new W under the mask.
					if c := m.C()[idx]; c != m.W[idx]*m.A[idx] {
						t.Fatalf("%s: matrix %d C[%d,%d] = %v, want W·A = %v", method, k+1, a, b, c, m.W[idx]*m.A[idx])
					}
					if method == NCG {
						lc := tr.joint.layers[k]
						ap := math.Min(math.Max(float64(old[k].ap[idx])+lc.LRConn/B*g*w0, 0), 1)
						if math.Abs(float64(m.AP[idx])-ap) > 1e-5 {
							t.Fatalf("matrix %d A′[%d,%d] = %v, want %v", k+1, a, b, m.AP[idx], ap)
						}
					}
				}
			}
		}
		for l := range n {
			for i := 0; i < n[l]; i++ {
				want := bias[l][i] + j.LR/B*gb[l][i]
				// The shift of the centred step: −ΔC_l λ_{l+1} − ΔC_{l−1}ᵀ λ_{l−1}.
				if l < len(rbms) {
					m := rbms[l]
					for o := 0; o < m.H; o++ {
						want -= float64(m.C()[i*m.H+o]-oldC[l][i*m.H+o]) * lambda[l+1][o]
					}
				}
				if l > 0 {
					m := rbms[l-1]
					for a := 0; a < m.X; a++ {
						want -= float64(m.C()[a*m.H+i]-oldC[l-1][a*m.H+i]) * lambda[l-1][a]
					}
				}
				if got := float64(tr.joint.bias[l][i]); math.Abs(got-want) > 1e-5 {
					t.Fatalf("%s, centre %v: bias of layer %d unit %d = %v, want %v", method, c.centre, l, i, got, want)
				}
				if c.centre && l > 0 {
					mean := 0.0
					for r := range rows {
						mean += mus[r][l][i] / B
					}
					wantL := (1-HiddenOffsetRate)*lambda[l][i] + HiddenOffsetRate*mean
					if got := float64(tr.joint.ctr.lambda[l][i]); math.Abs(got-wantL) > 1e-6 {
						t.Fatalf("%s: offset of layer %d unit %d = %v, want %v", method, l, i, got, wantL)
					}
				}
			}
		}
	}
}

// TestDBMChainsSampleTheModel runs the persistent chains of a small DBM
// with α = 0 and compares the frequency of every joint state with its
// probability by brute force. The total variation distance of ~60,000
// correlated draws over 128 states is about 0.02 for a correct sampler;
// a sampler that leaves out a layer's input from above or below, or
// draws both parities at once, lands above 0.1.
func TestDBMChainsSampleTheModel(t *testing.T) {
	n := []int{3, 2, 2}
	d := randomData(4, 20, n[0], 0)
	j := JointConfig{Batch: 4, Chains: 256, MeanField: 1, Gibbs: 1, LR: 0}
	tr := jointOnly(t, d, n, Dense, j)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, m := range tr.joint.rbms {
		for k := range m.W {
			m.W[k] = float32(1.5 * rng.NormFloat64())
		}
		m.refreshC()
	}
	for l := range n {
		for i := range tr.joint.bias[l] {
			tr.joint.bias[l][i] = float32(rng.NormFloat64())
		}
	}
	// Exact probabilities of (v, h¹, h²), indexed by their bits.
	units := n[0] + n[1] + n[2]
	p := make([]float64, 1<<units)
	z := 0.0
	state := func(code int) [][]float64 {
		out := make([][]float64, len(n))
		bit := 0
		for l, size := range n {
			out[l] = make([]float64, size)
			for i := range out[l] {
				out[l][i] = float64(code >> bit & 1)
				bit++
			}
		}
		return out
	}
	for code := range p {
		x := state(code)
		e := 0.0
		for l := range n {
			for i, v := range x[l] {
				e += v * float64(tr.joint.bias[l][i])
			}
		}
		for k, m := range tr.joint.rbms {
			for a := 0; a < m.X; a++ {
				for b := 0; b < m.H; b++ {
					e += x[k][a] * float64(m.W[a*m.H+b]) * x[k+1][b]
				}
			}
		}
		p[code] = math.Exp(e)
		z += p[code]
	}
	counts := make([]float64, len(p))
	total := 0.0
	rows := []int32{0, 1, 2, 3}
	for step := 0; step < 280; step++ {
		if err := tr.Step(rows); err != nil {
			t.Fatal(err)
		}
		if step < 40 {
			continue
		}
		for c := 0; c < j.Chains; c++ {
			code, bit := 0, 0
			for l, size := range n {
				for i := 0; i < size; i++ {
					if tr.joint.s[l][c*size+i] == 1 {
						code |= 1 << bit
					}
					bit++
				}
			}
			counts[code]++
			total++
		}
	}
	tr.Close()
	tv := 0.0
	for code := range p {
		tv += math.Abs(counts[code]/total-p[code]/z) / 2
	}
	if tv > 0.05 {
		t.Fatalf("total variation distance %.3f between the chains and the model", tv)
	}
	t.Logf("total variation %.4f", tv)
}

// TestDBMPackedTilesFollowC: after each joint minibatch, every packed
// tile the mean field and the chains read holds the new C = W·A, in the
// layout their products expect (up: C^k's columns o0… of every row in
// turn; down: Cᵏᵀ's, rows r0… of every column): for dense matrices, whose
// updates write W alone, as for NCG's.
func TestDBMPackedTilesFollowC(t *testing.T) {
	d := randomData(3, 40, 70, 0)
	n := []int{70, 130, 9}
	for _, method := range []Method{Dense, NCG} {
		j := JointConfig{Batch: 10, Chains: 12, MeanField: 2, Gibbs: 1, LR: 0.3}
		tr := jointOnly(t, d, n, method, j)
		for step := 0; step < 3; step++ {
			if err := tr.Step([]int32{int32(step), 5, 9, 13, 21, 30, 33, 2, 7, 11}); err != nil {
				t.Fatal(err)
			}
			jt := tr.joint
			for k, m := range jt.rbms {
				nin, nout := n[k], n[k+1]
				for r := 0; r < nin; r++ {
					for o := 0; o < nout; o++ {
						want := m.W[r*nout+o] * m.A[r*nout+o]
						o0, r0 := o/mfTile*mfTile, r/mfTile*mfTile
						w, wr := min(mfTile, nout-o0), min(mfTile, nin-r0)
						if got := jt.upPk[k][o0*nin+r*w+o-o0]; got != want {
							t.Fatalf("%s step %d: up tile of matrix %d at (%d, %d) = %v, want %v", method, step, k+1, r, o, got, want)
						}
						if got := jt.downPk[k][r0*nout+o*wr+r-r0]; got != want {
							t.Fatalf("%s step %d: down tile of matrix %d at (%d, %d) = %v, want %v", method, step, k+1, r, o, got, want)
						}
					}
				}
			}
		}
		tr.Close()
	}
}
