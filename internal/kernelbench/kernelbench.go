// Package kernelbench defines the kernel benchmarks once, for both of their
// runners: `go test -bench Kernel ./kernel` runs each case as
// BenchmarkKernel/<name>, and `ncgbench bench` (package bench) as
// kernel/<name>. A case is one call of one kernel on the MNIST shapes
// (H = 500, X = 784) under one tier, with the work one call does; the
// runners time it and report work per second.
//
// Names are <kernel>/<tier>/<shape>, one case per tier this CPU runs, so
// that benchstat compares tiers; gonum's BLAS is the baseline of the dense
// product under the tier names "gonum" (all cores) and "gonum-1core" (one
// core, as our kernels run), and "copy/go" (Go's copy of as many bytes)
// that of the fused update.
//
// It is internal: no part of the library's API, and it does not import
// package testing.
package kernelbench

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"

	"github.com/ncg-rbm/ncg/internal/kerneltier"
	"github.com/ncg-rbm/ncg/kernel"
)

// Unit is what a case's Work counts.
type Unit int

const (
	// Flops: Work is floating-point operations, reported in GFLOP/s.
	Flops Unit = iota
	// Bytes: Work is bytes read and written, reported in GB/s (go test's
	// MB/s column, through SetBytes).
	Bytes
)

// String is the unit of the reported rate: "GFLOP/s" or "GB/s".
func (u Unit) String() string {
	if u == Bytes {
		return "GB/s"
	}
	return "GFLOP/s"
}

// Case is one kernel benchmark.
type Case struct {
	Name string // <kernel>/<tier>/<shape>
	// Tier is the kernel tier the case runs under; "" for a baseline that
	// runs none of our kernels (gonum, Go's copy).
	Tier string
	// Procs is GOMAXPROCS while the case is measured; 0 leaves it.
	Procs int
	Work  float64 // per call, in Unit
	Unit  Unit
	// Detail marks a diagnostic case (a layout or a bound of the
	// binary-state product, docs/kernels.md) that go test -bench runs and
	// ncgbench's standard suite leaves out.
	Detail bool
	// Call runs the kernel once. Cases share their buffers: run them one
	// at a time.
	Call func()
}

// Use sets the process up to measure c (its tier and GOMAXPROCS) and
// returns the function that puts both back.
func (c Case) Use() (restore func(), err error) {
	restoreTier := func() {}
	if c.Tier != "" {
		if restoreTier, err = kerneltier.Use(c.Tier); err != nil {
			return func() {}, err
		}
	}
	if c.Procs > 0 {
		prev := runtime.GOMAXPROCS(c.Procs)
		return func() { runtime.GOMAXPROCS(prev); restoreTier() }, nil
	}
	return restoreTier, nil
}

// The MNIST shapes: H hidden, X visible units; EW is the length of the
// element-wise kernels' vectors (64 chains × H).
const (
	H  = 500
	X  = 784
	EW = 64 * H
)

// Shape parts of the case names.
var (
	// MatShape names an H×X matrix.
	MatShape = fmt.Sprintf("x%d-h%d", X, H)
	// EWShape names an element-wise vector of EW floats.
	EWShape = fmt.Sprintf("n%d", EW)
)

// ProductShape names a block product of nc chains on the H×X matrix.
func ProductShape(nc int) string { return fmt.Sprintf("%s-c%d", MatShape, nc) }

// Chains are the block sizes of the product cases.
var Chains = []int{8, 16, 64}

// RandSlice returns n floats uniform in [lo, hi) drawn from r.
func RandSlice(r *rand.Rand, n int, lo, hi float32) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = lo + (hi-lo)*r.Float32()
	}
	return s
}

// BinarySlice returns n binary states, each 1 with probability p, drawn
// from r.
func BinarySlice(r *rand.Rand, n int, p float64) []float32 {
	s := make([]float32, n)
	for i := range s {
		if r.Float64() < p {
			s[i] = 1
		}
	}
	return s
}

// Cases returns every kernel case for the tiers this CPU runs, in a fixed
// order, with their inputs allocated and filled from a fixed seed.
func Cases() []Case {
	r := rand.New(rand.NewPCG(1, 1))
	m := RandSlice(r, X*H, -1, 1) // Cᵀ: X×H
	bias := RandSlice(r, H, -1, 1)
	flops := func(nc int) float64 { return 2.0 * float64(nc*X*H) }
	probs := RandSlice(r, 64*X, 0, 1)
	states := BinarySlice(r, 64*X, 0.13) // MNIST's density
	out := make([]float32, 64*H)
	idx := make([]int32, 64*X)
	counts := make([]int32, 64)
	tiers := kernel.Tiers()
	var cs []Case
	perTier := func(kern, shape string, work float64, unit Unit, detail bool, call func()) {
		for _, t := range tiers {
			cs = append(cs, Case{Name: kern + "/" + t + "/" + shape, Tier: t, Work: work, Unit: unit, Detail: detail, Call: call})
		}
	}

	// The dense block product; gonum's Sgemm splits the work over
	// GOMAXPROCS goroutines, so it runs twice: on every core ("gonum") and
	// on one ("gonum-1core"), like for like with ours.
	for _, nc := range Chains {
		sgemm := func() {
			// out (nc×H) = probs (nc×X) · m (X×H), bias left out.
			gonum.Implementation{}.Sgemm(blas.NoTrans, blas.NoTrans, nc, H, X, 1, probs, X, m, H, 0, out, H)
		}
		cs = append(cs,
			Case{Name: "dense/gonum/" + ProductShape(nc), Work: flops(nc), Unit: Flops, Call: sgemm},
			Case{Name: "dense/gonum-1core/" + ProductShape(nc), Procs: 1, Work: flops(nc), Unit: Flops, Call: sgemm})
	}
	for _, nc := range Chains {
		perTier("dense", ProductShape(nc), flops(nc), Flops, false, func() {
			kernel.Affine(out, bias, probs, m, nc, X, H)
		})
	}
	// A column tile of a DBM's mean field: 100 rows of 1000 real inputs
	// (the upper layer's means) times a packed 1000×64 tile of C.
	tileIn, tile, tileOut := RandSlice(r, 100*1000, 0, 1), RandSlice(r, 1000*64, -1, 1), make([]float32, 100*64)
	perTier("dense", "tile-x1000-h64-c100", 2.0*100*1000*64, Flops, false, func() {
		kernel.Affine(tileOut, nil, tileIn, tile, 100, 1000, 64)
	})

	// A DBM's negative statistics between its hidden layers (100 chains
	// of 500 and 1000 units, half on): the states packed into bits
	// (bytes of states read) and their product by bit counts (the work is
	// the dense-equivalent flops, as for binary13).
	s1, s2 := BinarySlice(r, 100*500, 0.5), BinarySlice(r, 100*1000, 0.5)
	words := kernel.BitWords(100)
	b1, b2, both := make([]uint64, words*500), make([]uint64, words*1000), make([]float32, 500*1000)
	kernel.PackBits(b1, 500, s1, 500, 100, 500)
	perTier("bits", "pack-c100-n1000", 4*100*1000, Bytes, false, func() {
		kernel.PackBits(b2, 1000, s2, 1000, 100, 1000)
	})
	perTier("bits", "both-c100-500x1000", 2.0*100*500*1000, Flops, false, func() {
		kernel.BothOn(both, b1, 500, b2, 1000, words, 500, 1000)
	})

	// The binary-state product at 13% ones, the same shapes; the work is
	// the dense-equivalent flops, so it compares directly with the dense
	// form. binary13 reads m as the engine keeps it, rows PadStride(H)
	// floats apart from a 64-byte boundary; binary13-unpadded reads the
	// rows of 500 floats of m itself.
	ld := kernel.PadStride(H)
	pm := kernel.Aligned(X * ld)
	for j := 0; j < X; j++ {
		copy(pm[j*ld:j*ld+H], m[j*H:(j+1)*H])
	}
	for _, v := range []struct {
		name   string
		m      []float32
		ld     int
		detail bool
	}{{"binary13", pm, ld, false}, {"binary13-unpadded", m, H, true}} {
		for _, nc := range Chains {
			perTier(v.name, ProductShape(nc), flops(nc), Flops, v.detail, func() {
				kernel.AffineBinaryStride(out, bias, states, v.m, v.ld, nc, X, H, idx, counts)
			})
		}
	}

	// rowrate is the rate (bytes of rows added, 500 floats a row) at which
	// the binary-state product's row sums run when every chain has the same
	// first R rows: how fast rows reach the adds when a row block × tile
	// (R × 128 floats, at most 112 rows) is reused from L1 by the chains
	// (R ≤ 64 rows, 32 KB) and when it is not. It bounds binary13: at 13%
	// ones the 8 chains add about 815 rows, of which about 527 differ
	// (docs/kernels.md derives the bound).
	for _, nc := range []int{8, 64} {
		for _, rows := range []int{8, 64, 112, X} {
			ri := make([]int32, nc*X)
			rc := make([]int32, nc)
			for c := range rc {
				for j := 0; j < rows; j++ {
					ri[c*X+j] = int32(j)
				}
				rc[c] = int32(rows)
			}
			perTier("rowrate", fmt.Sprintf("c%d-rows%d", nc, rows), float64(4*nc*rows*H), Bytes, true, func() {
				kernel.SumRowsBatch(out, pm, ld, nc, X, H, ri, rc)
			})
		}
	}

	// FlipRows as a Gibbs step of the training chains runs it: the up pass
	// adds the rows (H floats, PadStride(H) apart) of the visible units
	// that switched on and subtracts those that switched off, the down pass
	// the same with rows of the hidden-major copy (X floats). About 60
	// units switch per step either way (docs/kernels.md), half on, half
	// off, cycled through 64 lists so that the rows come from L2 and L3 as
	// in training. The work is the bytes of the rows.
	mt := RandSlice(r, H*X, -1, 1) // the hidden-major copy: H rows of X
	for _, v := range []struct {
		shape       string
		m           []float32
		ld, nin, nv int
	}{{"up-x784-h500", pm, ld, X, H}, {"down-h500-x784", mt, X, H, X}} {
		const lists, flips = 64, 60
		on, off := make([][]int32, lists), make([][]int32, lists)
		for l := range on {
			for _, j := range r.Perm(v.nin)[:flips] {
				if len(on[l]) < flips/2 {
					on[l] = append(on[l], int32(j))
				} else {
					off[l] = append(off[l], int32(j))
				}
			}
			slices.Sort(on[l])
			slices.Sort(off[l])
		}
		o, tmp, l := make([]float32, v.nv), make([]float32, v.nv), 0
		perTier("fliprows", v.shape, float64(4*flips*v.nv), Bytes, false, func() {
			l = (l + 1) % lists
			kernel.FlipRows(o, v.m, v.ld, on[l], off[l], tmp, v.nv)
		})
	}

	// Element-wise kernels on EW floats; the work is the bytes of the inputs.
	src := RandSlice(r, EW, -8, 8)
	dst := make([]float32, EW)
	st := make([]float32, EW)
	s := kernel.NewStream(1, 2)
	sigma := RandSlice(r, EW, 0.5, 2)
	pos := make([]int32, EW)
	on, off := make([]int32, EW), make([]int32, EW)
	states2 := [2][]float32{BinarySlice(r, EW, 0.25), make([]float32, EW)}
	for i, v := range states2[0] {
		states2[1][i] = v
		if r.Float64() < 0.1 {
			states2[1][i] = 1 - v
		}
	}
	ref, flip := append([]float32(nil), states2[0]...), 0
	for _, e := range []struct {
		name   string
		inputs int // vectors of EW floats read
		f      func()
	}{
		{"sigmoid", 1, func() { kernel.Sigmoid(dst, src) }},
		{"softplus", 1, func() { kernel.Softplus(dst, src) }},
		{"bernoulli", 1, func() { kernel.Bernoulli(st, dst, &s) }},
		{"sigmoidbernoulli", 1, func() { kernel.SigmoidBernoulli(dst, st, src, &s) }},
		{"gaussian", 2, func() { kernel.GaussianSample(dst, src, sigma, &s) }},
		{"indices", 1, func() { kernel.Indices(pos, st) }},
		// Changes from one state to another that differs in a tenth of
		// the units, a quarter of them on (as MNIST's visible states
		// between Gibbs steps); each call moves ref to the other state.
		{"changes", 2, func() { flip ^= 1; kernel.Changes(pos, on, off, ref, states2[flip]) }},
	} {
		perTier(e.name, EWShape, float64(4*EW*e.inputs), Bytes, false, e.f)
	}

	// The fused update streams H×X matrices; copy/go is its reference: a
	// copy of as many bytes read and written (NCG reads w, a′, a, g and
	// writes w, a′, a, c, g: 9 arrays).
	nn := X * H
	w, ap, a, c := RandSlice(r, nn, -1, 1), RandSlice(r, nn, 0, 1), BinarySlice(r, nn, 0.5), make([]float32, nn)
	gg := make([]float32, nn)
	big, bigDst := make([]float32, 9*nn/2), make([]float32, 9*nn/2)
	cs = append(cs, Case{Name: "copy/go/" + MatShape, Work: float64(4 * 9 * nn), Unit: Bytes, Call: func() { copy(bigDst, big) }})
	perTier("updatencg", MatShape, float64(4*9*nn), Bytes, false, func() {
		kernel.UpdateNCG(w, ap, a, c, gg, 1e-4, 1e-4, 0.5)
	})
	// The update with momentum and decay (NCG): reads w, a′, a, g, v and
	// writes w, a′, a, c, g, v (11 arrays). A diagnostic case.
	v := make([]float32, nn)
	mom := kernel.Step{LR: 0.1, InvB: 1.0 / 50, Mu: 0.9, L2: 2e-4, LRA: 0.5 / 50, Gamma: 0.5}
	perTier("updatemomncg", MatShape, float64(4*11*nn), Bytes, true, func() {
		kernel.UpdateMomentumNCG(w, ap, a, c, gg, v, mom)
	})
	perTier("transpose", MatShape, float64(4*2*nn), Bytes, false, func() {
		kernel.Transpose(c, w, X, H)
	})
	sparseCases(r, perTier)
	softmaxCases(perTier)
	return cs
}

// softmaxShapes are the rows of the categorical sampling cases: the
// group sizes of Connect-4 (42 cells of 3 states), Mushrooms (21
// attributes of 1–12 values), a label group of 10, one group of 500 units,
// and 100 units in groups of 1 or 2.
var softmaxShapes = func() []struct {
	Name  string
	Sizes []int
} {
	r := rand.New(rand.NewPCG(3, 3))
	pairs := make([]int, 0, 67)
	for n := 0; n < 100; {
		k := min(1+r.IntN(2), 100-n)
		pairs = append(pairs, k)
		n += k
	}
	return []struct {
		Name  string
		Sizes []int
	}{
		{"connect4-u126", slices.Repeat([]int{3}, 42)},
		{"mushrooms-u112", []int{6, 4, 10, 2, 9, 2, 2, 2, 12, 2, 4, 4, 9, 9, 1, 4, 3, 5, 9, 6, 7}},
		{"label10-u10", []int{10}},
		{"group500-u500", []int{500}},
		{"pairs-u100", pairs},
	}
}()

// softmaxCases are categorical sampling (kernel.SoftmaxSample), one
// chain's row a call as the engine calls it, beside the fused sigmoid
// and Bernoulli sampling of as many binary units (sigmoidbernoulli on the
// same shape names); the work is the bytes of the inputs. Diagnostic
// cases, with inputs of their own seed.
func softmaxCases(perTier func(kern, shape string, work float64, unit Unit, detail bool, call func())) {
	r := rand.New(rand.NewPCG(4, 4))
	s := kernel.NewStream(1, 3)
	for _, sh := range softmaxShapes {
		groups := []int32{0}
		for _, k := range sh.Sizes {
			groups = append(groups, groups[len(groups)-1]+int32(k))
		}
		n := int(groups[len(groups)-1])
		pre := RandSlice(r, n, -4, 4)
		prob, state := make([]float32, n), make([]float32, n)
		perTier("softmaxsample", sh.Name, float64(4*n), Bytes, true, func() {
			kernel.SoftmaxSample(prob, state, pre, groups, &s)
		})
		perTier("sigmoidbernoulli", sh.Name, float64(4*n), Bytes, true, func() {
			kernel.SigmoidBernoulli(prob, state, pre, &s)
		})
	}
}

// sparseCases are the products and the gradient sums of a compressed-row
// model: SET's paper setting (X = 784, H = 2500, ε = 11: 1.8% of the
// connections), for 8, 16 and 32 interleaved chains (kernel.SparseAffine)
// and for 32 chain-major chains of binary states (SparseAffineBinary)
// whose inputs are binary (13% ones up, 50% down) or real (the mean-field
// product of the SET authors' procedure), and the sum of 13 rows of the
// statistics at one visible row's connections (kernel.GatherSum) and the
// SET authors' negative term (kernel.DotRows). The work is the flops of
// the present connections (a multiply and an add per chain and
// connection).
func sparseCases(r *rand.Rand, perTier func(kern, shape string, work float64, unit Unit, detail bool, call func())) {
	const sx, sh = X, 2500
	dens := 11.0 * (sx + sh) / (sx * sh)
	vis := randomCSR(r, sx, sh, dens)
	hid := transposeCSR(vis, sh)
	shape := "x784-h2500-set"
	for _, lanes := range []int{8, 16, 32} {
		up, down := BinarySlice(r, sx*lanes, 0.13), BinarySlice(r, sh*lanes, 0.5)
		real := RandSlice(r, sx*lanes, 0, 1)
		hOut, vOut := make([]float32, sh*lanes), make([]float32, sx*lanes)
		hb, vb := RandSlice(r, sh, -1, 1), RandSlice(r, sx, -1, 1)
		flops := float64(2 * lanes * len(vis.Col()))
		kern := fmt.Sprintf("sparse%d", lanes)
		perTier(kern, "up-"+shape, flops, Flops, false, func() { kernel.SparseAffine(hOut, hb, up, lanes, hid) })
		perTier(kern, "down-"+shape, flops, Flops, false, func() { kernel.SparseAffine(vOut, vb, down, lanes, vis) })
		perTier(kern, "real-"+shape, flops, Flops, true, func() { kernel.SparseAffine(hOut, hb, real, lanes, hid) })
	}
	// The binary products as the engine calls them: 32 chains, chain-major
	// inputs and outputs (interleaving included), at 13% ones up and 50%
	// down.
	const nc = 32
	upIn, downIn := BinarySlice(r, nc*sx, 0.13), BinarySlice(r, nc*sh, 0.5)
	hcm, vcm := make([]float32, nc*sh), make([]float32, nc*sx)
	upW, downW := kernel.NewSparseWork(sh, sx), kernel.NewSparseWork(sx, sh)
	hb0, vb0 := RandSlice(r, sh, -1, 1), RandSlice(r, sx, -1, 1)
	bflops := float64(2 * nc * len(vis.Col()))
	perTier("sparsebinary", "up-c32-"+shape, bflops, Flops, false, func() {
		kernel.SparseAffineBinary(hcm, hb0, upIn, nc, hid, upW)
	})
	perTier("sparsebinary", "down-c32-"+shape, bflops, Flops, false, func() {
		kernel.SparseAffineBinary(vcm, vb0, downIn, nc, vis, downW)
	})
	stat := RandSlice(r, 100*sh, -1, 1)
	rows := make([]int32, 13)
	for i := range rows {
		rows[i] = int32(r.IntN(100))
	}
	slices.Sort(rows)
	dst := make([]float32, sh)
	var work float64
	for j := 0; j < sx; j++ {
		work += float64(len(rows) * int(vis.Ptr()[j+1]-vis.Ptr()[j]))
	}
	perTier("gathersum", "rows13-"+shape, 2*work, Flops, false, func() {
		for j := 0; j < sx; j++ {
			p := vis.Ptr()
			kernel.GatherSum(dst, stat, sh, rows, vis.Col()[p[j]:p[j+1]])
		}
	})
	// The SET authors' negative term (kernel.DotRows): for every visible
	// row, its mean-field states over 56 slots (50 and padding) with each
	// connection's row of negated hidden samples.
	const slots = 56
	statT := RandSlice(r, sh*slots, -1, 1)
	vbar := RandSlice(r, sx*slots, 0, 1)
	offs := make([]int32, len(vis.Col()))
	for k, c := range vis.Col() {
		offs[k] = c * slots
	}
	perTier("dotrows", "slots56-"+shape, 2*float64(slots*len(offs)), Flops, false, func() {
		p := vis.Ptr()
		for j := 0; j < sx; j++ {
			kernel.DotRows(dst, vbar[j*slots:(j+1)*slots], statT, offs[p[j]:p[j+1]])
		}
	})
}

// randomCSR is a rows×cols compressed-row matrix with each entry present
// with probability dens, values in (−1, 1).
func randomCSR(r *rand.Rand, rows, cols int, dens float64) *kernel.CSR {
	ptr := []int32{0}
	var col []int32
	var val []float32
	for o := 0; o < rows; o++ {
		for j := 0; j < cols; j++ {
			if r.Float64() < dens {
				col, val = append(col, int32(j)), append(val, 2*r.Float32()-1)
			}
		}
		ptr = append(ptr, int32(len(col)))
	}
	m, err := kernel.NewCSR(rows, cols, ptr, col, val)
	if err != nil {
		panic(err)
	}
	return m
}

// transposeCSR is m's other orientation (cols rows of m.Rows() columns).
func transposeCSR(m *kernel.CSR, cols int) *kernel.CSR {
	ptr := make([]int32, cols+1)
	for _, c := range m.Col() {
		ptr[c+1]++
	}
	for i := 0; i < cols; i++ {
		ptr[i+1] += ptr[i]
	}
	next := append([]int32(nil), ptr[:cols]...)
	col, val := make([]int32, len(m.Col())), make([]float32, len(m.Col()))
	for o := 0; o < m.Rows(); o++ {
		for k := m.Ptr()[o]; k < m.Ptr()[o+1]; k++ {
			c := m.Col()[k]
			col[next[c]], val[next[c]] = int32(o), m.Val[k]
			next[c]++
		}
	}
	t, err := kernel.NewCSR(cols, m.Rows(), ptr, col, val)
	if err != nil {
		panic(err)
	}
	return t
}
