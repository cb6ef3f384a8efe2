package engine

import (
	"math/rand/v2"

	"github.com/ncg-rbm/ncg/kernel"
	"github.com/ncg-rbm/ncg/unit"
)

// A DBM's joint training (docs/algorithm.md, "Deep Boltzmann machines"),
// after Salakhutdinov & Hinton (AISTATS 2009). Every update takes a
// minibatch of B data rows and M persistent chains:
//
//   - positive phase, mean field: the bottom-up pass μ^l = σ(b^l +
//     f·C^{l−1}ᵀμ^{l−1}) with f = 2 below the top layer (standing in for
//     the input from above) and 1 at the top, μ⁰ = v; then MeanField
//     fixed-point sweeps μ^l = σ(b^l + C^{l−1}ᵀμ^{l−1} + C^l μ^{l+1}), l
//     from the bottom up;
//   - negative phase: Gibbs sweeps of the chains, the odd layers drawn
//     given the even ones, then the even ones given the odd;
//   - gradient of matrix l: Σ μ^l μ^{l+1}ᵀ − (B/M) Σ s^l s^{l+1}ᵀ over rows
//     and chains (s the chains' states), of the biases Σ μ^l − (B/M) Σ s^l,
//     applied with the same update kernels as an RBM's (NCG's A′ of each
//     matrix from that matrix's gradient and weights).
//
// Mean field runs on blocks of blockSize rows, the chains on blocks of
// blockSize chains, the gradient and update on chunks of rows of each
// matrix: every task's arithmetic is fixed by the data and the seed, so
// the result does not depend on the workers.

// dbmJoint is the state of a DBM's joint training.
type dbmJoint struct {
	cfg    JointConfig
	layers []Config // each matrix's method and connectivity settings
	seed   uint64
	data   *Data
	rbms   []*Model
	n      []int // units per layer
	bias   [][]float32
	vis    unit.Type
	groups []int32   // categorical visible units' groups
	sigma  []float32 // Gaussian visible units' σ
	scale  []float32 // their input scale 1/σ² (nil for other types)

	epoch, batch int
	reconSum     float64 // the current epoch's summed reconstruction error
	perm         []int32
	rows         []int32
	nb           int

	mu, s [][]float32 // per layer: mean field (B rows), chain states (M)
	in1   []float32   // B×n[1]: C⁰ᵀv, the bottom layer's fixed input
	in1b  []float32   // B×n[1]: b¹ + C⁰ᵀv, its sum with the layer's bias
	muT   [][]float32 // per layer below the top: mu transposed
	s0T   []float32   // n[0]×M: Gaussian visible chain states transposed
	// The chains' 0/1 states packed into bits (kernel.PackBits), for the
	// negative statistics (kernel.BothOn, one AND and population count
	// per 64 chains): per layer, the visible one unless Gaussian, and
	// the packing tasks (units j0…j1 of k).
	bits     [][]uint64
	bitTasks []dbmChunk
	bitsFn   func(int)
	streams  []kernel.Stream
	gb       [][]float32 // the biases' gradients, per layer
	vel      [][]float32 // per matrix (momentum)
	velB     [][]float32 // per layer (momentum)

	mfSc    []dbmScratch // per mean-field block
	chainSc []dbmScratch // per chain block
	chunks  []dbmChunk   // the row chunks of the gradient phase
	rowSc   []rowScratch // per worker
	biasTsk []dbmChunk   // the bias chunks
	rowOK   []bool       // per chunk
	biasOK  []bool
	alpha   float32
	step    kernel.Step
	pool    *pool

	loadFn    func(int) // the phases' tasks, bound once
	gradFn    func(task, worker int)
	biasSumFn func(int)
	ctr       *dbmCentring // centred training, or nil

	// The mean field's products run on column tiles of a layer (mfTile
	// units), all the minibatch's rows at once, so that a tile of C is
	// read from memory once a sweep, not once a block of rows; so do the
	// chains' (dbmchain.go). upPk[k] holds C^k (n[k]×n[k+1]) and
	// downPk[k] its transpose (n[k+1]×n[k]) as consecutive column tiles,
	// each tile's rows contiguous: the update's row tasks rewrite their
	// rows of them, packFn packs a row chunk when C changed otherwise
	// (packed false); tileFn runs a tile of the layer and sweep that
	// mfLayer, mfFactor and mfAbove name.
	upPk, downPk   [][]float32
	packed         bool       // the tiles hold the current C
	tiles          []dbmChunk // per layer l ≥ 1, its tiles: k = l
	tileOff        []int      // layer l's tiles start at tiles[tileOff[l]]
	tileSc         [][]float32
	mfLayer        int
	mfFactor       float32
	mfAbove        bool
	packFn, tileFn func(int)
	reconFn        func(int)
	visTiles       []dbmChunk
	vpre, vprob    []float32 // B×n[0]: the reconstruction's input and mean
	cFromW         []bool    // per matrix: C is W, and sync copies it (weights)
	reconPart      []float64 // per row block: its squared error

	// The chains' sweeps (dbmchain.go): per layer, the chains' input and
	// the lists of their ones (nil for real-valued states); the visible
	// states scaled by 1/σ² (Gaussian units with σ ≠ 1); the tile tasks of
	// each half-sweep (by the parity of the layers drawn) and their
	// scratch.
	chPre                [][]float32
	chOnes               []*kernel.Ones
	chIn0                []float32
	chTiles              [2][]dbmChunk
	chTileSc             [][]float32
	chParity             int
	chainFn, chainTileFn func(int)
	listFn               func(int)

	// The phases of the mean field, of one Gibbs sweep and of a
	// minibatch's sweeps and bits; the minibatch's schedule of the two
	// (for the pool's workers); a mixed phase's order of tasks and their
	// functions (dbmphases.go).
	fieldPh, sweepPh, chainPh []dbmPhase
	sched                     []mixedPhase
	schedWorkers              int
	mix                       []int32
	mixA, mixB                func(int)
	mixFn                     func(int)
}

// mfTile is the width of a mean-field column tile: 64 floats, the width
// the dense product's kernels keep in registers for each of their rows.
const mfTile = 64

// newDBMScratch returns the scratch of n block tasks, for layers of at
// most wide units and x visible units.
func newDBMScratch(n, wide, x int) []dbmScratch {
	s := make([]dbmScratch, n)
	for i := range s {
		s[i] = dbmScratch{pre: make([]float32, blockSize*wide), prob: make([]float32, blockSize*wide),
			in:  make([]float32, blockSize*x),
			idx: make([]int32, blockSize*wide), cnt: make([]int32, blockSize)}
	}
	return s
}

// dbmScratch is one block task's scratch.
type dbmScratch struct {
	pre, prob []float32 // blockSize × the widest layer
	in        []float32 // blockSize × n[0]: a visible input
	idx       []int32   // blockSize × the widest layer
	cnt       []int32
}

// dbmChunk is rows j0…j1−1 of matrix k (the gradient phase) or units
// j0…j1−1 of layer k (the biases).
type dbmChunk struct{ k, j0, j1 int }

// binaryVisible reports whether the visible states are 0 and 1.
func (t *dbmJoint) binaryVisible() bool { return t.vis != unit.Gaussian }

func newDBMJoint(cfg StackConfig, d *Data, rbms []*Model) *dbmJoint {
	L := len(rbms)
	t := &dbmJoint{cfg: cfg.Joint, seed: cfg.Seed, data: d, rbms: rbms, vis: rbms[0].Visible}
	for l := range rbms {
		t.layers = append(t.layers, cfg.LayerConfig(l))
	}
	t.n = (&Stack{RBMs: rbms}).Sizes()
	// One bias per layer: an intermediate layer's is the sum of the two
	// the stack holds (Stack.Bias), kept in the lower RBM's hidden biases
	// (foldBiases leaves the upper one zero).
	t.bias = make([][]float32, L+1)
	t.bias[0] = rbms[0].VisibleBias
	for l := 1; l <= L; l++ {
		b := rbms[l-1].HiddenBias
		if l < L {
			for i, v := range rbms[l].VisibleBias {
				b[i] += v
				rbms[l].VisibleBias[i] = 0
			}
		}
		t.bias[l] = b
	}
	t.alloc()
	t.initChains()
	return t
}

func (t *dbmJoint) alloc() {
	L, B, M := len(t.rbms), t.cfg.Batch, t.cfg.chains()
	m0 := t.rbms[0]
	if t.vis == unit.Categorical {
		t.groups = make([]int32, len(m0.Groups))
		for k, v := range m0.Groups {
			t.groups[k] = int32(v)
		}
	}
	if t.vis == unit.Gaussian {
		t.sigma, t.scale = m0.Sigma, m0.inputScale()
	}
	t.perm = make([]int32, t.data.N)
	wide := 0
	t.mu, t.s = make([][]float32, L+1), make([][]float32, L+1)
	t.muT = make([][]float32, L)
	t.gb, t.velB = make([][]float32, L+1), make([][]float32, L+1)
	for l, n := range t.n {
		wide = max(wide, n)
		t.mu[l], t.s[l] = make([]float32, B*n), make([]float32, M*n)
		t.gb[l] = make([]float32, n)
		if l < L {
			t.muT[l] = make([]float32, n*B)
		}
	}
	t.in1, t.in1b = make([]float32, B*t.n[1]), make([]float32, B*t.n[1])
	// Bits of every layer whose chain states are 0 and 1, for the
	// negative statistics (Gaussian visible units: transposed states).
	lo := 0
	if !t.binaryVisible() {
		lo = 1
		t.s0T = make([]float32, t.n[0]*M)
	}
	if L-lo >= 1 {
		t.bits = make([][]uint64, L+1)
		for l := lo; l <= L; l++ {
			t.bits[l] = make([]uint64, kernel.BitWords(M)*t.n[l])
			for j := 0; j < t.n[l]; j += bitsChunk {
				t.bitTasks = append(t.bitTasks, dbmChunk{l, j, min(j+bitsChunk, t.n[l])})
			}
		}
	}
	t.bitsFn = t.packBits
	t.vel = make([][]float32, L)
	momentum := t.cfg.Momentum != 0 || t.cfg.L2 != 0
	for k, m := range t.rbms {
		if momentum {
			t.vel[k] = make([]float32, m.X*m.H)
		}
	}
	if momentum {
		for l, n := range t.n {
			t.velB[l] = make([]float32, n)
		}
	}
	t.streams = make([]kernel.Stream, M)
	for c := range t.streams {
		t.streams[c] = kernel.NewStream(t.seed, keyJointChain+uint64(c))
	}
	t.mfSc, t.chainSc = newDBMScratch((B+blockSize-1)/blockSize, wide, t.n[0]), newDBMScratch((M+blockSize-1)/blockSize, wide, t.n[0])
	t.allocChains()
	// The bias chunks (the row chunks are allocChains').
	for l, n := range t.n {
		for j := 0; j < n; j += biasChunk {
			t.biasTsk = append(t.biasTsk, dbmChunk{l, j, min(j+biasChunk, n)})
		}
	}
	t.rowOK, t.biasOK = make([]bool, len(t.chunks)), make([]bool, len(t.biasTsk))
	t.loadFn, t.gradFn = t.loadBlock, t.gradTask
	t.tileOff = make([]int, L+2)
	for l := 1; l <= L; l++ {
		t.tileOff[l] = len(t.tiles)
		for o := 0; o < t.n[l]; o += mfTile {
			t.tiles = append(t.tiles, dbmChunk{l, o, min(o+mfTile, t.n[l])})
		}
	}
	t.tileOff[L+1] = len(t.tiles)
	for o := 0; o < t.n[0]; o += mfTile {
		t.visTiles = append(t.visTiles, dbmChunk{0, o, min(o+mfTile, t.n[0])})
	}
	t.vpre, t.vprob = make([]float32, B*t.n[0]), make([]float32, B*t.n[0])
	// A tile's scratch, by its index in its layer (a phase runs one
	// layer's tiles, or the visible ones): the input from below and the
	// composed AffineSigmoid's tmp, B rows each.
	most := len(t.visTiles)
	for l := 1; l <= L; l++ {
		most = max(most, t.tileOff[l+1]-t.tileOff[l])
	}
	t.tileSc = make([][]float32, most)
	for i := range t.tileSc {
		t.tileSc[i] = make([]float32, 2*B*mfTile)
	}
	t.tileFn, t.reconFn, t.mixFn = t.tileTask, t.reconTask, t.mixTask
	t.fieldPh = fieldPhases(L, t.cfg.MeanField)
	t.chainPh = minibatchChains(t.cfg.Gibbs, len(t.bitTasks) > 0)
	t.biasSumFn = t.biasSumTask
	// A dense matrix's C is its W. Without momentum or centring (which
	// read C in the row tasks), the updates write W alone, and C is
	// copied from W when training stops or the model is read (sync):
	// a third less memory written a minibatch.
	t.cFromW = make([]bool, L)
	for k, lc := range t.layers {
		t.cFromW[k] = lc.Method == Dense && t.vel[k] == nil && !t.cfg.Centre
	}
	t.reconPart = make([]float64, (B+blockSize-1)/blockSize)
	t.allocCentre()
}

// rowScratch is a worker's scratch for the gradient's row tasks: a row
// chunk's gradient and the chains' share of it, and the index lists of
// its transposed states. One a worker, not one a chunk: the tasks of a
// worker reuse it from its caches.
type rowScratch struct {
	g, neg []float32
	idx    []int32
	cnt    []int32
}

// rowScratchFor returns the scratch of every worker of pool p, allocated
// on first use.
func (j *dbmJoint) rowScratchFor(p *pool) []rowScratch {
	if len(j.rowSc) < p.workers {
		wide := 0
		for _, n := range j.n[1:] {
			wide = max(wide, n)
		}
		B, M := j.cfg.Batch, j.cfg.chains()
		j.rowSc = make([]rowScratch, p.workers)
		for w := range j.rowSc {
			j.rowSc[w] = rowScratch{g: make([]float32, rowChunk*wide), neg: make([]float32, rowChunk*wide),
				idx: make([]int32, rowChunk*max(B, M)), cnt: make([]int32, rowChunk)}
		}
	}
	return j.rowSc
}

// initChains starts every chain at a data row drawn from the seed, its
// hidden layers drawn upward as the mean field's bottom-up pass
// (doubled inputs below the top).
func (t *dbmJoint) initChains() {
	M, x := t.cfg.chains(), t.n[0]
	rng := rand.New(rand.NewPCG(t.seed, keyJointInit))
	v := t.s[0]
	for c := 0; c < M; c++ {
		t.loadRow(v[c*x:(c+1)*x], rng.IntN(t.data.N))
	}
	L := len(t.rbms)
	for c0 := 0; c0 < M; c0 += blockSize {
		c1 := min(c0+blockSize, M)
		sc := &t.chainSc[c0/blockSize]
		for l := 1; l <= L; l++ {
			f := float32(2)
			if l == L {
				f = 1
			}
			pre := t.upInput(sc, l, t.s[l-1], c0, c1, l-1 == 0 && !t.binaryVisible())
			n := t.n[l]
			for c := c0; c < c1; c++ {
				p := pre[(c-c0)*n : (c-c0+1)*n]
				for i := range p {
					p[i] = t.bias[l][i] + f*p[i]
				}
				kernel.SigmoidBernoulli(sc.prob[:n], t.s[l][c*n:(c+1)*n], p, &t.streams[c])
			}
		}
	}
}

// loadRow sets dst to data row r (binary bytes or real values).
func (t *dbmJoint) loadRow(dst []float32, r int) {
	d := t.data
	if d.Real != nil {
		copy(dst, d.Real[r*d.D:(r+1)*d.D])
		return
	}
	for j, v := range d.X[r*d.D : (r+1)*d.D] {
		dst[j] = float32(v)
	}
}

// upInput returns, in the block's pre (rows of n[l]), the input of layer
// l from the layer below for rows c0…c1−1 of states (rows of n[l−1]):
// states · C^{l−1}, without bias. real says the states are real-valued
// (Gaussian visible units, scaled by 1/σ²); otherwise they are 0 and 1.
func (t *dbmJoint) upInput(sc *dbmScratch, l int, states []float32, c0, c1 int, real bool) []float32 {
	c := t.weights(l - 1)
	nin, nout, nc := t.n[l-1], t.n[l], c1-c0
	pre := sc.pre[:nc*nout]
	in := states[c0*nin : c1*nin]
	if real {
		if t.scale != nil {
			buf := sc.in[:nc*nin]
			for c := 0; c < nc; c++ {
				for j := 0; j < nin; j++ {
					buf[c*nin+j] = in[c*nin+j] * t.scale[j]
				}
			}
			in = buf
		}
		kernel.Affine(pre, nil, in, c, nc, nin, nout)
		return pre
	}
	kernel.AffineBinary(pre, nil, in, c, nc, nin, nout, sc.idx[:nc*nin], sc.cnt[:nc])
	return pre
}

// weights returns C of matrix k as joint training keeps it: the model's
// C, or for a matrix whose updates leave C to sync (cFromW), its W,
// which equals C there. (The chains of GibbsStack, which does not
// train, have no cFromW.)
func (t *dbmJoint) weights(k int) []float32 {
	if k < len(t.cFromW) && t.cFromW[k] {
		return t.rbms[k].W
	}
	return t.rbms[k].c
}
