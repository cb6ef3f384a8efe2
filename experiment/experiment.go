// Package experiment runs one training run end to end, as the command and
// sweeps need it: load the data, train, evaluate every few epochs, and keep
// a run directory (RunDir) that a later call can resume or skip.
//
// Every setting of a run is declared once, in a table (Table): its flag
// name, JSON key, default (per data set, method, procedure and sampler),
// the runs that use it and whether a sweep can vary it. NewSpec makes a
// Spec from settings given by name as ncgbench does; Normalize puts any
// Spec in the form runs store and compare. A sweep is a Grid of settings:
// Expand gives its runs (Points), and Sweep runs them in parallel, each as
// Run does.
//
// It does not parse flags, print or render progress (package main and
// package report do): progress is a stream of typed events (Event) to the
// caller's function.
package experiment

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/engine"
	"github.com/ncg-rbm/ncg/eval"
)

// Spec is everything that defines a run: its identity. Two runs whose
// Specs are equal after Normalize produce the same model and share a run
// directory. NewSpec fills one as ncgbench does; a Spec built by hand is
// taken as written, except that Normalize gives a setting no run can leave
// at zero (hidden units, k, …) its default, and drops the settings the run
// does not use.
type Spec struct {
	Data     string `json:"data"`                // bas, mnist, mushrooms, connect-4 or a file path
	TestData string `json:"test_data,omitempty"` // a file path, for a file Data
	Format   string `json:"format,omitempty"`    // idx, libsvm or split; "" detects
	DataSeed uint64 `json:"data_seed"`           // binarisation and split seed
	// Real makes the data real-valued (for Gaussian visible units): grey
	// levels in [0, 1] or standardised per unit (data.RealMode).
	Real data.RealMode `json:"real,omitempty"`
	// Categories reads a data file's columns as integer-coded categorical
	// attributes (data.ParseCategorical: "data", "K" or "K1,K2,…"; "":
	// numbers as they are).
	Categories string `json:"categories,omitempty"`

	// Engine is an RBM's training, or each RBM's pre-training in a deep
	// model, whose bottom RBM it is (Deep).
	Engine   engine.Config `json:"engine"`
	Classify bool          `json:"classify"`
	// Deep is a deep model's stack (-model dbn or dbm); zero for an RBM.
	Deep Deep `json:"deep,omitzero"`

	// EvalEvery evaluates every so many epochs (0: after the last only).
	EvalEvery int `json:"eval_every"`
	// Likelihood: how the evaluation finds log Z (eval.LikelihoodAuto:
	// exact when exact log Z sums over the states of at most
	// eval.AutoExactBits units, unit.Type.ExactLayer's, else AIS; none when
	// classifying).
	Likelihood   eval.Likelihood `json:"likelihood"`
	AISRuns      int             `json:"ais_runs"`      // 0: eval.DefaultRuns
	AISIntervals int             `json:"ais_intervals"` // eval.DefaultIntervals: the paper's schedule; other values: uniform β
	AISSeed      uint64          `json:"ais_seed"`
	// AISMaxIntervals > 0 grows the final evaluation's AIS schedule while
	// its checks' verdict fires, up to that many intervals
	// (eval.Plan.GrowIntervals).
	AISMaxIntervals int `json:"ais_max_intervals,omitempty"`
}

// Meta records where and how a run ran; it is not part of the identity.
// It describes the latest invocation; a resumed run keeps the earlier
// invocations' records in Earlier, oldest first, so that a run trained in
// parts (other versions, machines or worker counts) says which did what.
type Meta struct {
	Version  string    `json:"version"`
	Go       string    `json:"go"`
	Kernel   string    `json:"kernel_tier"`
	CPU      string    `json:"cpu"`
	Workers  int       `json:"workers"`
	Started  time.Time `json:"started"`
	DataInfo string    `json:"data_source"`
	// TestInfo says where the test rows came from (for the paper's UCI
	// sets: its test split, or which fallback was used).
	TestInfo string `json:"test_data_source,omitempty"`
	// Compressed: the engine trained on compressed rows (a fixed mask at most
	// engine.SparseDensity() dense), whose rounding can differ from the dense
	// form's in the last bit; for a deep model, the RBM in pre-training when
	// this invocation started.
	Compressed bool `json:"compressed_rows"`
	// Scaling is how real-valued data were made from the input (nil for
	// binary data and for values used as read), to map samples back.
	Scaling *data.Scaling `json:"scaling,omitempty"`
	// FromEpoch is the number of epochs done when this invocation started
	// (0: it started the run).
	FromEpoch int    `json:"from_epoch,omitempty"`
	Earlier   []Meta `json:"earlier,omitempty"`
}

// configFile is config.json.
type configFile struct {
	Spec Spec `json:"spec"`
	Meta Meta `json:"meta"`
	// Data is the digest of the data the run trains on (nil in run
	// directories of versions that did not record it: recorded when such
	// a run resumes).
	Data *DataDigest `json:"data_digest,omitempty"`
}

// Result is result.json: the final metrics of a finished run.
type Result struct {
	Spec        Spec    `json:"spec"`
	Dir         string  `json:"dir"`
	Final       Metrics `json:"final"`
	InitDensity float64 `json:"initial_density"`
	// TotalSeconds is the wall time of the invocation that finished the
	// run: from epoch ResumedAt when it resumed from a checkpoint (the
	// per-epoch seconds in metrics.csv cover every epoch).
	TotalSeconds float64 `json:"total_seconds"`
	ResumedAt    int     `json:"resumed_at_epoch,omitempty"`
	// Checks are the evidence with the final evaluation's AIS estimate
	// and its verdict (eval.Checks; absent when none ran).
	Checks  *eval.Checks `json:"checks,omitempty"`
	Skipped bool         `json:"-"` // found finished, not run again
}

// Options are the caller's attachments to a run.
type Options struct {
	DataDir string // data directory ("" : data.Dir's lookup)
	Workers int    // goroutines (0: GOMAXPROCS); never changes results
	// Progress, if set, receives the run's progress events (see Event),
	// from one goroutine at a time; keep it cheap (it is called after every
	// minibatch).
	Progress func(Event)
	Version  string
	// CheckpointEvery is the least time between checkpoints (0:
	// DefaultCheckpointEvery, as ncgbench; EveryEpoch: after every epoch).
	// A checkpoint is also written on cancellation and at the end.
	CheckpointEvery time.Duration
}

// DefaultCheckpointEvery is the least time between a run's checkpoints
// unless Options say otherwise: a killed run loses at most this much.
const DefaultCheckpointEvery = time.Minute

// EveryEpoch, as Options.CheckpointEvery, checkpoints after every epoch.
const EveryEpoch time.Duration = -1

// Run trains the run of spec in dir. A finished run (result.json with the
// same spec) is returned as it is; a run with a checkpoint resumes from it.
//
// Run holds an exclusive lock on dir while it works (a second Run on dir,
// in this process or another, fails with a *dirlock.InUseError), refuses a
// setting that cannot work with a *ConfigError before training, refuses a
// checkpoint or config.json of another configuration, and writes every file
// atomically. The checkpoint and model.npz are written before the final
// evaluation, so an evaluation that fails or is interrupted leaves a run
// that resumes straight to that evaluation. When ctx is cancelled, Run
// stops within about a second, with an error wrapping ctx.Err(), and what
// it kept resumes bit-identically.
func Run(ctx context.Context, spec Spec, dir string, opts Options) (*Result, error) {
	spec = spec.Normalize()
	if err := spec.Validate(); err != nil {
		return nil, &ConfigError{err}
	}
	if err := CheckWorkers(opts.Workers); err != nil {
		return nil, err
	}
	label, err := spec.identity()
	if err != nil {
		return nil, &ConfigError{err}
	}
	rd := RunDir(dir)
	_, statErr := os.Stat(dir)
	lock, err := rd.lock()
	if err != nil {
		return nil, err
	}
	r := &run{spec: spec, dir: dir, rd: rd, opts: opts, label: label}
	defer func() {
		if !r.started && errors.Is(statErr, os.ErrNotExist) { // refused before starting: leave no trace
			os.Remove(filepath.Join(dir, LockFile))
			os.Remove(dir)
		}
		lock.Unlock()
	}()
	// Ours alone now: temporary files are those of a killed process.
	if err := engine.RemoveTemps(dir); err != nil {
		return nil, err
	}
	if res, err := rd.Result(); err == nil {
		stored := res.Spec
		alignDataPaths(&stored, spec, false)
		if stored.Data != spec.Data || stored.TestData != spec.TestData { // other files: the run's if their rows are
			if recorded, err := rd.Digest(); err == nil && recorded != nil {
				if train, test, err := Load(spec, opts.DataDir); err == nil && *digestOf(train, test) == *recorded {
					alignDataPaths(&stored, spec, true)
				}
			}
		}
		theirs, err := stored.identity()
		if err != nil {
			return nil, err
		}
		if err := spec.foreign(rd.ResultPath(), theirs); err != nil {
			return nil, err
		}
		res.Skipped = true
		return res, nil
	}
	train, test, err := Load(spec, opts.DataDir)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil { // stopped while loading: nothing started
		return nil, err
	}
	digest := digestOf(train, test)
	d, err := engineData(spec, train)
	if err != nil {
		return nil, err
	}
	if err := spec.checkFits(d, Memory()); err != nil {
		return nil, &ConfigError{err}
	}
	r.train, r.test, r.d, r.digest = train, test, d, digest
	if spec.IsDeep() {
		return r.stack(ctx)
	}
	cfg := spec.Engine
	cfg.Workers = opts.Workers
	emit := r.emit
	ckpt := rd.CheckpointPath()
	var tr *engine.Trainer
	var rows []Metrics
	if _, err := os.Stat(ckpt); err == nil {
		if tr, rows, err = resume(spec, rd, d, digest, opts.Workers); err != nil {
			return nil, err
		}
		r.resumed(tr.Epoch())
	} else {
		if tr, err = engine.New(cfg, d); err != nil {
			return nil, err
		}
	}
	if err := tr.SetIdentity(label); err != nil {
		return nil, err
	}
	resumed := tr.Epoch() > 0 || tr.Batch() > 0
	if err := r.start(tr.Compressed(), tr.Epoch(), resumed); err != nil {
		return nil, err
	}
	initDensity := tr.Model().Connectivity().Density
	if resumed { // redraw the start to learn its density
		fresh, err := engine.New(cfg, d)
		if err != nil {
			return nil, err
		}
		initDensity = fresh.Model().Connectivity().Density
	}
	clk := newClock(spec)
	start, startEpoch := time.Now(), tr.Epoch()
	// evaluate measures the model after epoch as spec says.
	sets := eval.Sets{Train: train, Test: test}
	evaluate := func(epoch int) (*eval.Metrics, error) {
		plan := spec.plan(opts.Workers, d.Classes, epoch == spec.Engine.Epochs)
		plan.Progress = r.evalProgress(clk, epoch)
		clk.startEval()
		defer clk.endEval()
		return eval.Evaluate(ctx, tr.Model().EvalModel(), sets, plan)
	}
	err = tr.Train(ctx, engine.Options{
		OnBatch: func(epoch, done, batches int) {
			clk.batch(batches)
			if opts.Progress != nil {
				left, unknown := clk.left(epoch, done, -1)
				emit(Minibatch{Dir: dir, Epoch: epoch, Epochs: spec.Engine.Epochs, Done: done, Batches: batches,
					PerSecond: float64(clk.trained) / clk.training.Seconds(), Left: left, UnknownEvals: unknown})
			}
		},
		Checkpoint:      ckpt,
		CheckpointEvery: checkpointEvery(opts.CheckpointEvery),
		OnEpoch: func(r engine.Record) error {
			m := trainedRow(r.Epoch, 0, r)
			// Every due evaluation but the last's, which comes after the
			// checkpoint and model.npz, below.
			evaluated := r.Epoch < spec.Engine.Epochs && clk.due(r.Epoch)
			if evaluated {
				ev, err := evaluate(r.Epoch)
				if err != nil {
					return fmt.Errorf("epoch %d: evaluation: %w", r.Epoch, err)
				}
				m.setEval(ev, test != nil)
			}
			rows = append(rows, m)
			left, unknown := clk.left(r.Epoch, clk.batches, -1)
			emit(EpochDone{Dir: dir, Epochs: spec.Engine.Epochs, Metrics: m, Evaluated: evaluated, Left: left, UnknownEvals: unknown})
			if r.Checkpoint { // the metrics on disk keep pace with the checkpoint
				return rd.writeMetrics(rows)
			}
			return nil
		},
	})
	if err != nil {
		return nil, r.stopped(ctx, err, rows)
	}
	if err := rd.clearFailure(); err != nil {
		return nil, err
	}
	// Trained: the last epoch's checkpoint is on disk; the model goes beside
	// it before the final evaluation, which may fail or be interrupted.
	if err := tr.Model().ExportNPZ(rd.ModelPath()); err != nil {
		return nil, err
	}
	final, err := evaluate(spec.Engine.Epochs)
	if err != nil {
		return nil, fmt.Errorf("epoch %d: evaluation: %w (the trained model is kept: run again to retry the evaluation)", spec.Engine.Epochs, err)
	}
	return r.finish(rows, final, initDensity, start, startEpoch)
}

// checkpointEvery is the engine's interval of Options.CheckpointEvery.
func checkpointEvery(d time.Duration) time.Duration {
	switch {
	case d == 0:
		return DefaultCheckpointEvery
	case d < 0:
		return 0 // the engine's "after every epoch"
	}
	return d
}

// resume reads dir's checkpoint and metrics for spec, refusing those of
// another configuration, naming the difference, and data of other rows
// than those the run trained on (digest against the one recorded).
func resume(spec Spec, rd RunDir, d *engine.Data, digest *DataDigest, workers int) (*engine.Trainer, []Metrics, error) {
	ckpt := rd.CheckpointPath()
	aligned, err := checkResume(spec, rd, digest)
	if err != nil {
		return nil, nil, err
	}
	tr, err := engine.Resume(ckpt, d, workers)
	if err != nil {
		return nil, nil, fmt.Errorf("%w; move %s away (or delete it) to start the run over", err, ckpt)
	}
	if label := tr.Identity(); label != nil {
		if label, err = aligned(label); err != nil {
			return nil, nil, fmt.Errorf("checkpoint %s: %w", ckpt, err)
		}
		if err := spec.foreign("checkpoint "+ckpt, label); err != nil {
			return nil, nil, err
		}
	} else { // a checkpoint without a label: its engine settings are all it has
		cfg := tr.Config()
		cfg.Workers = 0
		theirs, _ := json.Marshal(map[string]engine.Config{"engine": Spec{Data: spec.Data, Engine: cfg}.Normalize().Engine})
		ours, _ := json.Marshal(map[string]engine.Config{"engine": spec.Engine})
		if err := foreign("checkpoint "+ckpt, theirs, ours); err != nil {
			return nil, nil, err
		}
	}
	rows, err := resumedRows(spec, rd, tr.Epoch())
	return tr, rows, err
}

// checkResume refuses, before a checkpoint is read, a run directory whose
// config.json is another configuration's or recorded other data than
// digest's, and returns the function that puts a stored Spec's data paths
// as spec gives them, where they are the run's data (checked by digest, or
// the same files), for the comparison with the checkpoint's.
func checkResume(spec Spec, rd RunDir, digest *DataDigest) (func(json.RawMessage) (json.RawMessage, error), error) {
	dir, cfgPath := string(rd), rd.ConfigPath()
	b, err := os.ReadFile(cfgPath)
	if err != nil {
		return nil, fmt.Errorf("%s has a checkpoint but no readable config.json (%w); move the directory away to start the run over", dir, err)
	}
	var prev struct {
		Spec json.RawMessage `json:"spec"`
		Data *DataDigest     `json:"data_digest"`
	}
	if err := json.Unmarshal(b, &prev); err != nil || prev.Spec == nil {
		return nil, fmt.Errorf("%s: not a run configuration (%v); move the directory away to start the run over", cfgPath, err)
	}
	if err := spec.checkDigest(rd, prev.Data, digest); err != nil {
		return nil, err
	}
	// The data paths as this run gives them, where they are the run's
	// data: checked by digest, or the same files.
	aligned := func(stored json.RawMessage) (json.RawMessage, error) {
		var s Spec
		if err := json.Unmarshal(stored, &s); err != nil {
			return nil, err
		}
		alignDataPaths(&s, spec, prev.Data != nil)
		return json.Marshal(s)
	}
	theirs, err := aligned(prev.Spec)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cfgPath, err)
	}
	if err := spec.foreign(cfgPath, theirs); err != nil {
		return nil, err
	}
	return aligned, nil
}

// resumedRows reads the metrics of the first done epochs of a resumed
// run. Rows are written before the checkpoint they go with, except when a
// stopped run was killed between its last two writes: the epochs whose
// rows were lost keep their number (and a deep model's layer) and nothing
// else.
func resumedRows(spec Spec, rd RunDir, done int) ([]Metrics, error) {
	rows, err := rd.Metrics()
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	for len(rows) < done {
		n := len(rows) + 1
		rows = append(rows, Metrics{Epoch: n, Layer: spec.layerOf(n), Seconds: nan, NLL: nan, LogZ: nan, LogZLo: nan, LogZHi: nan,
			TrainAcc: nan, TestAcc: nan, Density: nan, DegreeMean: nan, Recon: nan})
	}
	return rows[:done], nil
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return engine.WriteFileAtomic(path, append(b, '\n'))
}
