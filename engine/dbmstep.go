package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/ncg-rbm/ncg/kernel"
	"github.com/ncg-rbm/ncg/unit"
)

// trainJoint runs a DBM's joint training epochs.
func (t *StackTrainer) trainJoint(ctx context.Context, opts StackOptions) error {
	j := t.joint
	j.pool = newPool(t.cfg.workers())
	defer func() { j.pool.close(); j.pool = nil }()
	defer j.sync()
	lastSave := time.Now()
	for j.epoch < j.cfg.Epochs {
		rec, err := j.runEpoch(ctx, opts.OnBatch)
		if err != nil {
			if ctx.Err() != nil && opts.Checkpoint != "" {
				if cerr := t.SaveCheckpoint(opts.Checkpoint); cerr != nil {
					return errors.Join(err, cerr)
				}
			}
			return err
		}
		save := opts.Checkpoint != "" && (j.epoch == j.cfg.Epochs || time.Since(lastSave) >= opts.CheckpointEvery)
		rec.Checkpoint = save
		if opts.OnEpoch != nil {
			if err := opts.OnEpoch(StackRecord{Record: rec, Connectivity: t.Model().Connectivity()}); err != nil {
				return err
			}
		}
		if save {
			if err := t.SaveCheckpoint(opts.Checkpoint); err != nil {
				return err
			}
			lastSave = time.Now()
		}
	}
	return nil
}

// sync brings every model's copies of C up to date: the joint updates
// keep C (or, where cFromW, W alone) and the packed tiles, not the
// hidden-major and padded copies.
func (j *dbmJoint) sync() {
	for k, m := range j.rbms {
		if k < len(j.cFromW) && j.cFromW[k] {
			copy(m.c, m.W)
		}
		kernel.Transpose(m.ch, m.c, m.X, m.H)
		m.padC(0, m.X)
	}
}

func (j *dbmJoint) runEpoch(ctx context.Context, onBatch func(layer, epoch, done, batches int)) (Record, error) {
	start := time.Now()
	for i := range j.perm {
		j.perm[i] = int32(i)
	}
	rng := rand.New(rand.NewPCG(j.seed, keyShuffle+uint64(j.epoch)))
	rng.Shuffle(len(j.perm), func(a, b int) { j.perm[a], j.perm[b] = j.perm[b], j.perm[a] })
	n, bs := j.data.N, j.cfg.Batch
	batches := (n + bs - 1) / bs
	for j.batch < batches {
		if err := ctx.Err(); err != nil {
			return Record{}, fmt.Errorf("joint training stopped at epoch %d, minibatch %d: %w", j.epoch+1, j.batch, err)
		}
		lo := j.batch * bs
		if err := j.minibatch(j.perm[lo:min(lo+bs, n)]); err != nil {
			return Record{}, err
		}
		j.batch++
		if onBatch != nil {
			onBatch(0, j.epoch+1, j.batch, batches)
		}
	}
	j.sync()
	// SET rewires each of its matrices after every epoch but the last.
	if j.epoch+1 < j.cfg.Epochs {
		for k, lc := range j.layers {
			if lc.Method != SET {
				continue
			}
			m := j.rbms[k]
			m.rewireSET(lc.Zeta, lc.InitScale, true, lc.Init == Normal, rand.New(rand.NewPCG(j.seed, keyJointSET+uint64(k)<<24+uint64(j.epoch))))
			j.packed = false
			if v := j.vel[k]; v != nil {
				for i, a := range m.A {
					if a == 0 {
						v[i] = 0
					}
				}
			}
		}
	}
	j.epoch++
	j.batch = 0
	rec := Record{Epoch: j.epoch, Seconds: time.Since(start).Seconds(), Connectivity: j.rbms[0].Connectivity()}
	rec.ReconError = j.reconSum / float64(n*j.n[0])
	j.reconSum = 0
	return rec, nil
}

// Step runs one joint-training minibatch of the given data rows (for
// benchmarks and tests): the pre-training must be over.
func (t *StackTrainer) Step(rows []int32) error {
	j := t.joint
	if j == nil {
		return errors.New("engine: Step is joint training's; this stack is in pre-training or is a DBN")
	}
	if j.pool == nil {
		j.pool = newPool(t.cfg.workers())
	}
	return j.minibatch(rows)
}

// Close releases the goroutines Step started.
func (t *StackTrainer) Close() {
	if t.joint != nil && t.joint.pool != nil {
		t.joint.pool.close()
		t.joint.pool = nil
		t.joint.sync()
	}
	if t.cur != nil {
		t.cur.Close()
	}
}

func (j *dbmJoint) minibatch(rows []int32) error {
	j.rows, j.nb = rows, len(rows)
	j.alpha = float32(j.cfg.LR / float64(j.nb))
	j.step = kernel.Step{LR: float32(j.cfg.LR), InvB: 1 / float32(j.nb), Mu: float32(j.cfg.Momentum), L2: float32(j.cfg.L2)}
	j.pack()
	j.pool.run((j.nb+blockSize-1)/blockSize, j.loadFn, nil)
	// The positive phase with the chains' sweeps and the packing of their
	// states into bits inside its phases (dbmphases.go).
	j.runMinibatchPhases()
	if j.ctr != nil {
		j.centredGradient()
	} else {
		j.rowScratchFor(j.pool)
		j.pool.runWorkers(len(j.chunks)+len(j.biasTsk)+j.reconBlocks(), j.gradFn)
	}
	j.reconError()
	for i, ok := range j.rowOK {
		if !ok {
			ch := j.chunks[i]
			return &NumericalError{j.epoch + 1, j.batch + 1, fmt.Sprintf("W of matrix %d (rows %d–%d)", ch.k+1, ch.j0, ch.j1-1)}
		}
	}
	for i, ok := range j.biasOK {
		if !ok {
			return &NumericalError{j.epoch + 1, j.batch + 1, fmt.Sprintf("bias of layer %d", j.biasTsk[i].k)}
		}
	}
	if math.IsNaN(j.reconSum) || math.IsInf(j.reconSum, 0) {
		return &NumericalError{j.epoch + 1, j.batch + 1, "mean-field reconstruction"}
	}
	return nil
}

// loadBlock loads rows blk·blockSize… of the minibatch and their bottom
// layer's input C⁰ᵀv (lists of ones for binary units), and its sum with
// the layer's bias, which every sweep of the mean field adds to the input
// from above.
func (j *dbmJoint) loadBlock(blk int) {
	c0, c1 := blk*blockSize, min((blk+1)*blockSize, j.nb)
	sc := &j.mfSc[blk]
	x, n1 := j.n[0], j.n[1]
	v := j.mu[0]
	for c := c0; c < c1; c++ {
		j.loadRow(v[c*x:(c+1)*x], int(j.rows[c]))
	}
	copy(j.in1[c0*n1:c1*n1], j.upInput(sc, 1, v, c0, c1, !j.binaryVisible()))
	copy(j.in1b[c0*n1:c1*n1], j.in1[c0*n1:c1*n1])
	for c := c0; c < c1; c++ {
		kernel.Axpy(j.in1b[c*n1:(c+1)*n1], 1, j.bias[1]) // b + in1, the sum tileTask made
	}
}

// visibleMean returns the conditional means of nc rows of visible units
// given their input pre (rows of n[0]), in dst.
func (j *dbmJoint) visibleMean(dst, pre []float32, nc int) []float32 {
	x := j.n[0]
	switch j.vis {
	case unit.Gaussian:
		return pre
	case unit.Categorical:
		for c := 0; c < nc; c++ {
			kernel.Softmax(dst[c*x:(c+1)*x], pre[c*x:(c+1)*x], j.groups)
		}
		return dst
	}
	kernel.Sigmoid(dst, pre)
	return dst
}
