package engine

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/ncg-rbm/ncg/internal/kerneltier"
	"github.com/ncg-rbm/ncg/kernel"
)

// randomData makes n rows of d binary units with a few repeated patterns
// (so that there is something to learn) and labels.
func randomData(seed uint64, n, d, classes int) *Data {
	r := rand.New(rand.NewPCG(seed, 0))
	protos := make([][]uint8, max(classes, 3))
	for p := range protos {
		protos[p] = make([]uint8, d)
		for j := range protos[p] {
			if r.Float64() < 0.3 {
				protos[p][j] = 1
			}
		}
	}
	out := &Data{N: n, D: d, X: make([]uint8, n*d), Classes: classes}
	if classes > 0 {
		out.Labels = make([]int32, n)
	}
	for i := 0; i < n; i++ {
		p := r.IntN(len(protos))
		for j := 0; j < d; j++ {
			v := protos[p][j]
			if r.Float64() < 0.05 {
				v ^= 1
			}
			out.X[i*d+j] = v
		}
		if classes > 0 {
			out.Labels[i] = int32(p % classes)
		}
	}
	return out
}

func smallConfig(method Method) Config {
	c := DefaultConfig()
	c.Method, c.Hidden, c.K, c.Batch, c.LR, c.LRConn, c.Epochs = method, 24, 3, 10, 0.05, 0.25, 2
	c.LineWidth, c.Density, c.Epsilon = 9, 0.4, 3
	return c
}

var allMethods = []Method{Dense, NCG, Line, Random, SET}

// sparseConfigs are fixed-mask configurations at most SparseDensity() dense
// for 30–40 data units, which train on compressed rows.
func sparseConfigs() []Config {
	set, random, line := smallConfig(SET), smallConfig(Random), smallConfig(Line)
	set.Epsilon, random.Density, line.LineWidth = 1, 0.08, 2
	return []Config{set, random, line}
}

// allConfigs is every method's small configuration, then the sparse ones.
func allConfigs() []Config {
	var cs []Config
	for _, m := range allMethods {
		cs = append(cs, smallConfig(m))
	}
	return append(cs, sparseConfigs()...)
}

// refState is what the reference carries from one minibatch to the next
// beside the model: the epoch, momentum's velocities (visible-major like W;
// nil without momentum) and PT's chains (temperature-major, [k][slot][X]).
type refState struct {
	epoch      int
	vW, vB, vV []float64
	chains     []float64
}

// reference runs one CD-k minibatch exactly as docs/algorithm.md ("One minibatch") states it, in
// float64 loops over the paper's H×X indexing, drawing the same uniforms
// as the engine (the same streams, consumed call by call), and applies the
// update to a copy of m. With momentum, weight decay, a learning-rate
// schedule or parallel tempering it follows their definitions in
// docs/training.md: the step s = g − L2·w − L1·sign(w) of the mean
// gradient g, v = μv + s, w += α·v·a (biases: no decay; A′: the plain
// gradient), and PT's Gibbs steps at β·energy, then Metropolis swaps of
// neighbours with probability min(1, p_i(s_j)p_j(s_i)/(p_i(s_i)p_j(s_j))).
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
	M := cfg.Temperatures
	betas := make([]float64, M)
	for k := range betas { // the geometric ladder from 1 to MinBeta
		betas[k] = math.Exp(float64(k) / float64(M-1) * math.Log(cfg.MinBeta))
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
		upBeta := func(x []float64, beta float64) []float64 {
			p := make([]float64, H)
			for i := range p {
				a := float64(m0.HiddenBias[i])
				for j := 0; j < X; j++ {
					a += c(i, j) * x[j]
				}
				p[i] = sig(beta * a)
			}
			return p
		}
		up := func(x []float64) []float64 { return upBeta(x, 1) }
		down := func(h []float64) []float64 {
			p := make([]float64, X)
			for j := range p {
				a := float64(m0.VisibleBias[j])
				for i := 0; i < H; i++ {
					a += c(i, j) * h[i]
				}
				p[j] = sig(a)
			}
			return p
		}
		energies := make([]float64, M)
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
		hpos := up(x0)
		h := sample(hpos)
		x := x0
		if pt {
			for round := 0; round < cfg.K; round++ {
				for k := 0; k < M; k++ {
					st = &streams[cfg.Batch+k*cfg.Batch+s]
					xk := out.chains[(k*cfg.Batch+s)*X : (k*cfg.Batch+s+1)*X]
					hk := sample(upBeta(xk, betas[k]))
					pv := make([]float64, X)
					for j := range pv {
						a := float64(m0.VisibleBias[j])
						for i := 0; i < H; i++ {
							a += c(i, j) * hk[i]
						}
						pv[j] = sig(betas[k] * a)
					}
					copy(xk, sample(pv))
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
			for step := 1; step <= cfg.K; step++ {
				x = sample(down(h))
				if step < cfg.K {
					h = sample(up(x))
				}
			}
		}
		hneg := up(x)
		if cfg.SETProcedure == Mocanu {
			hneg = h
		}
		for i := 0; i < H; i++ {
			for j := 0; j < X; j++ {
				G[i*X+j] += (hpos[i]*x0[j] - hneg[i]*x[j]) / B
			}
			gb[i] += (hpos[i] - hneg[i]) / B
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
		m.HiddenBias[i] = float32(float64(m0.HiddenBias[i]) + step(in.vB, out.vB, i, gb[i], float64(m0.HiddenBias[i]), biasL2, 0, 1))
	}
	for j := 0; j < X; j++ {
		m.VisibleBias[j] = float32(float64(m0.VisibleBias[j]) + step(in.vV, out.vV, j, gd[j], float64(m0.VisibleBias[j]), biasL2, 0, 1))
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

// paramsEqual reports the first parameter that differs in any bit.
func paramsEqual(a, b *Model) string {
	names := []string{"W", "A", "AP", "C", "CH", "B", "V"}
	as := [][]float32{a.W, a.A, a.AP, a.c, a.ch, a.HiddenBias, a.VisibleBias}
	bs := [][]float32{b.W, b.A, b.AP, b.c, b.ch, b.HiddenBias, b.VisibleBias}
	for p := range as {
		if len(as[p]) != len(bs[p]) {
			return names[p] + " length"
		}
		for k := range as[p] {
			if math.Float32bits(as[p][k]) != math.Float32bits(bs[p][k]) {
				return names[p]
			}
		}
	}
	return ""
}

func train(t *testing.T, cfg Config, d *Data) *Model {
	t.Helper()
	tr, err := New(cfg, d)
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Train(context.Background(), Options{}); err != nil {
		t.Fatal(err)
	}
	m := tr.Model()
	if msg := copiesFollowC(m); msg != "" {
		t.Fatal(msg)
	}
	return m
}

// TestSparseSameResultAnyWorkers: on compressed rows a chain task's block
// follows the workers (sparseBlock: 32, 16 or 8 chains here, so 32, 16
// and 8 lanes), and every lane sums alone, so the parameters are the same
// in every bit for any number of workers, with CD, parallel tempering and
// the SET authors' procedure.
func TestSparseSameResultAnyWorkers(t *testing.T) {
	d := randomData(5, 157, 40, 0) // a last partial batch of 37
	for _, base := range sparseConfigs() {
		for v := 0; v < 3; v++ {
			cfg := base
			cfg.Batch, cfg.Workers = 40, 1
			switch v {
			case 1:
				cfg.Sampler, cfg.Temperatures, cfg.MinBeta = ParallelTempering, 3, 0.4
			case 2:
				if cfg.Method != SET {
					continue
				}
				cfg.SETProcedure, cfg.Momentum, cfg.L2 = Mocanu, 0.5, 1e-3
			}
			ref := train(t, cfg, d)
			for _, w := range []int{2, 3, 8} {
				cfg.Workers = w
				if got := sparseBlock(cfg.Batch, w); got != map[int]int{2: 32, 3: 16, 8: 8}[w] {
					t.Fatalf("sparseBlock(40, %d) = %d", w, got)
				}
				if p := paramsEqual(ref, train(t, cfg, d)); p != "" {
					t.Fatalf("%s sampler %q procedure %q: %s differs between 1 and %d workers", cfg.Method, cfg.Sampler, cfg.SETProcedure, p, w)
				}
			}
		}
	}
}

// copiesFollowC checks the copies of C the products read, which each row
// task refreshes: the down pass's hidden-major CH must be C transposed, and
// the up pass's cp must hold C's rows cpStride() apart, 64-byte aligned,
// with zero padding. It returns the first difference, or "".
func copiesFollowC(m *Model) string {
	ld := m.cpStride()
	if len(m.cp) != m.X*ld {
		return fmt.Sprintf("cp has length %d, want %d·%d", len(m.cp), m.X, ld)
	}
	if p := uintptr(unsafe.Pointer(&m.cp[0])); p%64 != 0 {
		return fmt.Sprintf("cp starts at %#x, not on a 64-byte boundary", p)
	}
	for i := 0; i < m.X; i++ {
		for j := 0; j < ld; j++ {
			want := float32(0)
			if j < m.H {
				want = m.c[i*m.H+j]
				if a := m.ch[j*m.X+i]; a != want {
					return fmt.Sprintf("CH[%d,%d] = %v, C[%d,%d] = %v", j, i, a, i, j, want)
				}
			}
			if a := m.cp[i*ld+j]; a != want {
				return fmt.Sprintf("cp[%d,%d] = %v, want %v", i, j, a, want)
			}
		}
	}
	return ""
}

func TestSameResultAnyWorkers(t *testing.T) {
	d := randomData(5, 157, 40, 0) // a last partial batch of 7
	for _, cfg := range allConfigs() {
		method := cfg.Method
		for _, pcd := range []bool{false, true} {
			cfg.PCD = pcd
			cfg.Workers = 1
			ref := train(t, cfg, d)
			for _, w := range []int{2, 3, 8} {
				cfg.Workers = w
				if p := paramsEqual(ref, train(t, cfg, d)); p != "" {
					t.Fatalf("%s pcd=%v: %s differs between 1 and %d workers", method, pcd, p, w)
				}
			}
			for _, procs := range []int{1, 2, 8} {
				old := runtime.GOMAXPROCS(procs)
				cfg.Workers = 0
				m := train(t, cfg, d)
				runtime.GOMAXPROCS(old)
				if p := paramsEqual(ref, m); p != "" {
					t.Fatalf("%s pcd=%v: %s differs with GOMAXPROCS=%d", method, pcd, p, procs)
				}
			}
			cfg.Workers = 2
			if p := paramsEqual(ref, train(t, cfg, d)); p != "" {
				t.Fatalf("%s: a repeated run differs in %s", method, p)
			}
		}
	}
}

func TestSeedChangesResult(t *testing.T) {
	d := randomData(5, 60, 30, 0)
	cfg := smallConfig(NCG)
	a := train(t, cfg, d)
	cfg.Seed++
	if paramsEqual(a, train(t, cfg, d)) == "" {
		t.Fatal("seeds 1 and 2 gave the same model")
	}
}

func TestResumeIsBitIdentical(t *testing.T) {
	d := randomData(6, 95, 30, 2)
	for _, cfg := range append([]Config{smallConfig(NCG), smallConfig(SET), smallConfig(Dense)}, sparseConfigs()[0]) {
		method := cfg.Method
		for _, pcd := range []bool{false, true} {
			cfg.Epochs, cfg.PCD = 3, pcd
			checkResume(t, cfg, d, fmt.Sprintf("%s pcd=%v", method, pcd))
		}
	}
}

// TestResumedEpochRecord checks that an epoch interrupted and resumed from a
// checkpoint reports the uninterrupted run's reconstruction error (the
// checkpoint carries the epoch's partial sum), and that a checkpoint
// without that sum (written before it existed) reports the mean over the
// minibatches the resumed run trained, not their sum over the whole epoch.
func TestResumedEpochRecord(t *testing.T) {
	d := randomData(6, 95, 30, 2)
	cfg := smallConfig(NCG)
	cfg.Epochs = 3
	records := func(tr *Trainer, ctx context.Context, ckpt string) ([]Record, error) {
		var recs []Record
		err := tr.Train(ctx, Options{Checkpoint: ckpt, OnEpoch: func(r Record) error { recs = append(recs, r); return nil }})
		return recs, err
	}
	tr, err := New(cfg, d)
	if err != nil {
		t.Fatal(err)
	}
	want, err := records(tr, context.Background(), "")
	if err != nil || len(want) != 3 {
		t.Fatalf("%d records, %v", len(want), err)
	}
	dir := t.TempDir()
	ckpt := filepath.Join(dir, "run.ckpt")
	tr, _ = New(cfg, d)
	ctx, cancel := context.WithCancel(context.Background())
	batches := 0
	tr.afterBatch = func() { // stop after minibatch 4 of epoch 2
		if batches++; batches == 14 {
			cancel()
		}
	}
	first, err := records(tr, ctx, ckpt)
	if !errors.Is(err, context.Canceled) || len(first) != 1 {
		t.Fatalf("interrupted run: %d records, %v", len(first), err)
	}
	saved, _ := os.ReadFile(ckpt)
	tr2, err := Resume(ckpt, d, 2)
	if err != nil {
		t.Fatal(err)
	}
	rest, err := records(tr2, context.Background(), ckpt)
	if err != nil || len(rest) != 2 {
		t.Fatalf("resumed run: %d records, %v", len(rest), err)
	}
	for i, r := range append(first, rest...) {
		if r.Epoch != want[i].Epoch || r.ReconError != want[i].ReconError || !(r.Seconds > 0) {
			t.Errorf("epoch %d: resumed record %+v, uninterrupted %+v", i+1, r, want[i])
		}
	}

	// The same checkpoint without epoch_recon, as older builds wrote it.
	hdr, rest2, partial := splitCheckpoint(t, saved)
	if partial == nil {
		t.Fatal("the checkpoint carries no epoch_recon")
	}
	delete(hdr, "epoch_recon")
	old := filepath.Join(dir, "old.ckpt")
	h, err := json.Marshal(hdr)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(old, frameCheckpoint(h, rest2), 0o644); err != nil {
		t.Fatal(err)
	}
	tr3, err := Resume(old, d, 1)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := records(tr3, context.Background(), "")
	if err != nil || len(recs) != 2 {
		t.Fatalf("resumed from an old checkpoint: %d records, %v", len(recs), err)
	}
	// Minibatches 5–10 of epoch 2 (rows 40–94): the epoch's sum less the
	// first four minibatches' (the checkpoint's epoch_recon), over their rows.
	n, done := d.N, 4*cfg.Batch
	wantOld := (want[1].ReconError*float64(n*d.D) - *partial) / float64((n-done)*d.D)
	if got := recs[0].ReconError; math.Abs(got-wantOld) > 1e-9*wantOld {
		t.Errorf("old checkpoint: epoch 2 reconstruction error %v, want %v (uninterrupted %v)", got, wantOld, want[1].ReconError)
	}
	if recs[1].ReconError != want[2].ReconError {
		t.Errorf("old checkpoint: epoch 3 reconstruction error %v, want %v", recs[1].ReconError, want[2].ReconError)
	}
}

// splitCheckpoint returns a checkpoint's header as JSON fields, the bytes
// after it (without the checksum), and the header's epoch_recon.
func splitCheckpoint(t *testing.T, b []byte) (map[string]json.RawMessage, []byte, *float64) {
	t.Helper()
	body := b[:len(b)-sha256.Size]
	n := binary.LittleEndian.Uint32(body[len(ckptMagic)+4:])
	start := len(ckptMagic) + 8
	var hdr map[string]json.RawMessage
	if err := json.Unmarshal(body[start:start+int(n)], &hdr); err != nil {
		t.Fatal(err)
	}
	var partial *float64
	if raw, ok := hdr["epoch_recon"]; ok {
		partial = new(float64)
		if err := json.Unmarshal(raw, partial); err != nil {
			t.Fatal(err)
		}
	}
	return hdr, body[start+int(n):], partial
}

func TestCorruptCheckpoint(t *testing.T) {
	d := randomData(6, 30, 12, 0)
	tr, err := New(smallConfig(NCG), d)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "c.ckpt")
	if err := tr.SaveCheckpoint(path); err != nil {
		t.Fatal(err)
	}
	good, _ := os.ReadFile(path)
	cases := map[string][]byte{
		"truncated": good[:len(good)/2],
		"flipped":   append(append([]byte(nil), good[:100]...), append([]byte{good[100] ^ 1}, good[101:]...)...),
		"empty":     {},
		"not ours":  []byte("hello world, this is not a checkpoint at all, but long enough"),
	}
	for name, b := range cases {
		p := filepath.Join(t.TempDir(), name)
		os.WriteFile(p, b, 0o644)
		if _, err := Resume(p, d, 1); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%s checkpoint: error %v, want one naming the file", name, err)
		}
	}
	other := randomData(7, 31, 12, 0)
	if _, err := Resume(path, other, 1); err == nil {
		t.Error("a checkpoint was resumed on data of another shape")
	}
	// The temporary file of the atomic write is gone.
	ents, _ := os.ReadDir(filepath.Dir(path))
	if len(ents) != 1 {
		t.Errorf("checkpoint dir holds %d files, want 1", len(ents))
	}
}

func TestValidate(t *testing.T) {
	good := smallConfig(NCG)
	cases := []struct {
		edit func(*Config)
		want string
	}{
		{func(c *Config) { c.Hidden = 0 }, "hidden"},
		{func(c *Config) { c.K = 0 }, "k = 0"},
		{func(c *Config) { c.Batch = 0 }, "batch"},
		{func(c *Config) { c.LR = -1 }, "lr"},
		{func(c *Config) { c.LR = math.NaN() }, "lr"},
		{func(c *Config) { c.LRConn = math.Inf(1) }, "lr-conn"},
		{func(c *Config) { c.Gamma = 1 }, "gamma"},
		{func(c *Config) { c.Gamma = 0 }, "gamma"},
		{func(c *Config) { c.P = 1.5 }, "p ="},
		{func(c *Config) { c.Method = Random; c.Density = -0.1 }, "density"},
		{func(c *Config) { c.Method = Line; c.LineWidth = 0 }, "v = 0"},
		{func(c *Config) { c.Method = Line; c.LineWidth = 31 }, "v = 31"},
		{func(c *Config) { c.Method = SET; c.Epsilon = 0 }, "epsilon"},
		{func(c *Config) { c.Method = SET; c.Zeta = 1 }, "zeta"},
		{func(c *Config) { c.Method = "sparse" }, "method"},
		{func(c *Config) { c.Init = "ones" }, "init"},
	}
	d := randomData(1, 20, 30, 0)
	if _, err := New(good, d); err != nil {
		t.Fatalf("good config rejected: %v", err)
	}
	for _, tc := range cases {
		c := good
		tc.edit(&c)
		_, err := New(c, d)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("want an error mentioning %q, got %v", tc.want, err)
		}
	}
	bad := *d
	bad.X = append([]uint8(nil), d.X...)
	bad.X[65] = 2
	if _, err := New(good, &bad); err == nil || !strings.Contains(err.Error(), "row 2") {
		t.Errorf("value 2 in the data: %v", err)
	}
	short := *d
	short.X = d.X[:10]
	if _, err := New(good, &short); err == nil {
		t.Error("data of the wrong width accepted")
	}
}

func TestNaNStopsTraining(t *testing.T) {
	d := randomData(2, 50, 20, 0)
	cfg := smallConfig(Dense)
	cfg.LR, cfg.InitScale = 3e38, 1e30 // the first updates overflow float32
	tr, err := New(cfg, d)
	if err != nil {
		t.Fatal(err)
	}
	err = tr.Train(context.Background(), Options{})
	var ne *NumericalError
	if !errors.As(err, &ne) || ne.Epoch != 1 || !strings.Contains(err.Error(), "minibatch") {
		t.Fatalf("want a NumericalError in epoch 1, got %v", err)
	}
	t.Log(err)
}

func TestInitialisation(t *testing.T) {
	d := randomData(1, 20, 784, 10)
	cfg := smallConfig(NCG)
	cfg.Hidden, cfg.P = 500, 0.1
	tr, _ := New(cfg, d)
	m := tr.Model()
	n := m.DataUnits * m.H
	ones := 0
	for k := 0; k < n; k++ {
		a, ap, w := m.A[k], m.AP[k], m.W[k]
		if (a == 1) != (ap >= 0.5) || ap < 0 || ap > 1 {
			t.Fatalf("A′ %g inconsistent with A %g", ap, a)
		}
		if m.c[k] != w*a || w < -1 || w > 1 {
			t.Fatalf("C ≠ W⊙A at the start, or W outside U(-1,1)")
		}
		ones += int(a)
	}
	if dens := float64(ones) / float64(n); math.Abs(dens-0.1) > 0.005 {
		t.Errorf("initial density %.4f, want 0.1", dens)
	}
	for k := n; k < len(m.A); k++ {
		if m.A[k] != 1 {
			t.Fatal("a label connection is absent at the start")
		}
	}
	if got := lineStarts(784, 500); got[0] != 0 || got[1] != 2 || got[391] != 782 || got[392] != 1 || got[393] != 3 || got[499] != 215 {
		t.Errorf("line starts %v…%v", got[:3], got[390:395])
	}
}

func TestLabelConnectionsNeverThresholded(t *testing.T) {
	d := randomData(4, 120, 30, 3)
	cfg := smallConfig(NCG)
	cfg.LRConn, cfg.Gamma, cfg.P, cfg.Epochs = 5, 0.9, 0.05, 3 // aggressive pruning
	m := train(t, cfg, d)
	for k := m.DataUnits * m.H; k < len(m.A); k++ {
		if m.A[k] != 1 || m.c[k] != m.W[k] {
			t.Fatal("a label connection was thresholded")
		}
	}
}

func TestNCGChangesConnectivity(t *testing.T) {
	d := randomData(4, 200, 40, 0)
	cfg := smallConfig(NCG)
	cfg.P, cfg.Epochs = 0.1, 3
	tr, _ := New(cfg, d)
	before := append([]float32(nil), tr.Model().A...)
	var recs []Record
	if err := tr.Train(context.Background(), Options{OnEpoch: func(r Record) error { recs = append(recs, r); return nil }}); err != nil {
		t.Fatal(err)
	}
	added, removed := 0, 0
	for k, a := range tr.Model().A {
		switch {
		case a == 1 && before[k] == 0:
			added++
		case a == 0 && before[k] == 1:
			removed++
		}
	}
	if added == 0 {
		t.Error("NCG added no connection: the gradient of absent connections is not used")
	}
	if len(recs) != 3 || recs[2].Epoch != 3 || recs[0].DegreeMax < recs[0].DegreeMin || recs[2].Density <= 0 {
		t.Errorf("records %+v", recs)
	}
	t.Logf("added %d, removed %d; density %.3f → %.3f", added, removed, 0.1, recs[2].Density)
}

func TestSETKeepsDensity(t *testing.T) {
	d := randomData(4, 100, 40, 0)
	cfg := smallConfig(SET)
	cfg.Epochs = 4
	tr, _ := New(cfg, d)
	start := tr.Model().Connectivity().Active
	before := append([]float32(nil), tr.Model().A...)
	if err := tr.Train(context.Background(), Options{}); err != nil {
		t.Fatal(err)
	}
	m := tr.Model()
	if m.Connectivity().Active != start {
		t.Errorf("SET changed the number of connections: %d → %d", start, m.Connectivity().Active)
	}
	moved := 0
	for k := range before {
		if before[k] != m.A[k] {
			moved++
		}
	}
	if moved == 0 {
		t.Error("SET never rewired")
	}
}

// TestSETRewiresBetweenEpochs checks that SET rewires after each epoch but
// the last: the connections change after epochs 1 and 2 of 3, not after 3.
func TestSETRewiresBetweenEpochs(t *testing.T) {
	d := randomData(4, 100, 40, 0)
	cfg := smallConfig(SET)
	cfg.Epochs = 3
	tr, err := New(cfg, d)
	if err != nil {
		t.Fatal(err)
	}
	snaps := [][]float32{append([]float32(nil), tr.Model().A...)}
	opts := Options{OnEpoch: func(Record) error {
		snaps = append(snaps, append([]float32(nil), tr.Model().A...))
		return nil
	}}
	if err := tr.Train(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if len(snaps) != 4 {
		t.Fatalf("%d epoch records, want 3", len(snaps)-1)
	}
	for e := 1; e <= 3; e++ {
		changed := !slices.Equal(snaps[e-1], snaps[e])
		if want := e < 3; changed != want {
			t.Errorf("epoch %d: connections changed = %v, want %v", e, changed, want)
		}
	}
}

func TestReconstructionImproves(t *testing.T) {
	d := randomData(8, 300, 40, 0)
	for _, method := range allMethods {
		cfg := smallConfig(method)
		cfg.Epochs, cfg.InitScale = 8, 0.1
		var first, last float64
		tr, _ := New(cfg, d)
		tr.Train(context.Background(), Options{OnEpoch: func(r Record) error {
			if r.Epoch == 1 {
				first = r.ReconError
			}
			last = r.ReconError
			return nil
		}})
		if !(last < first*0.9) {
			t.Errorf("%s: reconstruction error %.4f → %.4f, want a clear fall", method, first, last)
		}
	}
}

func TestPCDChainsPersist(t *testing.T) {
	d := randomData(9, 40, 20, 0)
	cfg := smallConfig(Dense)
	cfg.PCD, cfg.K, cfg.LR, cfg.Batch = true, 1, 0, 4 // LR 0: the model stays put
	tr, _ := New(cfg, d)
	defer tr.Close()
	if _, err := tr.Step([]int32{0, 1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	state := append([]float32(nil), tr.pcd...)
	streams := append([]kernel.Stream(nil), tr.streams...)
	if _, err := tr.Step([]int32{4, 5, 6, 7}); err != nil {
		t.Fatal(err)
	}
	// Replay chain 0 from the saved persistent state: the positive phase
	// draws H numbers, then the chain draws h from the persistent state and
	// x from h.
	m := tr.Model()
	x, h := m.X, m.H
	st := streams[0]
	pre, prob, hs := make([]float32, h), make([]float32, h), make([]float32, h)
	x0 := make([]float32, x)
	for j := range x0 {
		x0[j] = float32(d.X[4*d.D+j])
	}
	kernel.Affine(pre, m.HiddenBias, x0, m.c, 1, x, h)
	kernel.SigmoidBernoulli(prob, hs, pre, &st)
	kernel.Affine(pre, m.HiddenBias, state[:x], m.c, 1, x, h)
	kernel.SigmoidBernoulli(prob, hs, pre, &st)
	vpre, xs := make([]float32, x), make([]float32, x)
	kernel.Affine(vpre, m.VisibleBias, hs, m.ch, 1, h, x)
	kernel.SigmoidBernoulli(vpre, xs, vpre, &st)
	for j := range xs {
		if xs[j] != tr.pcd[j] {
			t.Fatalf("chain 0 did not continue from its persistent state (unit %d)", j)
		}
	}
	same := true
	for j := range xs {
		same = same && xs[j] == x0[j]
	}
	if same {
		t.Fatal("the persistent chain equals the data: nothing was tested")
	}
}

// formHook sets rowForm and returns the function that clears it.
func formHook(form string) (restore func()) {
	rowForm = form
	return func() { rowForm = "" }
}

// TestSparseMatchesDense trains the sparse configurations on compressed
// rows and on the dense matrices: with the dense form held to fresh sums
// of rows (no fused multiply-add product, no incremental update), every
// parameter is the same in every bit, with and without labels, PCD,
// momentum and weight decay, across SET's rewirings.
func TestSparseMatchesDense(t *testing.T) {
	defer kerneltier.ForceRowSums()()
	incremental = false
	defer func() { incremental = true }()
	for _, classes := range []int{0, 3} {
		d := randomData(9, 157, 40, classes)
		for _, cfg := range sparseConfigs() {
			for v, pcd := range []bool{false, true, false, false} {
				cfg.PCD, cfg.Epochs, cfg.Workers = pcd, 3, 2
				if v == 2 { // the Go update, on present connections only
					cfg.Momentum, cfg.L2 = 0.9, 0.01
				}
				if v == 3 {
					cfg.Momentum, cfg.L2 = 0, 0
					cfg.Sampler, cfg.Temperatures, cfg.MinBeta = ParallelTempering, 3, 0.4
				}
				run := func(sparse bool) *Model {
					if !sparse {
						defer formHook("dense")()
					}
					tr, err := New(cfg, d)
					if err != nil {
						t.Fatal(err)
					}
					if (tr.sp != nil) != sparse {
						t.Fatalf("%s: compressed rows %v, want %v", cfg.Method, tr.sp != nil, sparse)
					}
					if err := tr.Train(context.Background(), Options{}); err != nil {
						t.Fatal(err)
					}
					return tr.Model()
				}
				sp, dense := run(true), run(false)
				if p := paramsEqual(dense, sp); p != "" {
					t.Errorf("%s classes=%d pcd=%v μ=%v sampler %q: %s differs between compressed and dense rows", cfg.Method, classes, pcd, cfg.Momentum, cfg.Sampler, p)
				}
			}
		}
	}
	at, above := smallConfig(Random), smallConfig(Random)
	at.Density, above.Density = SparseDensity(), SparseDensity()+0.01
	if !useSparse(at, 40) || useSparse(above, 40) || useSparse(smallConfig(NCG), 40) {
		t.Errorf("a random mask of density %g should train on compressed rows, of %g and NCG on the dense matrices", at.Density, above.Density)
	}
}

// TestPhasesAccountForTraining: Options.Phases counts every minibatch, and
// its times nest as documented (phases inside the minibatches, busy time
// inside the workers' share of each phase).
func TestPhasesAccountForTraining(t *testing.T) {
	d := randomData(5, 157, 40, 0) // 4 minibatches of 40 per epoch, the last of 37
	for _, w := range []int{1, 2} {
		cfg := smallConfig(NCG)
		cfg.Epochs, cfg.Workers, cfg.Batch = 3, w, 40
		tr, err := New(cfg, d)
		if err != nil {
			t.Fatal(err)
		}
		var ph Phases
		var trained time.Duration
		err = tr.Train(context.Background(), Options{Phases: &ph, OnEpoch: func(r Record) error {
			trained += time.Duration(r.Seconds * float64(time.Second))
			return nil
		}})
		if err != nil {
			t.Fatal(err)
		}
		if ph.Workers != w || ph.Minibatches != 3*4 {
			t.Fatalf("workers %d: Phases counts %d workers and %d minibatches, want %d and 12", w, ph.Workers, ph.Minibatches, w)
		}
		if ph.Total > trained || ph.Serial() < 0 {
			t.Fatalf("workers %d: minibatches %v of %v trained, serial %v", w, ph.Total, trained, ph.Serial())
		}
		for name, p := range map[string]PhaseTime{"chains": ph.Chains, "rows": ph.Rows} {
			if p.Wall <= 0 || p.Busy <= 0 || p.Busy > time.Duration(w)*p.Wall {
				t.Fatalf("workers %d, %s: wall %v, busy %v", w, name, p.Wall, p.Busy)
			}
			if idle := p.Idle(w); idle < 0 || idle >= 1 {
				t.Fatalf("workers %d, %s: idle fraction %v", w, name, idle)
			}
		}
	}
}

// TestMocanuRewiring: under the SET authors' procedure, an epoch before
// the last regrows as many connections as it removes, with weights from
// N(0, InitScale²); the last epoch removes ⌊ζ·n⁺⌋ positive and ⌊ζ·n⁻⌋
// negative weights (n± counted just before it) and grows none.
func TestMocanuRewiring(t *testing.T) {
	d := randomData(4, 100, 40, 0)
	cfg := smallConfig(SET)
	cfg.Epochs, cfg.K, cfg.SETProcedure, cfg.Init, cfg.InitScale = 2, 1, Mocanu, Normal, 0.05
	tr, err := New(cfg, d)
	if err != nil {
		t.Fatal(err)
	}
	batches := (d.N + cfg.Batch - 1) / cfg.Batch
	var before [][]float32 // A and W after each epoch's last minibatch
	tr.afterBatch = func() {
		if tr.batch == batches {
			before = append(before, append([]float32(nil), tr.m.A...), append([]float32(nil), tr.m.W...))
		}
	}
	var after [][]float32
	opts := Options{OnEpoch: func(Record) error {
		after = append(after, append([]float32(nil), tr.m.A...), append([]float32(nil), tr.m.W...))
		return nil
	}}
	if err := tr.Train(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	count := func(a []float32) (n int) {
		for _, v := range a {
			if v != 0 {
				n++
			}
		}
		return n
	}
	// Epoch 1: the same count, the new weights N(0, 0.05²): mean |w| is
	// 0.05·√(2/π) ≈ 0.040 (U(±0.01) regrowth would give 0.005).
	if count(after[0]) != count(before[0]) {
		t.Fatalf("epoch 1 changed the connections %d → %d", count(before[0]), count(after[0]))
	}
	var sum float64
	grown := 0
	for k, a := range after[0] {
		if a != 0 && before[0][k] == 0 {
			sum += math.Abs(float64(after[1][k]))
			grown++
		}
	}
	if grown < 20 || sum/float64(grown) < 0.025 || sum/float64(grown) > 0.055 {
		t.Fatalf("epoch 1 grew %d connections with mean |w| %.4f, want N(0, 0.05²) (0.040)", grown, sum/float64(max(grown, 1)))
	}
	// Epoch 2 (the last): only removals.
	var pos, neg int
	for k, a := range before[2] {
		if a != 0 {
			if before[3][k] > 0 {
				pos++
			} else {
				neg++
			}
		}
	}
	want := pos + neg - int(cfg.Zeta*float64(pos)) - int(cfg.Zeta*float64(neg))
	if got := count(after[2]); got != want {
		t.Fatalf("after the last epoch %d connections, want %d (of %d positive, %d negative)", got, want, pos, neg)
	}
	for k, a := range after[2] {
		if a != 0 && before[2][k] == 0 {
			t.Fatalf("the last epoch grew connection %d", k)
		}
	}
}
