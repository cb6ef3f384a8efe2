package bench

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// needNumPy skips the test where PeerPython has no NumPy, as the peer
// cases skip.
func needNumPy(t *testing.T) {
	t.Helper()
	if err := exec.Command(PeerPython, "-c", "import numpy").Run(); err != nil {
		t.Skipf("no NumPy for %s (%v)", PeerPython, err)
	}
}

// dbmProblem is one update of the DBM peer (bench/peers/numpy_dbm.py) on
// a small model: its parameters, data rows, chain states and the uniform
// numbers of its three draws (h1, v~, h2 of every chain), as float32.
type dbmProblem struct {
	W, AP     [2][][]float32 // AP only with NCG
	B         [3][]float32
	V         [][]float32
	Chains    [3][][]float32
	Draws     [3][][]float32
	NCG       bool
	MeanField int
	LR, LRA   float64
	Gamma     float64
}

// dbmResult is the state after the update.
type dbmResult struct {
	W, C, AP [2][][]float64
	B        [3][]float64
	Chains   [3][][]float64
}

// dbmPeerUpdate runs the peer's update function on each problem, with a
// generator that hands it the problem's uniforms (and checks their
// shapes, so that draws out of order fail).
const dbmPeerUpdate = `
import json, sys
sys.path.insert(0, sys.argv[1])
import numpy as np
import numpy_dbm as m
F = np.float32
arr = lambda a: np.array(a, dtype=F)
class Draws:
    def __init__(self, ds):
        self.ds = [arr(d) for d in ds]
    def random(self, shape, dtype=None):
        u = self.ds.pop(0)
        assert dtype == F and u.shape == tuple(shape), ("draw", shape, "want", u.shape)
        return u
out = []
for p in json.load(sys.stdin):
    P = m.DBM([arr(w) for w in p["W"]], [arr(b) for b in p["B"]],
              [arr(a) for a in p["AP"]] if p["NCG"] else None, p["Gamma"])
    chains = [arr(c) for c in p["Chains"]]
    rng = Draws(p["Draws"])
    m.update(P, arr(p["V"]), chains, rng, p["MeanField"], p["LR"], p["LRA"], p["Gamma"])
    assert not rng.ds, "draws left over"
    r = {"W": [w.tolist() for w in P.W], "C": [c.tolist() for c in P.C],
         "B": [b.tolist() for b in P.b], "Chains": [c.tolist() for c in chains]}
    if P.AP is not None:
        r["AP"] = [a.tolist() for a in P.AP]
    out.append(r)
json.dump(out, sys.stdout)
`

func randMat(r *rand.Rand, rows, cols int, f func() float32) [][]float32 {
	m := make([][]float32, rows)
	for i := range m {
		m[i] = make([]float32, cols)
		for j := range m[i] {
			m[i][j] = f()
		}
	}
	return m
}

// newDBMProblem draws a problem of 7-5-4 units, 3 rows, 2 chains.
func newDBMProblem(seed uint64, ncg bool) dbmProblem {
	r := rand.New(rand.NewPCG(seed, 9))
	sizes := [3]int{7, 5, 4}
	const nb, nc = 3, 2
	u := func() float32 { return r.Float32() }
	sym := func(a float32) func() float32 { return func() float32 { return a * (2*r.Float32() - 1) } }
	bit := func() float32 { return float32(r.IntN(2)) }
	p := dbmProblem{NCG: ncg, MeanField: 3, LR: 0.05, LRA: 0.5, Gamma: 0.5}
	for k := range 2 {
		p.W[k] = randMat(r, sizes[k], sizes[k+1], sym(1))
		if ncg {
			p.AP[k] = randMat(r, sizes[k], sizes[k+1], u)
		}
	}
	for l, n := range sizes {
		p.B[l] = randMat(r, 1, n, sym(0.5))[0]
		p.Chains[l] = randMat(r, nc, n, bit)
	}
	p.V = randMat(r, nb, sizes[0], bit)
	for i, l := range []int{1, 0, 2} {
		p.Draws[i] = randMat(r, nc, sizes[l], u)
	}
	return p
}

func f64(m [][]float32) [][]float64 {
	out := make([][]float64, len(m))
	for i, row := range m {
		out[i] = make([]float64, len(row))
		for j, v := range row {
			out[i][j] = float64(v)
		}
	}
	return out
}

// mul returns a·b, or aᵀ·b with ta, or a·bᵀ with tb.
func mul(a, b [][]float64, ta, tb bool) [][]float64 {
	at := func(i, k int) float64 {
		if ta {
			return a[k][i]
		}
		return a[i][k]
	}
	bt := func(k, j int) float64 {
		if tb {
			return b[j][k]
		}
		return b[k][j]
	}
	n, inner, m := len(a), len(a[0]), len(b[0])
	if ta {
		n, inner = inner, n
	}
	if tb {
		m = len(b)
	}
	out := make([][]float64, n)
	for i := range out {
		out[i] = make([]float64, m)
		for j := range out[i] {
			for k := range inner {
				out[i][j] += at(i, k) * bt(k, j)
			}
		}
	}
	return out
}

// act returns σ(bias + Σ_t terms[t]) row by row.
func act(bias []float64, terms ...[][]float64) [][]float64 {
	out := make([][]float64, len(terms[0]))
	for i := range out {
		out[i] = make([]float64, len(bias))
		for j, b := range bias {
			z := b
			for _, t := range terms {
				z += t[i][j]
			}
			out[i][j] = 1 / (1 + math.Exp(-z))
		}
	}
	return out
}

func scaled(a [][]float64, s float64) [][]float64 {
	out := make([][]float64, len(a))
	for i, row := range a {
		out[i] = make([]float64, len(row))
		for j, v := range row {
			out[i][j] = s * v
		}
	}
	return out
}

func colMean(a [][]float64) []float64 {
	out := make([]float64, len(a[0]))
	for _, row := range a {
		for j, v := range row {
			out[j] += v / float64(len(a))
		}
	}
	return out
}

// refDBMUpdate is the update in float64, from the definitions of
// Salakhutdinov & Hinton's joint training (the mean field's bottom-up
// pass doubling the input to h1, one Gibbs sweep h1 | v~, h2 then v~, h2 |
// h1) and of NCG's update (W += α G⊙A, A′ += α_A G⊙W_old clipped to
// [0, 1], A = A′ ≥ γ). It fails t when a uniform lies within 1e-5 of its
// probability, where float32 and float64 could draw differently.
func refDBMUpdate(t *testing.T, p dbmProblem) dbmResult {
	var W, AP, C [2][][]float64
	for k := range 2 {
		W[k] = f64(p.W[k])
		C[k] = W[k]
		if p.NCG {
			AP[k] = f64(p.AP[k])
			C[k] = masked(W[k], AP[k], p.Gamma)
		}
	}
	var b [3][]float64
	for l := range 3 {
		b[l] = f64([][]float32{p.B[l]})[0]
	}
	v := f64(p.V)
	in1 := mul(v, C[0], false, false)
	mu1 := act(b[1], scaled(in1, 2))
	mu2 := act(b[2], mul(mu1, C[1], false, false))
	for range p.MeanField {
		mu1 = act(b[1], in1, mul(mu2, C[1], false, true))
		mu2 = act(b[2], mul(mu1, C[1], false, false))
	}
	draw := func(prob [][]float64, u [][]float32) [][]float64 {
		s := make([][]float64, len(prob))
		for i := range prob {
			s[i] = make([]float64, len(prob[i]))
			for j, q := range prob[i] {
				if math.Abs(float64(u[i][j])-q) < 1e-5 {
					t.Fatalf("uniform %v within 1e-5 of its probability %v: pick another seed", u[i][j], q)
				}
				if float64(u[i][j]) < q {
					s[i][j] = 1
				}
			}
		}
		return s
	}
	vt, h2 := f64(p.Chains[0]), f64(p.Chains[2])
	h1 := draw(act(b[1], mul(vt, C[0], false, false), mul(h2, C[1], false, true)), p.Draws[0])
	vt = draw(act(b[0], mul(h1, C[0], false, true)), p.Draws[1])
	h2 = draw(act(b[2], mul(h1, C[1], false, false)), p.Draws[2])
	nb, nc := float64(len(v)), float64(len(vt))
	pos := [2][][]float64{mul(v, mu1, true, false), mul(mu1, mu2, true, false)}
	neg := [2][][]float64{mul(vt, h1, true, false), mul(h1, h2, true, false)}
	var out dbmResult
	for k := range 2 {
		w := scaled(W[k], 1)
		ap := AP[k]
		if p.NCG {
			ap = scaled(AP[k], 1)
		}
		for i := range w {
			for j := range w[i] {
				g := pos[k][i][j]/nb - neg[k][i][j]/nc
				a := 1.0
				if p.NCG {
					a = 0
					if AP[k][i][j] >= p.Gamma {
						a = 1
					}
					ap[i][j] = min(max(AP[k][i][j]+p.LRA*g*W[k][i][j], 0), 1)
				}
				w[i][j] += p.LR * g * a
			}
		}
		out.W[k], out.C[k] = w, w
		if p.NCG {
			out.AP[k], out.C[k] = ap, masked(w, ap, p.Gamma)
		}
	}
	for l, pair := range [3][2][][]float64{{v, vt}, {mu1, h1}, {mu2, h2}} {
		dm, sm := colMean(pair[0]), colMean(pair[1])
		out.B[l] = make([]float64, len(b[l]))
		for j := range b[l] {
			out.B[l][j] = b[l][j] + p.LR*(dm[j]-sm[j])
		}
	}
	out.Chains = [3][][]float64{vt, h1, h2}
	return out
}

// masked returns w⊙(ap ≥ γ).
func masked(w, ap [][]float64, gamma float64) [][]float64 {
	out := scaled(w, 1)
	for i := range out {
		for j := range out[i] {
			if ap[i][j] < gamma {
				out[i][j] = 0
			}
		}
	}
	return out
}

// TestNumpyDBMUpdate: one update of the DBM peer, dense and NCG, on a
// 7-5-4 model with 3 rows and 2 chains, is the float64 reference's: the
// chains' new states exactly, W, C, A′ and the biases within 1e-5 (float32
// arithmetic on values of order 1; the update moves W by about 10⁻²).
func TestNumpyDBMUpdate(t *testing.T) {
	needNumPy(t)
	probs := []dbmProblem{newDBMProblem(1, false), newDBMProblem(2, true)}
	in, err := json.Marshal(probs)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(PeerPython, "-B", "-c", dbmPeerUpdate, "peers")
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("peer update: %v: %s", err, stderr.String())
	}
	var got []dbmResult
	if err := json.Unmarshal(out, &got); err != nil || len(got) != len(probs) {
		t.Fatalf("peer printed %.200q: %v", out, err)
	}
	for i, p := range probs {
		want := refDBMUpdate(t, p)
		g := got[i]
		near := func(what string, a, b [][]float64, tol float64) {
			if len(a) != len(b) {
				t.Errorf("NCG %v: %s has %d rows, want %d", p.NCG, what, len(a), len(b))
				return
			}
			for r := range b {
				for c := range b[r] {
					if c >= len(a[r]) || !(math.Abs(a[r][c]-b[r][c]) <= tol) {
						t.Errorf("NCG %v: %s[%d][%d]: row %v, want %v", p.NCG, what, r, c, a[r], b[r])
						return
					}
				}
			}
		}
		for k := range 2 {
			near("W"+string(rune('1'+k)), g.W[k], want.W[k], 1e-5)
			near("C"+string(rune('1'+k)), g.C[k], want.C[k], 1e-5)
			if p.NCG {
				near("A′"+string(rune('1'+k)), g.AP[k], want.AP[k], 1e-5)
			}
		}
		for l := range 3 {
			near("bias of layer "+string(rune('0'+l)), [][]float64{g.B[l]}, [][]float64{want.B[l]}, 1e-5)
			near("chain states of layer "+string(rune('0'+l)), g.Chains[l], want.Chains[l], 0)
		}
	}
}

// writeMNISTImages writes n random 28×28 images as MNIST's training
// images file under dir/mnist.
func writeMNISTImages(t *testing.T, dir string, n int) {
	var buf bytes.Buffer
	z := gzip.NewWriter(&buf)
	for _, v := range []uint32{0x803, uint32(n), 28, 28} {
		binary.Write(z, binary.BigEndian, v)
	}
	r := rand.New(rand.NewPCG(3, 4))
	pix := make([]byte, n*784)
	for i := range pix {
		pix[i] = byte(r.IntN(256))
	}
	z.Write(pix)
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "mnist"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mnist", "train-images-idx3-ubyte.gz"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestNumpyDBMEpochRuns: the NCG DBM peer case, from the repository's
// root, runs its script on a made-up MNIST of 100 images (one update of
// the 784-500-1000 model) and reads the seconds it prints.
func TestNumpyDBMEpochRuns(t *testing.T) {
	needNumPy(t)
	dir := t.TempDir()
	writeMNISTImages(t, dir, 100)
	t.Chdir("..")
	// The script keeps Python from caching the module it imports beside
	// it, whatever the environment says.
	t.Setenv("PYTHONDONTWRITEBYTECODE", "")
	cache := filepath.Join("bench", "peers", "__pycache__")
	_, err := os.Stat(cache)
	cached := err == nil
	c := peerCase("peer/numpy/mnist-dbm-ncg", "numpy_dbm.py", dir, "--ncg")
	v, err := c.Run()
	if err != nil || !(v > 0) {
		t.Fatalf("%s: %v s, %v", c.Name, v, err)
	}
	if _, err := os.Stat(cache); err == nil && !cached {
		t.Errorf("the peer left %s in the repository", cache)
	}
}
