package experiment

import (
	"os"
	"path/filepath"
	"slices"

	"github.com/ncg-rbm/ncg/internal/dirlock"
)

// RunDir is a run directory: the one place that knows its files, its
// state and its lock. Run works in it; ncgbench, report and sweeps read it
// through it.
//
//	config.json   the run's Spec (normalised) and how it ran (Meta)
//	metrics.csv   one row per epoch (rewritten atomically with each checkpoint)
//	checkpoint    the engine's checkpoint (to resume an interrupted run)
//	model.npz     the final model, for NumPy
//	model-1.npz … a deep model's instead: each RBM's, the bottom one first
//	stack.json    and what they are (WriteStack)
//	result.json   the final metrics; its presence marks the run finished
//	failed.json   why the run stopped short (a NaN), until a run gets past it
//	lock          locked (flock) by the process working in the directory; its PID
type RunDir string

// The files of a run directory.
const (
	configFileName = "config.json"
	metricsFile    = "metrics.csv"
	checkpointFile = "checkpoint"
	modelFile      = "model.npz"
	resultFile     = "result.json"
	failureFile    = "failed.json"
	// LockFile is the file Run locks while it works in a run directory.
	LockFile = "lock"
)

// State is how far a run directory's run has come.
type State string

// The states.
const (
	StateNew      State = "new"      // no config.json: not a run (yet)
	StateStarted  State = "started"  // config.json, no checkpoint: starts over
	StateResumes  State = "resumes"  // a checkpoint: resumes from it
	StateFailed   State = "failed"   // failed.json: stopped by a NaN; retried from its checkpoint
	StateFinished State = "finished" // result.json
)

func (d RunDir) path(name string) string { return filepath.Join(string(d), name) }

// ConfigPath, MetricsPath, CheckpointPath, ModelPath and ResultPath are
// the paths of its files.
func (d RunDir) ConfigPath() string     { return d.path(configFileName) }
func (d RunDir) MetricsPath() string    { return d.path(metricsFile) }
func (d RunDir) CheckpointPath() string { return d.path(checkpointFile) }
func (d RunDir) ModelPath() string      { return d.path(modelFile) }
func (d RunDir) ResultPath() string     { return d.path(resultFile) }

// State reports how far its run has come.
func (d RunDir) State() State {
	switch {
	case exists(d.ResultPath()):
		return StateFinished
	case exists(d.FailurePath()):
		return StateFailed
	case exists(d.CheckpointPath()):
		return StateResumes
	case exists(d.ConfigPath()):
		return StateStarted
	}
	return StateNew
}

// IsRun reports whether d holds a run (a config.json).
func (d RunDir) IsRun() bool { return exists(d.ConfigPath()) }

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// Spec reads the run's Spec from config.json (finished or not), as it was
// stored.
func (d RunDir) Spec() (Spec, error) {
	var c configFile
	err := readJSON(d.ConfigPath(), &c)
	return c.Spec, err
}

// Meta reads the record of how the run ran from config.json.
func (d RunDir) Meta() (Meta, error) {
	var c configFile
	err := readJSON(d.ConfigPath(), &c)
	return c.Meta, err
}

// Result reads result.json of a finished run.
func (d RunDir) Result() (*Result, error) {
	var r Result
	if err := readJSON(d.ResultPath(), &r); err != nil {
		return nil, err
	}
	r.Dir = string(d)
	return &r, nil
}

// Metrics reads metrics.csv (an error wrapping fs.ErrNotExist when no epoch
// has finished).
func (d RunDir) Metrics() ([]Metrics, error) { return ReadMetrics(d.MetricsPath()) }

// lock creates d if needed and locks it for this process (a
// *dirlock.InUseError when another holds it).
func (d RunDir) lock() (*dirlock.Lock, error) {
	if err := os.MkdirAll(string(d), 0o755); err != nil {
		return nil, err
	}
	return dirlock.Acquire(string(d), LockFile)
}

// writeConfig writes config.json.
func (d RunDir) writeConfig(s Spec, m Meta, digest *DataDigest) error {
	return writeJSON(d.ConfigPath(), configFile{s, m, digest})
}

// Digest reads the digest of the run's data from config.json (nil when the
// run's version recorded none).
func (d RunDir) Digest() (*DataDigest, error) {
	var c configFile
	err := readJSON(d.ConfigPath(), &c)
	return c.Data, err
}

func (d RunDir) writeMetrics(rows []Metrics) error { return WriteMetrics(d.MetricsPath(), rows) }

func (d RunDir) writeResult(r *Result) error { return writeJSON(d.ResultPath(), r) }

// earlier returns the records of the invocations that ran d before this
// one, oldest first, from its config.json (none if it cannot be read: the
// checkpoint, not config.json, carries the run).
func (d RunDir) earlier() []Meta {
	var c configFile
	if readJSON(d.ConfigPath(), &c) != nil {
		return nil
	}
	last := c.Meta
	last.Earlier = nil
	return append(c.Meta.Earlier, last)
}

// Tiers returns the kernel tiers of the invocations that trained the run
// (Earlier's, then this one's), each once, in the order they first ran. A
// run trained on more than one tier is not bit-identical to a run trained
// on any one of them (docs/guarantees.md).
func (m Meta) Tiers() []string {
	var tiers []string
	for _, e := range append(append([]Meta(nil), m.Earlier...), m) {
		if e.Kernel != "" && !slices.Contains(tiers, e.Kernel) {
			tiers = append(tiers, e.Kernel)
		}
	}
	return tiers
}
