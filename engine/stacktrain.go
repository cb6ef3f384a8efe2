package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ncg-rbm/ncg/kernel"
)

// StackOptions are what a caller attaches to a deep model's training, as
// Options are to an RBM's.
type StackOptions struct {
	// OnEpoch receives each epoch's record, of pre-training and joint
	// training alike; an error stops training and is returned. The model
	// may be read during OnEpoch (StackTrainer.Model).
	OnEpoch func(StackRecord) error
	// Checkpoint, if set, is the file written when training is cancelled,
	// after the last epoch of every phase, and after any epoch that ends
	// at least CheckpointEvery after the previous checkpoint (0: after
	// every epoch).
	Checkpoint      string
	CheckpointEvery time.Duration
	// OnBatch, if set, is called after every minibatch with the record's
	// Layer, the 1-based epoch, the minibatches done in it and its number
	// of minibatches.
	OnBatch func(layer, epoch, done, batches int)
}

// StackRecord is the summary of one epoch of a deep model's training.
type StackRecord struct {
	// Layer is the RBM being pre-trained (1-based), or 0 for a DBM's
	// joint training.
	Layer int
	// Record is the epoch's: 1-based within its phase, its seconds, and
	// in pre-training the RBM's reconstruction error and connectivity; in
	// joint training ReconError is the mean squared error per visible
	// data unit between the data and the mean-field reconstruction
	// σ(d + C¹μ¹) (binary units), and Connectivity is the bottom matrix's.
	Record
	// Connectivity is every matrix's, after the epoch.
	Connectivity []Connectivity
}

// StackTrainer holds a deep model's training in progress: the RBMs
// trained so far and the one in training, or a DBM's joint training.
type StackTrainer struct {
	cfg  StackConfig
	data *Data
	// rbms are the stack's models: the pre-trained ones, then the one in
	// pre-training (cur's), then, once pre-training is over, all of them.
	rbms []*Model
	// layer is the RBM in pre-training (0-based); len(cfg.Layers) when
	// pre-training is over.
	layer int
	cur   *Trainer
	below *Data // the data of the RBM in pre-training
	joint *dbmJoint
	// identity is SetIdentity's, saved in checkpoints.
	identity json.RawMessage
}

// Random-generator keys of a stack (beside a Trainer's: the layers'
// trainers take the stack's seed mixed with their layer).
const (
	keyStackData  = 5 << 40 // + layer<<24 + row block: the sampled data of an upper layer
	keyJointChain = 6 << 40 // + chain: a DBM's persistent chains
	keyJointInit  = 7 << 40 // the chains' first states
	keyJointSET   = 8 << 40 // + matrix<<24 + epoch: SET's rewiring in joint training
)

// layerSeed is the seed of RBM l's trainer: the stack's seed for the
// bottom RBM, mixed with l (splitmix64's finaliser) above it, so that no
// two layers draw the same streams.
func layerSeed(seed uint64, l int) uint64 {
	if l == 0 {
		return seed
	}
	z := seed + uint64(l)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// NewStack validates the configuration against the data and starts the
// pre-training of the bottom RBM.
func NewStack(cfg StackConfig, d *Data) (*StackTrainer, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	if err := cfg.Validate(d.D); err != nil {
		return nil, err
	}
	if d.Classes != 0 {
		return nil, errors.New("engine: a deep model is generative: it takes no labels (classification needs an RBM)")
	}
	if err := cfg.Layers[0].checkData(d); err != nil {
		return nil, err
	}
	t := &StackTrainer{cfg: cfg, data: d, below: d}
	if err := t.startLayer(); err != nil {
		return nil, err
	}
	return t, nil
}

// LayerConfig returns RBM l's configuration in pre-training: its layer's
// settings with the stack's seed and workers and, in a DBM of more than
// one RBM, the doubled inputs of Salakhutdinov & Hinton's pre-training
// (every RBM but the top doubles its up pass, every one but the bottom
// its down pass).
func (c StackConfig) LayerConfig(l int) Config {
	lc := c.Layers[l]
	lc.Seed, lc.Workers = layerSeed(c.Seed, l), c.Workers
	if n := len(c.Layers); c.Kind == DBM && n > 1 {
		lc.DoubleUp, lc.DoubleDown = l < n-1, l > 0
	}
	return lc
}

// startLayer makes the trainer of RBM t.layer on t.below.
func (t *StackTrainer) startLayer() error {
	tr, err := New(t.cfg.LayerConfig(t.layer), t.below)
	if err != nil {
		return fmt.Errorf("layer %d: %w", t.layer+1, err)
	}
	t.cur = tr
	t.rbms = append(t.rbms[:t.layer], tr.m)
	return nil
}

// Config returns the stack's configuration.
func (t *StackTrainer) Config() StackConfig { return t.cfg }

// SetIdentity attaches the caller's identity of the run to every
// checkpoint (as Trainer.SetIdentity).
func (t *StackTrainer) SetIdentity(id json.RawMessage) error {
	if id != nil && !json.Valid(id) {
		return fmt.Errorf("checkpoint identity is not valid JSON")
	}
	t.identity = append(json.RawMessage(nil), id...)
	return nil
}

// Identity returns the identity of the run (SetIdentity's or the
// checkpoint's).
func (t *StackTrainer) Identity() json.RawMessage { return t.identity }

// Model returns the stack as it stands (shared, not a copy): during
// pre-training the RBMs trained so far and the one in training.
func (t *StackTrainer) Model() *Stack {
	if t.cur != nil {
		t.cur.flush()
	}
	if t.joint != nil {
		t.joint.sync()
	}
	return &Stack{Kind: t.cfg.Kind, RBMs: t.rbms}
}

// Position returns where training stands: the RBM in pre-training
// (1-based) or 0 in joint training or after it, and the completed epochs
// of that phase.
func (t *StackTrainer) Position() (layer, epoch int) {
	switch {
	case t.cur != nil:
		return t.layer + 1, t.cur.epoch
	case t.joint != nil:
		return 0, t.joint.epoch
	}
	return 0, 0
}

// Done reports whether every phase has run all its epochs.
func (t *StackTrainer) Done() bool {
	if t.cur != nil {
		return false
	}
	return t.cfg.Kind == DBN || (t.joint != nil && t.joint.epoch >= t.cfg.Joint.Epochs)
}

// Train runs what remains: the pre-training of each RBM in turn, then a
// DBM's joint training. Cancelling ctx stops it as Trainer.Train stops,
// with the checkpoint written (if opts.Checkpoint is set).
func (t *StackTrainer) Train(ctx context.Context, opts StackOptions) error {
	if err := kernel.Init(); err != nil {
		return err
	}
	for t.cur != nil {
		if err := t.trainLayer(ctx, opts); err != nil {
			return err
		}
		if err := t.nextLayer(ctx); err != nil {
			if ctx.Err() != nil && opts.Checkpoint != "" {
				if cerr := t.SaveCheckpoint(opts.Checkpoint); cerr != nil {
					return errors.Join(err, cerr)
				}
			}
			return err
		}
		if opts.Checkpoint != "" {
			if err := t.SaveCheckpoint(opts.Checkpoint); err != nil {
				return err
			}
		}
	}
	if t.cfg.Kind != DBM {
		return nil
	}
	return t.trainJoint(ctx, opts)
}

// trainLayer runs the pre-training epochs of the current RBM.
func (t *StackTrainer) trainLayer(ctx context.Context, opts StackOptions) error {
	layer := t.layer + 1
	o := Options{Phases: nil}
	if opts.OnBatch != nil {
		o.OnBatch = func(epoch, done, batches int) { opts.OnBatch(layer, epoch, done, batches) }
	}
	lastSave := time.Now()
	o.OnEpoch = func(r Record) error {
		// The stack's checkpoint, not the RBM's own, at the same points;
		// after the layer's last epoch Train writes it once the next
		// phase is set up.
		last := t.cur.epoch >= t.cur.cfg.Epochs
		save := opts.Checkpoint != "" && !last && time.Since(lastSave) >= opts.CheckpointEvery
		r.Checkpoint = opts.Checkpoint != "" && (save || last)
		if opts.OnEpoch != nil {
			if err := opts.OnEpoch(StackRecord{Layer: layer, Record: r, Connectivity: t.Model().Connectivity()}); err != nil {
				return err
			}
		}
		if save {
			if err := t.SaveCheckpoint(opts.Checkpoint); err != nil {
				return err
			}
			lastSave = time.Now()
		}
		return nil
	}
	err := t.cur.Train(ctx, o)
	if err != nil && ctx.Err() != nil && opts.Checkpoint != "" && !t.cur.broken {
		if cerr := t.SaveCheckpoint(opts.Checkpoint); cerr != nil {
			return errors.Join(err, cerr)
		}
	}
	if err != nil {
		return fmt.Errorf("layer %d: %w", layer, err)
	}
	return nil
}

// nextLayer ends the current RBM's pre-training: the next RBM starts on
// its hidden states, or, after the top RBM, a DBM's joint training
// starts.
//
// The next RBM's data are drawn before the trainer changes, so that a
// cancellation while they are drawn leaves it at the end of the RBM just
// trained, which a checkpoint records.
func (t *StackTrainer) nextLayer(ctx context.Context) error {
	m := t.cur.Model()
	if t.layer+1 < len(t.cfg.Layers) {
		factor := float32(1)
		if t.cfg.Kind == DBM {
			factor = 2 // RBMs below the top were trained with doubled up passes
		}
		d, err := upperData(ctx, m, t.below, factor, t.cfg.Seed, t.layer+1, t.cfg.Workers)
		if err != nil {
			return fmt.Errorf("layer %d's data: %w", t.layer+2, err)
		}
		t.cur.Close()
		t.cur = nil
		t.layer++
		t.below = d
		return t.startLayer()
	}
	t.cur.Close()
	t.cur = nil
	t.layer++
	t.below = nil
	if t.cfg.Kind == DBM {
		foldBiases(t.rbms)
		t.joint = newDBMJoint(t.cfg, t.data, t.rbms)
	}
	return nil
}

// foldBiases makes the pre-trained RBMs a DBM: each intermediate layer's
// bias becomes the mean of the two the RBMs learned for it, held in the
// lower RBM's hidden biases (the upper RBM's visible biases become zero).
// The mean, not the sum: each of the two doubled RBMs models the layer
// given twice its input from one side, σ(b + 2·input), and the DBM gives
// it both inputs once, so its input is the mean of the two RBMs',
// ½(b₁ + 2x) + ½(b₂ + 2y) = ½(b₁ + b₂) + x + y (Salakhutdinov & Hinton
// 2012, section 4).
func foldBiases(rbms []*Model) {
	for l := 1; l < len(rbms); l++ {
		b, d := rbms[l-1].HiddenBias, rbms[l].VisibleBias
		for i := range b {
			b[i] = (b[i] + d[i]) / 2
			d[i] = 0
		}
	}
}
