package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/ncg-rbm/ncg/kernel"
)

// Random-generator keys: every source of randomness of a run is keyed by
// (Seed, one of these), so none depends on the order of another's use.
const (
	keyInit    = 1 << 40
	keyShuffle = 2 << 40 // + epoch
	keySET     = 3 << 40 // + epoch
	keyPT      = 4 << 40 // + temperature·Batch + slot: PT's chain streams
	// Slot streams use the plain batch-slot index as the key.
)

// Record is the summary of one epoch, delivered to OnEpoch.
type Record struct {
	Epoch      int     // 1-based
	Seconds    float64 // wall time of the epoch's training (evaluation excluded)
	ReconError float64 // mean squared error of the first reconstruction, per data unit
	Connectivity
	// Checkpoint is true when a checkpoint is written right after OnEpoch
	// returns, so callers can save their own records at the same points.
	Checkpoint bool
}

// Options are what a caller attaches to a run beyond its Config.
type Options struct {
	// OnEpoch receives each epoch's record; an error stops training (after
	// the checkpoint, if any, is written) and is returned.
	// The model may be read (not changed) during OnEpoch: an evaluation
	// between epochs goes there.
	OnEpoch func(Record) error
	// Checkpoint, if set, is the file written when training is cancelled,
	// after the last epoch, and after any epoch that ends at least
	// CheckpointEvery after the previous checkpoint (0: after every epoch).
	Checkpoint      string
	CheckpointEvery time.Duration
	// OnBatch, if set, is called after every minibatch with the 1-based
	// epoch, the minibatches done in it and its number of minibatches (for
	// progress displays; keep it cheap).
	OnBatch func(epoch, done, batches int)
	// Phases, if set, receives where the training time goes: Train adds
	// each minibatch's phases to it (a few clock reads per minibatch).
	Phases *Phases
}

// NumericalError reports a NaN or Inf found during training.
type NumericalError struct {
	Epoch, Batch int    // both 1-based
	Param        string // which parameter or statistic
}

func (e *NumericalError) Error() string {
	return fmt.Sprintf("epoch %d, minibatch %d: %s became NaN or Inf (try a smaller learning rate)", e.Epoch, e.Batch, e.Param)
}

// Trainer holds a run in progress: model, chain streams, position.
type Trainer struct {
	cfg  Config
	data *Data
	m    *Model

	// stop, set a grace period after Train's context is cancelled, makes
	// the chain loops of a long minibatch return early; broken records
	// that one did, leaving chains and streams mid-minibatch.
	stop   *atomic.Bool
	broken bool

	epoch int // completed epochs
	batch int // completed minibatches of the current epoch
	// The current epoch's summed reconstruction error and training seconds
	// over its completed minibatches: a checkpoint taken mid-epoch carries
	// them, so the record of a resumed epoch is the uninterrupted one's
	// (and its seconds leave out only the time the run was stopped).
	epochRecon, epochSeconds float64
	// reconFrom is the first minibatch epochRecon covers: 0, or the resume
	// position of a checkpoint too old to carry epochRecon.
	reconFrom int
	// streams are the Batch slot streams (the CD chains, the positive
	// phase, PT's swaps), then for PT one stream per tempered chain
	// (temperature-major, as pcd).
	streams []kernel.Stream
	sampler Sampler
	// pcd holds the persistent chain states, chainsPerSlot × Batch × X:
	// PCD's chains, or PT's with temperature m in rows m·Batch…
	pcd     []float32
	pcdInit bool
	betas   []float64 // PT's inverse temperatures
	energy  []float64 // PT: each chain's energy after its Gibbs step (as pcd)
	// Velocities of W, b and d, when momentum or decay is on (without
	// momentum they hold the last step); ones is the mask of a compressed
	// row's present connections.
	velW, velB, velV, ones []float32
	alpha                  float32     // α/B of the minibatch (plain update)
	step                   kernel.Step // the coefficients of the update otherwise

	// Scratch, sized once (no allocation per minibatch).
	perm                []int32
	gB, gV              []float32
	dvBlock             []float32 // per chain block: its share of gV (blockVisibleGrad)
	x0, xs, vpre, vprob []float32 // Batch×X
	xref                []float32 // Batch×X: the state hpre was computed for
	h, hpre, hprob      []float32 // Batch×H
	href                []float32 // Batch×H: the state vpre was computed for
	// hstat holds the statistics the gradient sums: ĥ⁺ of slot c in row c,
	// −ĥ⁻ (negated) in row Batch+c. hpos and nhneg are its two halves.
	hstat, hpos, nhneg []float32
	// xsT, nhT: xs and nhneg transposed (X×slotPad, H×slotPad: the
	// minibatch's slots, then zeros), the factors of the SET authors'
	// negative gradient on compressed rows (sparseRowUpdate).
	xsT, nhT []float32
	slotPad  int // Batch rounded up to a multiple of 8 (kernel.DotRows)
	// spRow, spCols: each row task's scratch on compressed rows (2·H floats,
	// H column offsets).
	spRow                  []float32
	spCols                 []int32
	scratch                []blockScratch
	block                  int     // chains of a chain task (blockSize or sparseBlock)
	posIdx, negIdx, tmpIdx []int32 // Batch×X
	hIdx                   []int32 // Batch×H
	posCnt, negCnt, tmpCnt []int32
	hCnt                   []int32
	// posOff, negOff: where each row chunk starts in a slot's posIdx and
	// negIdx lists (row chunks+1 entries per slot).
	posOff, negOff []int32
	// Per row task: the hstat rows each visible row of the chunk sums
	// (rowChunk lists of up to 2·Batch), their lengths, one gradient row.
	rowList, rowLen []int32
	grow            []float32
	recon           []float64 // per slot
	rowOK, visOK    []bool    // per row chunk: its rows of W, its visible biases are finite
	biasOK          []bool    // per chunk of hidden biases: all finite
	rows            []int32   // the data rows of the current minibatch's slots
	nb              int       // size of the current minibatch
	pool            *pool
	blockFn, rowFn  func(int)
	phases          *Phases      // Options.Phases during Train
	busy            atomic.Int64 // the current phase's busy time, when phases is set
	// sp is the compressed copy of C for sparse fixed-mask models (nil
	// otherwise), rebuilt when spStale (at the start and after a rewiring).
	sp         *sparseModel
	spStale    bool
	spDirty    bool    // sp's weights are newer than the model's (flush)
	up, down   weights // the products' matrices: C padded (up), CH (down)
	afterBatch func()  // test hook
	// vis is the visible units' behaviour (units.go); cdDown the CD
	// chains' down-pass matrix of the minibatch: down, or a Gaussian
	// model's compressed copy (gaussrows.go).
	vis    visibleUnits
	cdDown weights

	ctr *centring // centred training (centre.go), or nil

	identity json.RawMessage // SetIdentity's; saved in checkpoints
}

// New validates the configuration against the data and draws a new model.
func New(cfg Config, d *Data) (*Trainer, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	if err := cfg.Validate(d.D); err != nil {
		return nil, err
	}
	if err := cfg.checkData(d); err != nil {
		return nil, err
	}
	x := d.D + d.Classes
	rng := rand.New(rand.NewPCG(cfg.Seed, keyInit))
	t := &Trainer{cfg: cfg, data: d, m: initModel(cfg, x, d.D, rng)}
	t.setUnits()
	t.alloc()
	return t, nil
}

// setUnits gives the trainer and its model the configuration's visible
// unit type.
func (t *Trainer) setUnits() {
	t.vis = unitsOf(t.cfg.Visible)
	t.m.Visible = t.cfg.Visible
	t.vis.initModel(t.m, t.data)
}

func (t *Trainer) alloc() {
	b, x, h := t.cfg.Batch, t.m.X, t.m.H
	sparse := useSparse(t.cfg, t.m.DataUnits)
	t.block = blockSize
	if sparse {
		t.block = sparseBlock(b, t.workers())
	}
	t.sampler = t.cfg.sampler()
	chains := t.cfg.chainsPerSlot()
	nstreams := b
	if t.sampler == ParallelTempering {
		nstreams += chains * b
	}
	t.streams = make([]kernel.Stream, nstreams)
	for s := range t.streams {
		key := uint64(s)
		if s >= b {
			key = keyPT + uint64(s-b)
		}
		t.streams[s] = kernel.NewStream(t.cfg.Seed, key)
	}
	if chains > 0 {
		t.pcd = make([]float32, chains*b*x)
	}
	if t.sampler == ParallelTempering {
		t.betas = t.cfg.Betas()
		t.energy = make([]float64, chains*b)
	}
	if !t.cfg.plainUpdate() {
		t.velW, t.velB, t.velV = make([]float32, x*h), make([]float32, h), make([]float32, x)
	}
	t.perm = make([]int32, t.data.N)
	t.gB, t.gV = make([]float32, h), make([]float32, x)
	t.dvBlock = make([]float32, (b+t.block-1)/t.block*x)
	t.x0, t.xs, t.vpre, t.vprob, t.xref = make([]float32, b*x), make([]float32, b*x), make([]float32, b*x), make([]float32, b*x), make([]float32, b*x)
	t.h, t.hpre, t.hprob = make([]float32, b*h), make([]float32, b*h), make([]float32, b*h)
	t.href = make([]float32, b*h)
	t.hstat = make([]float32, 2*b*h)
	t.hpos, t.nhneg = t.hstat[:b*h], t.hstat[b*h:]
	t.scratch = make([]blockScratch, (b+t.block-1)/t.block)
	for i := range t.scratch {
		t.scratch[i] = blockScratch{up: newProduct(x, h), down: newProduct(h, x), u: make([]float32, max(chains-1, 0))}
	}
	t.posIdx, t.negIdx, t.tmpIdx = make([]int32, b*x), make([]int32, b*x), make([]int32, b*x)
	t.hIdx = make([]int32, b*h)
	t.posCnt, t.negCnt, t.tmpCnt, t.hCnt = make([]int32, b), make([]int32, b), make([]int32, b), make([]int32, b)
	t.recon = make([]float64, b)
	chunks := (x + rowChunk - 1) / rowChunk
	t.rowOK, t.visOK = make([]bool, chunks), make([]bool, chunks)
	t.biasOK = make([]bool, (h+biasChunk-1)/biasChunk)
	t.posOff, t.negOff = make([]int32, b*(chunks+1)), make([]int32, b*(chunks+1))
	t.rowList, t.rowLen = make([]int32, chunks*rowChunk*2*b), make([]int32, chunks*rowChunk)
	t.grow = make([]float32, chunks*h)
	t.blockFn, t.rowFn = t.cdBlock, t.rowTask
	switch {
	case t.sampler == ParallelTempering:
		t.blockFn = t.ptBlock
	case t.cfg.SETProcedure == Mocanu:
		t.blockFn = t.mocanuBlock
	}
	t.vis.alloc(t)
	t.allocCentre()
	if sparse {
		t.sp, t.spStale = &sparseModel{}, true
		t.spRow = make([]float32, chunks*2*h)
		t.ones = make([]float32, max(x, h)) // the mask of present connections (sparseRowUpdate)
		fill(t.ones, 1)
		for i := range t.scratch {
			t.scratch[i].upWork, t.scratch[i].downWork = kernel.NewSparseWork(h, x), kernel.NewSparseWork(x, h)
		}
		if t.cfg.SETProcedure == Mocanu {
			t.slotPad = (b + 7) &^ 7
			t.xsT, t.nhT = make([]float32, x*t.slotPad), make([]float32, h*t.slotPad)
			t.spCols = make([]int32, chunks*h)
		}
	}
}

// Model returns the model being trained (shared, not a copy). On
// compressed rows the model's dense arrays are brought up to date at the
// end of every epoch, when Train returns and by Model itself: a pointer
// kept across Step calls sees the weights of the last of these.
func (t *Trainer) Model() *Model {
	t.flush()
	return t.m
}

// Config returns the run's configuration.
func (t *Trainer) Config() Config { return t.cfg }

// Epoch returns the number of completed epochs.
func (t *Trainer) Epoch() int { return t.epoch }

func (t *Trainer) workers() int {
	if t.cfg.Workers > 0 {
		return t.cfg.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// Train runs the remaining epochs up to cfg.Epochs. When ctx is cancelled
// it finishes the current minibatch, writes the checkpoint (if
// opts.Checkpoint is set) and returns an error wrapping ctx.Err(). A
// minibatch still running MinibatchGrace after the cancellation (very many
// PT temperatures or Gibbs steps) is abandoned instead: the trainer then
// holds chains of a minibatch half done, which no checkpoint may record,
// so the checkpoint on disk stays the last one written (a run resumes from
// it) and the trainer refuses to train or save again.
func (t *Trainer) Train(ctx context.Context, opts Options) error {
	if err := kernel.Init(); err != nil {
		return err
	}
	if t.broken {
		return errBroken
	}
	t.Close() // a pool Step started: Train runs its own
	t.pool = newPool(t.workers())
	defer t.Close() // and leaves none behind, so a later Step starts afresh
	defer t.flush() // stopped mid-epoch on compressed rows
	t.phases = opts.Phases
	defer func() { t.phases = nil }()
	if t.phases != nil {
		t.phases.Workers = t.pool.workers
	}
	lastSave := time.Now()
	for t.epoch < t.cfg.Epochs {
		rec, err := t.runEpoch(ctx, opts.OnBatch)
		if err != nil {
			if ctx.Err() != nil && opts.Checkpoint != "" && !t.broken {
				if cerr := t.SaveCheckpoint(opts.Checkpoint); cerr != nil {
					return errors.Join(err, cerr)
				}
			}
			return err
		}
		rec.Checkpoint = opts.Checkpoint != "" && (t.epoch == t.cfg.Epochs || time.Since(lastSave) >= opts.CheckpointEvery)
		if opts.OnEpoch != nil {
			if err := opts.OnEpoch(rec); err != nil {
				return err
			}
		}
		if rec.Checkpoint {
			if err := t.SaveCheckpoint(opts.Checkpoint); err != nil {
				return err
			}
			lastSave = time.Now()
		}
	}
	return nil
}

// MinibatchGrace is how long a minibatch may go on after Train's context
// is cancelled before it is abandoned.
const MinibatchGrace = time.Second

var (
	errAbandoned = errors.New("minibatch abandoned")
	errBroken    = errors.New("engine: the trainer abandoned a minibatch when it was stopped; resume from its checkpoint")
)

// stopping reports whether the minibatch in progress is to be abandoned.
func (t *Trainer) stopping() bool { return t.stop != nil && t.stop.Load() }

// shuffle sets perm to the order of the given epoch (0-based): a fresh
// permutation from (Seed, epoch) for every epoch, the first included.
func (t *Trainer) shuffle(epoch int) {
	for i := range t.perm {
		t.perm[i] = int32(i)
	}
	rng := rand.New(rand.NewPCG(t.cfg.Seed, keyShuffle+uint64(epoch)))
	rng.Shuffle(len(t.perm), func(i, j int) { t.perm[i], t.perm[j] = t.perm[j], t.perm[i] })
}

func (t *Trainer) runEpoch(ctx context.Context, onBatch func(epoch, done, batches int)) (Record, error) {
	start := time.Now()
	stop := new(atomic.Bool) // this call's: a late timer sets nothing of a later one
	t.stop = stop
	defer context.AfterFunc(ctx, func() { time.AfterFunc(MinibatchGrace, func() { stop.Store(true) }) })()
	t.shuffle(t.epoch)
	n, bs := t.data.N, t.cfg.Batch
	batches := (n + bs - 1) / bs
	for t.batch < batches {
		if err := ctx.Err(); err != nil {
			t.epochSeconds += time.Since(start).Seconds()
			return Record{}, fmt.Errorf("training stopped at epoch %d, minibatch %d: %w", t.epoch+1, t.batch, err)
		}
		lo := t.batch * bs
		var mbStart time.Time
		if t.phases != nil {
			mbStart = time.Now()
		}
		r, err := t.minibatch(t.perm[lo:min(lo+bs, n)])
		if errors.Is(err, errAbandoned) {
			return Record{}, fmt.Errorf("training stopped inside epoch %d, minibatch %d, which was abandoned (the checkpoint on disk is kept): %w", t.epoch+1, t.batch+1, ctx.Err())
		}
		if err != nil {
			return Record{}, err
		}
		if t.phases != nil {
			t.phases.Total += time.Since(mbStart)
			t.phases.Minibatches++
		}
		t.epochRecon += r
		t.batch++
		if t.afterBatch != nil {
			t.afterBatch()
		}
		if onBatch != nil {
			onBatch(t.epoch+1, t.batch, batches)
		}
	}
	t.flush() // a pass over C an epoch, not a minibatch
	// SET rewires after every epoch but the last, so that the model it
	// returns has no untrained connections (as in Mocanu et al.'s code,
	// whose procedure also prunes after the last epoch, growing nothing).
	mocanu := t.cfg.SETProcedure == Mocanu
	if t.cfg.Method == SET && (t.epoch+1 < t.cfg.Epochs || mocanu) {
		regrow := t.epoch+1 < t.cfg.Epochs
		t.m.rewireSET(t.cfg.Zeta, t.cfg.InitScale, regrow, mocanu && t.cfg.Init == Normal, rand.New(rand.NewPCG(t.cfg.Seed, keySET+uint64(t.epoch))))
		t.clearAbsentVelocity()
		t.spStale = true
	}
	t.epoch++
	t.batch = 0
	rec := Record{Epoch: t.epoch, Seconds: t.epochSeconds + time.Since(start).Seconds(), Connectivity: t.m.Connectivity()}
	rec.ReconError = t.epochRecon / float64((n-min(t.reconFrom*bs, n))*t.m.DataUnits)
	t.epochRecon, t.epochSeconds, t.reconFrom = 0, 0, 0
	return rec, nil
}

// Step runs one minibatch of the given sample indices (for benchmarks and
// tests; Train is the normal entry). It returns the summed reconstruction
// error.
func (t *Trainer) Step(rows []int32) (float64, error) {
	if t.pool == nil {
		t.pool = newPool(t.workers())
	}
	return t.minibatch(rows)
}

// Close releases the goroutines Step started. Train needs no Close.
func (t *Trainer) Close() {
	if t.pool != nil {
		t.pool.close()
		t.pool = nil
	}
}

// Batch returns the number of completed minibatches of the current epoch
// (non-zero only for a run stopped mid-epoch).
func (t *Trainer) Batch() int { return t.batch }
