package experiment

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ncg-rbm/ncg/engine"
)

// ReadModel reads a model file of engine.Model.ExportNPZ's layout with
// engine.ReadNPZ (which refuses a file whose arrays disagree), after
// checking that the matrices its shape declares fit in the memory the
// process may use: a file of a few hundred bytes can declare terabytes (a
// *ConfigError naming the file).
func ReadModel(path string) (*engine.Model, error) {
	x, _, h, err := engine.NPZShape(path)
	if err != nil {
		return nil, err
	}
	if err := CheckMemory("reading "+path, []MemoryPart{
		{Setting: "hidden units of " + path, Value: h, Bytes: engine.NPZBytes(x, h), What: fmt.Sprintf("its %d × %d matrices", x, h)},
	}); err != nil {
		return nil, err
	}
	return engine.ReadNPZ(path)
}

// ModelAt is where a command's model comes from: a run directory, or a
// model file, with the run whose config.json is beside it (if any).
type ModelAt struct {
	Path string // as given
	Dir  bool   // Path is a run directory
	// Stack: the model is a deep model's (LoadStack): a deep run's
	// directory, or a stack.json or the directory holding one.
	Stack bool
	// Run is the run the model belongs to: the directory, or the model
	// file's directory when it holds a run's config.json; "" for none.
	Run RunDir
}

// LocateModel says where the model at path comes from. A path that does
// not exist is a *ConfigError; a directory without config.json is not a
// run (a deep model's files outside a run aside: a directory with a
// stack.json).
func LocateModel(path string) (ModelAt, error) {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return ModelAt{}, &ConfigError{fmt.Errorf("-model %s: no such file or directory", path)}
	case err != nil:
		return ModelAt{}, err
	case st.IsDir() && !RunDir(path).IsRun() && IsStack(path):
		return ModelAt{Path: path, Stack: true}, nil
	case st.IsDir():
		if !RunDir(path).IsRun() {
			return ModelAt{}, fmt.Errorf("%s: not a run directory (no %s)", path, configFileName)
		}
		at := ModelAt{Path: path, Dir: true, Run: RunDir(path)}
		rs, err := at.Run.Spec()
		if err != nil {
			return ModelAt{}, err
		}
		at.Stack = rs.Normalize().IsDeep()
		return at, nil
	}
	at := ModelAt{Path: path, Stack: IsStack(path)}
	if d := RunDir(filepath.Dir(path)); d.IsRun() {
		at.Run = d
	}
	return at, nil
}

// Spec returns the Spec of the model's run, as stored; ok is false for a
// model outside any run.
func (a ModelAt) Spec() (s Spec, ok bool, err error) {
	if a.Run == "" {
		return Spec{}, false, nil
	}
	s, err = a.Run.Spec()
	return s, err == nil, err
}

// Load reads the model, checked (ReadModel) and, when it belongs to a run,
// checked against the run (RunDir.CheckModel): a model file, a run's
// model.npz, or for a run not yet trained to the end the model of its
// checkpoint, resumed on data (the run's training data; nil refuses such a
// run).
func (a ModelAt) Load(data *engine.Data, workers int) (*engine.Model, error) {
	if a.Stack {
		return nil, fmt.Errorf("%s is a deep model, not an RBM", a.Path)
	}
	if !a.Dir {
		m, err := ReadModel(a.Path)
		if err != nil {
			return nil, err
		}
		if a.Run != "" {
			if err := a.Run.CheckModel(m, a.Path); err != nil {
				return nil, err
			}
		}
		return m, nil
	}
	d := a.Run
	switch {
	case exists(d.ModelPath()):
		return d.Model()
	case data == nil:
		return nil, fmt.Errorf("%s: no %s: the run has not finished training", d, modelFile)
	case !exists(d.CheckpointPath()):
		return nil, fmt.Errorf("%s: no %s or %s", d, modelFile, checkpointFile)
	}
	tr, err := engine.Resume(d.CheckpointPath(), data, workers)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.CheckpointPath(), err)
	}
	defer tr.Close()
	m := tr.Model()
	return m, d.CheckModel(m, d.CheckpointPath())
}

// Model reads the run's final model, model.npz, checked (ReadModel) and
// checked against the run (CheckModel).
func (d RunDir) Model() (*engine.Model, error) {
	m, err := ReadModel(d.ModelPath())
	if err != nil {
		return nil, err
	}
	return m, d.CheckModel(m, d.ModelPath())
}

// TrainedModel returns the latest model of the run: model.npz of a trained
// run, else the model of its checkpoint, resumed on data (the run's
// training data); both checked against the run.
func (d RunDir) TrainedModel(data *engine.Data, workers int) (*engine.Model, error) {
	return ModelAt{Path: string(d), Dir: true, Run: d}.Load(data, workers)
}

// CheckModel refuses a model (read from path) that is not the model of
// d's run: another number of hidden or label units, other visible units,
// or NCG's connection strengths A′ in a run of another method (or none in
// an NCG run), as a model file copied into another run's directory. The
// data units are the caller's to check against the data it measures.
func (d RunDir) CheckModel(m *engine.Model, path string) error {
	rs, err := d.Spec()
	if err != nil {
		return err
	}
	var diffs []string
	if m.H != rs.Engine.Hidden {
		diffs = append(diffs, fmt.Sprintf("%d hidden units, the run %d", m.H, rs.Engine.Hidden))
	}
	if labels := m.X - m.DataUnits; (labels > 0) != rs.Classify {
		diffs = append(diffs, fmt.Sprintf("%d label units, the run classify = %v", labels, rs.Classify))
	}
	if m.Visible != rs.Engine.Visible {
		diffs = append(diffs, fmt.Sprintf("%s visible units, the run's %s", m.Visible.Name(), rs.Engine.Visible.Name()))
	}
	if ncg := rs.Engine.Method == engine.NCG; (m.AP != nil) != ncg {
		diffs = append(diffs, fmt.Sprintf("connection strengths A′: %v, the run's method %s", m.AP != nil, rs.Engine.Method))
	}
	if len(diffs) > 0 {
		return fmt.Errorf("%s is not the model of the run in %s (the model has %s); evaluate a copy outside run directories with -data, or the run's own model",
			path, d, strings.Join(diffs, "; "))
	}
	return nil
}
