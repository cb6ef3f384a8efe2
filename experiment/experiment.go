// Package experiment runs one training run end to end, as the command and
// sweeps need it: load the data, train, evaluate every few epochs, and keep
// a run directory that a later call can resume or skip:
//
//	config.json   every setting, seeds, version, kernel tier, CPU
//	metrics.csv   one row per epoch (rewritten atomically after each)
//	checkpoint    the engine's checkpoint (to resume an interrupted run)
//	model.npz     the final model, for NumPy
//	result.json   the final metrics; its presence marks the run finished
//	lock          locked (flock) by the process working in the directory; its PID
//
// A sweep is a Grid of Specs: Expand gives its runs (Points) with the
// paper's defaults of the data set (DefaultsFor), and Sweep runs them in
// parallel, each as Run does.
//
// It does not parse flags or print tables (package main and package report
// do); progress goes to a writer the caller gives.
package experiment

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"time"

	"github.com/klauspost/cpuid/v2"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/engine"
	"github.com/ncg-rbm/ncg/eval"
	"github.com/ncg-rbm/ncg/internal/dirlock"
	"github.com/ncg-rbm/ncg/kernel"
)

// Spec is everything that defines a run: its identity. Two runs with equal
// Specs produce the same model.
type Spec struct {
	Data     string `json:"data"`                // bas, mnist, mushrooms, connect-4 or a file path
	TestData string `json:"test_data,omitempty"` // a file path, for a file Data
	Format   string `json:"format,omitempty"`    // idx, libsvm or split; "" detects
	DataSeed uint64 `json:"data_seed"`           // binarisation and split seed

	Engine   engine.Config `json:"engine"`
	Classify bool          `json:"classify"`

	// EvalEvery evaluates every so many epochs (0: after the last only).
	EvalEvery int `json:"eval_every"`
	// Likelihood: "exact", "ais", "none", or "" (exact when the smaller
	// layer has at most ExactLimit units, else AIS; none when classifying).
	Likelihood   string `json:"likelihood"`
	AISRuns      int    `json:"ais_runs"`
	AISIntervals int    `json:"ais_intervals"` // 14500: the paper's schedule; other values: uniform β
	AISSeed      uint64 `json:"ais_seed"`
}

// ExactLimit is the largest smaller layer the automatic choice evaluates
// exactly (2^20 states take about a second).
const ExactLimit = 20

// Meta records where and how a run ran; it is not part of the identity.
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
	// engine.SparseDensity dense), whose rounding can differ from the dense
	// form's in the last bit.
	Compressed bool `json:"compressed_rows"`
}

// configFile is config.json.
type configFile struct {
	Spec Spec `json:"spec"`
	Meta Meta `json:"meta"`
}

// Metrics is one row of metrics.csv. NaN marks "not measured this epoch".
type Metrics struct {
	Epoch                     int
	Seconds                   float64 // training time of the epoch
	NLL, LogZ, LogZLo, LogZHi float64
	TrainAcc, TestAcc         float64
	Density                   float64
	DegreeMin                 int
	DegreeMean                float64
	DegreeMax                 int
	Recon                     float64
}

// Columns of metrics.csv, in order.
var Columns = []string{"epoch", "seconds", "nll", "log_z", "log_z_lo", "log_z_hi", "train_acc", "test_acc",
	"density", "degree_min", "degree_mean", "degree_max", "recon_error"}

// values lists the row in Columns order.
func (m Metrics) values() []float64 {
	return []float64{float64(m.Epoch), m.Seconds, m.NLL, m.LogZ, m.LogZLo, m.LogZHi, m.TrainAcc, m.TestAcc,
		m.Density, float64(m.DegreeMin), m.DegreeMean, float64(m.DegreeMax), m.Recon}
}

func fromValues(v []float64) Metrics {
	return Metrics{Epoch: int(v[0]), Seconds: v[1], NLL: v[2], LogZ: v[3], LogZLo: v[4], LogZHi: v[5], TrainAcc: v[6], TestAcc: v[7],
		Density: v[8], DegreeMin: int(v[9]), DegreeMean: v[10], DegreeMax: int(v[11]), Recon: v[12]}
}

func (m Metrics) row() []string {
	out := make([]string, len(Columns))
	for k, v := range m.values() {
		out[k] = strconv.FormatFloat(v, 'g', 8, 64)
	}
	return out
}

// Value returns the metric of the named column (NaN if unknown).
func (m Metrics) Value(column string) float64 {
	for k, c := range Columns {
		if c == column {
			return m.values()[k]
		}
	}
	return math.NaN()
}

// MarshalJSON writes the metrics as an object keyed by column, with null
// for a metric not measured (JSON has no NaN).
func (m Metrics) MarshalJSON() ([]byte, error) {
	obj := make(map[string]*float64, len(Columns))
	for k, v := range m.values() {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			obj[Columns[k]] = &v
		} else {
			obj[Columns[k]] = nil
		}
	}
	return json.Marshal(obj)
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (m *Metrics) UnmarshalJSON(b []byte) error {
	var obj map[string]*float64
	if err := json.Unmarshal(b, &obj); err != nil {
		return err
	}
	v := make([]float64, len(Columns))
	for k, c := range Columns {
		v[k] = math.NaN()
		if p := obj[c]; p != nil {
			v[k] = *p
		}
	}
	*m = fromValues(v)
	return nil
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
	Skipped      bool    `json:"-"` // found finished, not run again
}

// Options are the caller's attachments to a run.
type Options struct {
	DataDir  string    // data directory ("" : data.Dir's lookup)
	Workers  int       // goroutines (0: GOMAXPROCS); never changes results
	Progress io.Writer // one line per epoch; nil for none
	Version  string
	// CheckpointEvery is the least time between checkpoints (0: every
	// epoch). A checkpoint is also written on cancellation and at the end.
	CheckpointEvery time.Duration
	// Terminal makes Progress a live line (minibatches per second, time
	// left) redrawn in place, as on a terminal; otherwise plain lines.
	Terminal bool
}

// Load reads a Spec's data: training and test sets (test may be nil).
func Load(s Spec, dataDir string) (train, test *data.Set, err error) {
	opts := data.Options{Dir: dataDir, Format: s.Format, TestPath: s.TestData, SplitSeed: s.DataSeed}
	opts.Binarization.Seed = s.DataSeed
	return data.Load(s.Data, opts)
}

// LockFile is the file in a run directory that Run locks while it works
// there; it holds the PID of the process using the directory.
const LockFile = "lock"

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
	if err := spec.Validate(); err != nil {
		return nil, &ConfigError{err}
	}
	label, err := spec.identity()
	if err != nil {
		return nil, &ConfigError{err}
	}
	_, statErr := os.Stat(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	lock, err := dirlock.Acquire(dir, LockFile)
	if err != nil {
		return nil, err
	}
	started := false // config.json written: the directory holds a run
	defer func() {
		if !started && errors.Is(statErr, os.ErrNotExist) { // refused before starting: leave no trace
			os.Remove(filepath.Join(dir, LockFile))
			os.Remove(dir)
		}
		lock.Unlock()
	}()
	// Ours alone now: temporary files are those of a killed process.
	if err := engine.RemoveTemps(dir); err != nil {
		return nil, err
	}
	if res, err := ReadResult(dir); err == nil {
		theirs, err := res.Spec.identity()
		if err != nil {
			return nil, err
		}
		if err := spec.foreign(filepath.Join(dir, "result.json"), theirs); err != nil {
			return nil, err
		}
		res.Skipped = true
		return res, nil
	}
	train, test, err := Load(spec, opts.DataDir)
	if err != nil {
		return nil, err
	}
	d, err := engineData(spec, train)
	if err != nil {
		return nil, err
	}
	if err := spec.checkFits(d, physicalMemory()); err != nil {
		return nil, &ConfigError{err}
	}
	cfg := spec.Engine
	cfg.Workers = opts.Workers
	ckpt := filepath.Join(dir, "checkpoint")
	var tr *engine.Trainer
	var rows []Metrics
	if _, err := os.Stat(ckpt); err == nil {
		if tr, rows, err = resume(spec, dir, d, opts.Workers); err != nil {
			return nil, err
		}
		progress(opts.Progress, "resuming %s at epoch %d\n", dir, tr.Epoch())
	} else {
		if tr, err = engine.New(cfg, d); err != nil {
			return nil, err
		}
	}
	if err := tr.SetLabel(label); err != nil {
		return nil, err
	}
	meta := Meta{Version: opts.Version, Go: runtime.Version(), Kernel: kernel.Tier(), CPU: cpuid.CPU.BrandName,
		Workers: opts.Workers, Started: time.Now().UTC(), DataInfo: train.Source, Compressed: tr.Compressed()}
	if test != nil {
		meta.TestInfo = test.Source
	}
	if err := writeJSON(filepath.Join(dir, "config.json"), configFile{spec, meta}); err != nil {
		return nil, err
	}
	started = true
	initDensity := tr.Model().Connectivity().Density
	if tr.Epoch() > 0 || tr.Batch() > 0 { // resumed: redraw the start to learn its density
		fresh, err := engine.New(cfg, d)
		if err != nil {
			return nil, err
		}
		initDensity = fresh.Model().Connectivity().Density
	}
	ev, err := newEvaluator(spec, train, test, opts.Workers)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	lastLine, lastLive := time.Time{}, time.Time{}
	doneBatches, startEpoch := 0, tr.Epoch()
	epochsLeft := func(epoch int) string { // from the mean time of this invocation's epochs
		if epoch <= startEpoch {
			return "?"
		}
		per := float64(time.Since(start)) / float64(epoch-startEpoch)
		return time.Duration(per * float64(spec.Engine.Epochs-epoch)).Round(time.Second).String()
	}
	eta := func(epoch, done, batches int) string {
		left := (spec.Engine.Epochs-epoch)*batches + batches - done
		if doneBatches == 0 {
			return "?"
		}
		return (time.Duration(float64(time.Since(start)) / float64(doneBatches) * float64(left))).Round(time.Second).String()
	}
	var onBatch func(epoch, done, batches int)
	if opts.Progress != nil && opts.Terminal {
		onBatch = func(epoch, done, batches int) {
			doneBatches++
			if time.Since(lastLive) < 250*time.Millisecond {
				return
			}
			lastLive = time.Now()
			rate := float64(doneBatches) / time.Since(start).Seconds()
			fmt.Fprintf(opts.Progress, "\r%s epoch %d/%d  minibatch %d/%d  %.0f minibatches/s  %s left   ", filepath.Base(dir), epoch, spec.Engine.Epochs, done, batches, rate, eta(epoch, done, batches))
		}
	} else {
		onBatch = func(int, int, int) { doneBatches++ }
	}
	clearLine := ""
	if opts.Terminal {
		clearLine = "\r\033[K"
	}
	err = tr.Train(ctx, engine.Options{
		OnBatch:         onBatch,
		Checkpoint:      ckpt,
		CheckpointEvery: opts.CheckpointEvery,
		EvalEvery:       spec.EvalEvery,
		Evaluate: func(m *engine.Model, epoch int) (map[string]float64, error) {
			if epoch == spec.Engine.Epochs {
				return nil, nil // after the checkpoint and model.npz, below
			}
			return ev.evaluate(ctx, m, epoch)
		},
		OnEpoch: func(r engine.Record) error {
			m := Metrics{Epoch: r.Epoch, Seconds: r.Seconds, NLL: nan, LogZ: nan, LogZLo: nan, LogZHi: nan, TrainAcc: nan, TestAcc: nan,
				Density: r.Density, DegreeMin: r.DegreeMin, DegreeMean: r.DegreeMean, DegreeMax: r.DegreeMax, Recon: r.ReconError}
			m.setEval(r.Eval)
			rows = append(rows, m)
			// A line per evaluation and at most one every two seconds otherwise.
			if r.Eval != nil || r.Epoch == spec.Engine.Epochs || time.Since(lastLine) >= 2*time.Second {
				lastLine = time.Now()
				progress(opts.Progress, "%s%s epoch %d/%d  %.2fs  %s  (%s left)\n", clearLine, filepath.Base(dir), r.Epoch, spec.Engine.Epochs, r.Seconds, m.summary(), epochsLeft(r.Epoch))
			}
			if r.Checkpoint { // the metrics on disk keep pace with the checkpoint
				return WriteMetrics(filepath.Join(dir, "metrics.csv"), rows)
			}
			return nil
		},
	})
	if err != nil {
		if ctx.Err() != nil { // stopped: the checkpoint holds every finished epoch, so must the metrics
			if werr := WriteMetrics(filepath.Join(dir, "metrics.csv"), rows); werr != nil {
				return nil, errors.Join(err, werr)
			}
		}
		return nil, err
	}
	// Trained: the last epoch's checkpoint is on disk; the model goes beside
	// it before the final evaluation, which may fail or be interrupted.
	if err := tr.Model().ExportNPZ(filepath.Join(dir, "model.npz")); err != nil {
		return nil, err
	}
	final, err := ev.evaluate(ctx, tr.Model(), spec.Engine.Epochs)
	if err != nil {
		return nil, fmt.Errorf("epoch %d: evaluation: %w (the trained model is kept: run again to retry the evaluation)", spec.Engine.Epochs, err)
	}
	last := &rows[spec.Engine.Epochs-1]
	last.setEval(final)
	progress(opts.Progress, "%s%s final  %s\n", clearLine, filepath.Base(dir), last.summary())
	if err := WriteMetrics(filepath.Join(dir, "metrics.csv"), rows); err != nil {
		return nil, err
	}
	res := &Result{Spec: spec, Dir: dir, Final: *last, InitDensity: initDensity, TotalSeconds: time.Since(start).Seconds(), ResumedAt: startEpoch}
	return res, writeJSON(filepath.Join(dir, "result.json"), res)
}

// resume reads dir's checkpoint and metrics for spec, refusing those of
// another configuration and naming the difference.
func resume(spec Spec, dir string, d *engine.Data, workers int) (*engine.Trainer, []Metrics, error) {
	ckpt := filepath.Join(dir, "checkpoint")
	cfgPath := filepath.Join(dir, "config.json")
	b, err := os.ReadFile(cfgPath)
	if err != nil {
		return nil, nil, fmt.Errorf("%s has a checkpoint but no readable config.json (%w); move the directory away to start the run over", dir, err)
	}
	var prev struct {
		Spec json.RawMessage `json:"spec"`
	}
	if err := json.Unmarshal(b, &prev); err != nil || prev.Spec == nil {
		return nil, nil, fmt.Errorf("%s: not a run configuration (%v); move the directory away to start the run over", cfgPath, err)
	}
	if err := spec.foreign(cfgPath, prev.Spec); err != nil {
		return nil, nil, err
	}
	tr, err := engine.Resume(ckpt, d, workers)
	if err != nil {
		return nil, nil, fmt.Errorf("%w; move %s away (or delete it) to start the run over", err, ckpt)
	}
	if label := tr.Label(); label != nil {
		if err := spec.foreign("checkpoint "+ckpt, label); err != nil {
			return nil, nil, err
		}
	} else { // a checkpoint without a label: its engine settings are all it has
		cfg := tr.Config()
		cfg.Workers = 0
		theirs, _ := json.Marshal(map[string]engine.Config{"engine": cfg})
		ours, _ := json.Marshal(map[string]engine.Config{"engine": spec.Engine})
		if err := foreign("checkpoint "+ckpt, theirs, ours); err != nil {
			return nil, nil, err
		}
	}
	rows, err := ReadMetrics(filepath.Join(dir, "metrics.csv"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, nil, err
	}
	// Rows are written before the checkpoint they go with, except when a
	// stopped run was killed between its last two writes: the epochs whose
	// rows were lost keep their number and nothing else.
	for len(rows) < tr.Epoch() {
		rows = append(rows, Metrics{Epoch: len(rows) + 1, Seconds: nan, NLL: nan, LogZ: nan, LogZLo: nan, LogZHi: nan,
			TrainAcc: nan, TestAcc: nan, Density: nan, DegreeMean: nan, Recon: nan})
	}
	return tr, rows[:tr.Epoch()], nil
}

// setEval fills the metrics an evaluation returned (nil: none).
func (m *Metrics) setEval(ev map[string]float64) {
	fields := map[string]*float64{"nll": &m.NLL, "log_z": &m.LogZ, "log_z_lo": &m.LogZLo, "log_z_hi": &m.LogZHi,
		"train_acc": &m.TrainAcc, "test_acc": &m.TestAcc}
	for k, v := range ev {
		if p := fields[k]; p != nil {
			*p = v
		}
	}
}

var nan = math.NaN()

func (m Metrics) summary() string {
	s := fmt.Sprintf("density %.3f  degree %d/%.1f/%d  recon %.4f", m.Density, m.DegreeMin, m.DegreeMean, m.DegreeMax, m.Recon)
	if !math.IsNaN(m.NLL) {
		s += fmt.Sprintf("  nll %.3f (log Z %.3f)", m.NLL, m.LogZ)
	}
	if !math.IsNaN(m.TrainAcc) {
		s += fmt.Sprintf("  acc train %.4f", m.TrainAcc)
	}
	if !math.IsNaN(m.TestAcc) {
		s += fmt.Sprintf(" test %.4f", m.TestAcc)
	}
	return s
}

func progress(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format, args...)
	}
}

// evaluator computes the likelihood and accuracy a Spec asks for.
type evaluator struct {
	spec        Spec
	train, test *data.Set
	workers     int
	base        []float32 // AIS base-rate biases
	betas       []float64
}

func newEvaluator(spec Spec, train, test *data.Set, workers int) (*evaluator, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	return &evaluator{spec: spec, train: train, test: test, workers: workers}, nil
}

// evaluate measures m after the given epoch; ctx stops it within a second
// or so, with an error wrapping ctx.Err().
func (e *evaluator) evaluate(ctx context.Context, m *engine.Model, epoch int) (map[string]float64, error) {
	em := &eval.Model{H: m.H, X: m.X, C: m.C(), B: m.HiddenBias, D: m.VisibleBias}
	out := map[string]float64{}
	// The likelihood is of the test set when there is one, else the training set.
	set := e.test
	if set == nil {
		set = e.train
	}
	var logZ float64
	switch e.spec.likelihood(m.X) {
	case "exact":
		z, err := eval.ExactLogZContext(ctx, em, e.workers)
		if err != nil {
			return nil, err
		}
		logZ = z
		out["log_z"], out["log_z_lo"], out["log_z_hi"] = z, z, z
	case "ais":
		if e.base == nil {
			b, err := eval.DataBaseRate(e.train.X, e.train.N, e.train.D)
			if err != nil {
				return nil, err
			}
			e.base = b
			if n := e.spec.AISIntervals; n > 0 && n != 14500 {
				e.betas = eval.UniformSchedule(n)
			}
		}
		if e.spec.Classify {
			break // the label units make the joint model's likelihood a different quantity
		}
		r, err := eval.AISContext(ctx, em, eval.AISConfig{Runs: e.spec.AISRuns, Betas: e.betas, Seed: e.spec.AISSeed, Workers: e.workers, BaseBias: e.base})
		if err != nil {
			return nil, err
		}
		logZ = r.LogZ
		out["log_z"], out["log_z_lo"], out["log_z_hi"] = r.LogZ, r.LogZLo, r.LogZHi
	}
	if _, ok := out["log_z"]; ok && !e.spec.Classify {
		nll, err := eval.AverageNLL(em, logZ, set.X, set.N, e.workers)
		if err != nil {
			return nil, err
		}
		out["nll"] = nll
	}
	if e.spec.Classify {
		for name, s := range map[string]*data.Set{"train_acc": e.train, "test_acc": e.test} {
			if s == nil {
				continue
			}
			labels := make([]int, s.N)
			for i, l := range s.Labels {
				labels[i] = int(l)
			}
			c, err := eval.ClassifyPaper(em, s.X, s.N, s.NumClasses, labels, e.workers)
			if err != nil {
				return nil, err
			}
			out[name] = c.Accuracy
		}
	}
	for k, v := range out {
		if math.IsNaN(v) {
			return nil, fmt.Errorf("epoch %d: %s is NaN", epoch, k)
		}
	}
	return out, nil
}

// WriteMetrics writes metrics.csv atomically.
func WriteMetrics(path string, rows []Metrics) error {
	return engine.WriteAtomic(path, func(w io.Writer) error {
		cw := csv.NewWriter(w)
		cw.Write(Columns)
		for _, r := range rows {
			cw.Write(r.row())
		}
		cw.Flush()
		return cw.Error()
	})
}

// ReadMetrics reads metrics.csv; errors name the file and line.
func ReadMetrics(path string) ([]Metrics, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(recs) == 0 || !reflect.DeepEqual(recs[0], Columns) {
		return nil, fmt.Errorf("%s: line 1: header is not %v", path, Columns)
	}
	var out []Metrics
	for i, r := range recs[1:] {
		if len(r) != len(Columns) {
			return nil, fmt.Errorf("%s: line %d: %d fields, want %d", path, i+2, len(r), len(Columns))
		}
		v := make([]float64, len(Columns))
		for k := range v {
			var err error
			if v[k], err = strconv.ParseFloat(r[k], 64); err != nil {
				return nil, fmt.Errorf("%s: line %d, column %s: %w", path, i+2, Columns[k], err)
			}
		}
		out = append(out, fromValues(v))
	}
	return out, nil
}

// ReadResult reads a finished run's result.json.
func ReadResult(dir string) (*Result, error) {
	var r Result
	if err := readJSON(filepath.Join(dir, "result.json"), &r); err != nil {
		return nil, err
	}
	r.Dir = dir
	return &r, nil
}

// ReadSpec reads the spec of a run directory (finished or not).
func ReadSpec(dir string) (Spec, error) {
	var c configFile
	err := readJSON(filepath.Join(dir, "config.json"), &c)
	return c.Spec, err
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
