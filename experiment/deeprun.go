package experiment

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/ncg-rbm/ncg/engine"
	"github.com/ncg-rbm/ncg/eval"
)

// stack trains a deep model's run, as Run trains an RBM's: from its
// checkpoint if it has one, every epoch recorded with its layer, the
// checkpoint and the model's files (WriteStack) written before the final
// evaluation.
func (r *run) stack(ctx context.Context) (*Result, error) {
	spec, rd, opts := r.spec, r.rd, r.opts
	cfg := spec.Stack()
	cfg.Workers = opts.Workers
	ckpt := rd.CheckpointPath()
	var tr *engine.StackTrainer
	var rows []Metrics
	resumed := false
	if _, err := os.Stat(ckpt); err == nil {
		if tr, rows, err = resumeStack(spec, rd, r.d, r.digest, opts.Workers); err != nil {
			return nil, err
		}
		resumed = true
		r.resumed(len(rows))
	} else {
		if tr, err = engine.NewStack(cfg, r.d); err != nil {
			return nil, err
		}
	}
	if err := tr.SetIdentity(r.label); err != nil {
		return nil, err
	}
	if err := r.start(tr.Compressed(), len(rows), resumed); err != nil {
		return nil, err
	}
	// The initial density is the bottom RBM's, drawn again when resumed.
	initial := tr.Model().RBMs[0]
	if resumed {
		fresh, err := engine.NewStack(cfg, r.d)
		if err != nil {
			return nil, err
		}
		initial = fresh.Model().RBMs[0]
	}
	initDensity := initial.Connectivity().Density
	total := spec.TotalEpochs()
	clk := newClock(spec)
	start, startEpoch := time.Now(), len(rows)
	evaluate := func(epoch int) (*eval.Metrics, error) {
		clk.startEval()
		defer clk.endEval()
		return r.evaluateStack(ctx, tr.Model(), epoch)
	}
	err := tr.Train(ctx, engine.StackOptions{
		OnBatch: func(layer, epoch, done, batches int) {
			clk.batch(batches)
			if opts.Progress != nil {
				n := spec.epochOf(layer, epoch)
				left, unknown := clk.left(n, done, -1)
				r.emit(Minibatch{Dir: r.dir, Epoch: n, Epochs: total, Done: done, Batches: batches,
					PerSecond: float64(clk.trained) / clk.training.Seconds(), Left: left, UnknownEvals: unknown})
			}
		},
		Checkpoint:      ckpt,
		CheckpointEvery: checkpointEvery(opts.CheckpointEvery),
		OnEpoch: func(rec engine.StackRecord) error {
			n := spec.epochOf(rec.Layer, rec.Epoch)
			if n != len(rows)+1 {
				return fmt.Errorf("experiment: layer %d's epoch %d is the run's epoch %d, after %d recorded", rec.Layer, rec.Epoch, n, len(rows))
			}
			m := trainedRow(n, rec.Layer, rec.Record)
			// Only a whole model is measured: a DBM in joint training, a
			// DBN while its top RBM trains (before, the stack is not yet
			// the model the run makes).
			whole := rec.Layer == 0 || (spec.Deep.Kind == engine.DBN && rec.Layer == len(spec.Methods()))
			evaluated := n < total && whole && clk.due(n)
			if evaluated {
				ev, err := evaluate(n)
				if err != nil {
					return fmt.Errorf("epoch %d: evaluation: %w", n, err)
				}
				m.setEval(ev, r.test != nil)
			}
			rows = append(rows, m)
			left, unknown := clk.left(n, clk.batches, -1)
			r.emit(EpochDone{Dir: r.dir, Epochs: total, Metrics: m, Evaluated: evaluated, Left: left, UnknownEvals: unknown})
			if rec.Checkpoint {
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
	if len(rows) != total || !tr.Done() {
		return nil, fmt.Errorf("experiment: training of %s ended after %d of %d epochs", r.dir, len(rows), total)
	}
	if err := WriteStack(string(rd), tr.Model(), spec.Methods()); err != nil {
		return nil, err
	}
	final, err := evaluate(total)
	if err != nil {
		return nil, fmt.Errorf("epoch %d: evaluation: %w (the trained model is kept: run again to retry the evaluation)", total, err)
	}
	return r.finish(rows, final, initDensity, start, startEpoch)
}

// evaluateStack measures the deep model after the run's epoch as the
// Spec says (EvaluateStack).
func (r *run) evaluateStack(ctx context.Context, s *engine.Stack, epoch int) (*eval.Metrics, error) {
	plan := r.spec.plan(r.opts.Workers, 0, epoch == r.spec.TotalEpochs())
	plan.Checks, plan.GrowIntervals = eval.CheckOff, 0
	return EvaluateStack(ctx, s, eval.Sets{Train: r.train, Test: r.test}, plan)
}

// resumeStack reads dir's checkpoint of a deep model and its metrics for
// spec, refusing, as resume does for an RBM, a config.json or checkpoint
// of another configuration (another stack), naming the difference, before
// anything is written.
func resumeStack(spec Spec, rd RunDir, d *engine.Data, digest *DataDigest, workers int) (*engine.StackTrainer, []Metrics, error) {
	ckpt := rd.CheckpointPath()
	aligned, err := checkResume(spec, rd, digest)
	if err != nil {
		return nil, nil, err
	}
	tr, err := engine.ResumeStack(ckpt, d, workers)
	if err != nil {
		return nil, nil, fmt.Errorf("%w; move %s away (or delete it) to start the run over", err, ckpt)
	}
	label := tr.Identity()
	if label == nil {
		return nil, nil, fmt.Errorf("checkpoint %s has no record of its run; move it away (or delete it) to start the run over", ckpt)
	}
	if label, err = aligned(label); err != nil {
		return nil, nil, fmt.Errorf("checkpoint %s: %w", ckpt, err)
	}
	if err := spec.foreign("checkpoint "+ckpt, label); err != nil {
		return nil, nil, err
	}
	rows, err := resumedRows(spec, rd, stackDone(spec, tr))
	return tr, rows, err
}

// stackDone is the number of the run's epochs tr has trained.
func stackDone(spec Spec, tr *engine.StackTrainer) int {
	if tr.Done() {
		return spec.TotalEpochs()
	}
	return spec.epochOf(tr.Position())
}
