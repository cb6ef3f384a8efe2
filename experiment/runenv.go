package experiment

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"time"

	"github.com/klauspost/cpuid/v2"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/engine"
	"github.com/ncg-rbm/ncg/eval"
	"github.com/ncg-rbm/ncg/kernel"
)

// run is a run under way: what Run checked and loaded before training,
// which the training of an RBM (Run) and of a deep model (run.stack)
// share.
type run struct {
	spec        Spec
	dir         string
	rd          RunDir
	opts        Options
	label       json.RawMessage // the identity checkpoints carry
	train, test *data.Set
	d           *engine.Data
	digest      *DataDigest
	// started: config.json is written, the directory holds a run (Run
	// removes a directory it made for a run refused before).
	started bool
}

// emit gives an event to the caller's Progress.
func (r *run) emit(e Event) {
	if r.opts.Progress != nil {
		r.opts.Progress(e)
	}
}

// resumed tells the caller that the run resumes at its epoch, with the
// tiers that trained it before.
func (r *run) resumed(epoch int) {
	var earlier []string
	if prev, err := r.rd.Meta(); err == nil {
		earlier = prev.Tiers()
	}
	r.emit(Resumed{Dir: r.dir, Epoch: epoch, Tier: kernel.Tier(), EarlierTiers: earlier})
}

// start writes config.json: the Spec, how this invocation runs (from
// epoch fromEpoch; resumed keeps the records of the invocations before
// it) and the digest of the data.
func (r *run) start(compressed bool, fromEpoch int, resumed bool) error {
	opts := r.opts
	meta := Meta{Version: opts.Version, Go: runtime.Version(), Kernel: kernel.Tier(), CPU: cpuid.CPU.BrandName,
		Workers: opts.Workers, Started: time.Now().UTC(), DataInfo: r.train.Source, Compressed: compressed, FromEpoch: fromEpoch,
		Scaling: r.train.Scaling}
	if r.test != nil {
		meta.TestInfo = r.test.Source
	}
	if resumed {
		meta.Earlier = r.rd.earlier()
	}
	if err := r.rd.writeConfig(r.spec, meta, r.digest); err != nil {
		return err
	}
	r.started = true
	return nil
}

// evalProgress is the Progress of the evaluation after epoch: Evaluating
// events with the time left on clk (nil without the caller's Progress).
func (r *run) evalProgress(clk *clock, epoch int) func(eval.Progress) {
	if r.opts.Progress == nil {
		return nil
	}
	return func(p eval.Progress) {
		left, unknown := clk.evalProgress(p), 0
		if left >= 0 {
			left, unknown = clk.left(epoch, clk.batches, left)
		}
		r.emit(Evaluating{Dir: r.dir, Epoch: epoch, Progress: p, Left: left, UnknownEvals: unknown})
	}
}

// stopped is the error of training stopped short by err: with the
// metrics of the epochs before it, and for a NaN failed.json, saying why;
// when ctx is cancelled, with the metrics of every epoch the checkpoint
// holds.
func (r *run) stopped(ctx context.Context, err error, rows []Metrics) error {
	var nan *engine.NumericalError
	if errors.As(err, &nan) {
		err = &NumericalError{nan, r.spec.numericalCauses(r.train)}
		if werr := errors.Join(r.rd.writeMetrics(rows), r.rd.writeFailure(err.(*NumericalError))); werr != nil {
			return errors.Join(err, werr)
		}
	}
	if ctx.Err() != nil {
		if werr := r.rd.writeMetrics(rows); werr != nil {
			return errors.Join(err, werr)
		}
	}
	return err
}

// finish records the final evaluation in the last epoch's row and writes
// metrics.csv and result.json: the run is finished. It trained from
// startEpoch at start.
func (r *run) finish(rows []Metrics, final *eval.Metrics, initDensity float64, start time.Time, startEpoch int) (*Result, error) {
	last := &rows[len(rows)-1]
	last.setEval(final, r.test != nil)
	r.emit(Finished{Dir: r.dir, Metrics: *last})
	if err := r.rd.writeMetrics(rows); err != nil {
		return nil, err
	}
	res := &Result{Spec: r.spec, Dir: r.dir, Final: *last, InitDensity: initDensity, TotalSeconds: time.Since(start).Seconds(), ResumedAt: startEpoch,
		Checks: final.Checks}
	return res, r.rd.writeResult(res)
}
