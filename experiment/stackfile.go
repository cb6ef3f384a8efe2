package experiment

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/ncg-rbm/ncg/engine"
	"github.com/ncg-rbm/ncg/unit"
)

// A deep model's files (WriteStack): each RBM as a model file of
// engine.Model.ExportNPZ's layout, model-1.npz for the bottom one, and
// stack.json, which says what they are. Each model file is an RBM's, as
// numpy.load, eval and sample read one; stack.json says how they form a
// DBN or a DBM.
const stackFileName = "stack.json"

// StackFile is stack.json.
type StackFile struct {
	Kind engine.StackKind `json:"kind"` // dbn or dbm
	// Sizes are the units of every layer, the visible layer first.
	Sizes []int `json:"sizes"`
	// Methods are the connectivity methods of the weight matrices, the
	// bottom one first.
	Methods []engine.Method `json:"methods"`
	// Files are the RBMs' model files, the bottom one first: file l
	// (1-based) joins layers l−1 and l. In a DBM a hidden layer below the
	// top has one bias, the sum of the hidden biases of the RBM below it
	// and the visible biases of the RBM above it (engine.Stack).
	Files []string `json:"files"`
}

// stackModelFile is the name of RBM l's (1-based) model file.
func stackModelFile(l int) string { return fmt.Sprintf("model-%d.npz", l) }

// StackPath is the path of a deep model's stack.json in the run
// directory.
func (d RunDir) StackPath() string { return d.path(stackFileName) }

// WriteStack writes the deep model s into dir: each RBM's model file,
// then stack.json, last, so that a stack.json names files written whole
// (each written atomically). methods are the weight matrices' methods.
func WriteStack(dir string, s *engine.Stack, methods []engine.Method) error {
	if err := s.Check(); err != nil {
		return err
	}
	if len(methods) != len(s.RBMs) {
		return fmt.Errorf("experiment: %d methods for %d RBMs", len(methods), len(s.RBMs))
	}
	f := StackFile{Kind: s.Kind, Sizes: s.Sizes(), Methods: methods}
	for l, m := range s.RBMs {
		name := stackModelFile(l + 1)
		if err := m.ExportNPZ(filepath.Join(dir, name)); err != nil {
			return err
		}
		f.Files = append(f.Files, name)
	}
	return writeJSON(filepath.Join(dir, stackFileName), f)
}

// IsStack reports whether path is a deep model's: its stack.json, or a
// directory holding one.
func IsStack(path string) bool {
	if filepath.Base(path) == stackFileName {
		return true
	}
	st, err := os.Stat(path)
	return err == nil && st.IsDir() && exists(filepath.Join(path, stackFileName))
}

// ReadStack reads a deep model WriteStack wrote: path is its directory or
// its stack.json. Each RBM's file is read as ReadModel reads a model (its
// memory checked first) and must have the units stack.json gives it,
// binary visible units above the bottom RBM, no label units, and NCG's
// connection strengths where its method is NCG. Errors name the file.
func ReadStack(path string) (*engine.Stack, *StackFile, error) {
	dir, file := path, filepath.Join(path, stackFileName)
	if filepath.Base(path) == stackFileName {
		dir, file = filepath.Dir(path), path
	}
	var f StackFile
	if err := readJSON(file, &f); err != nil {
		return nil, nil, err
	}
	if err := f.check(); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", file, err)
	}
	s := &engine.Stack{Kind: f.Kind}
	for l, name := range f.Files {
		p := filepath.Join(dir, name)
		m, err := ReadModel(p)
		if err != nil {
			return nil, nil, err
		}
		var diffs []string
		if m.X != f.Sizes[l] || m.H != f.Sizes[l+1] {
			diffs = append(diffs, fmt.Sprintf("%d × %d units, %s says %d × %d", m.X, m.H, stackFileName, f.Sizes[l], f.Sizes[l+1]))
		}
		if m.DataUnits != m.X {
			diffs = append(diffs, fmt.Sprintf("%d label units; a deep model has none", m.X-m.DataUnits))
		}
		if l > 0 && m.Visible != unit.Binary {
			diffs = append(diffs, fmt.Sprintf("%s visible units; the hidden layers of a deep model are binary", m.Visible.Name()))
		}
		if ncg := f.Methods[l] == engine.NCG; (m.AP != nil) != ncg {
			diffs = append(diffs, fmt.Sprintf("connection strengths A′: %v, its method %s", m.AP != nil, f.Methods[l]))
		}
		if len(diffs) > 0 {
			return nil, nil, fmt.Errorf("%s is not RBM %d of the deep model of %s: it has %s", p, l+1, file, diffs[0])
		}
		s.RBMs = append(s.RBMs, m)
	}
	if err := s.Check(); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", file, err)
	}
	return s, &f, nil
}

// check refuses a stack.json that WriteStack would not write.
func (f *StackFile) check() error {
	switch L := len(f.Files); {
	case f.Kind != engine.DBN && f.Kind != engine.DBM:
		return fmt.Errorf("kind %q is not one of %s", f.Kind, names(engine.StackKinds()))
	case L < 1 || L > engine.MaxStackLayers:
		return fmt.Errorf("%d model files: a deep model has 1 to %d RBMs", L, engine.MaxStackLayers)
	case len(f.Sizes) != L+1 || len(f.Methods) != L:
		return fmt.Errorf("%d sizes and %d methods for %d RBMs: want %d and %d", len(f.Sizes), len(f.Methods), L, L+1, L)
	}
	for l, name := range f.Files {
		if name != stackModelFile(l+1) { // no path of another directory
			return fmt.Errorf("file %d is %q, not %q", l+1, name, stackModelFile(l+1))
		}
		if !slices.Contains(engine.Methods(), f.Methods[l]) {
			return fmt.Errorf("method %q of RBM %d is not one of %s", f.Methods[l], l+1, names(engine.Methods()))
		}
	}
	for l, n := range f.Sizes {
		if n < 1 {
			return fmt.Errorf("layer %d has %d units", l, n)
		}
	}
	return nil
}

// CheckStack refuses a deep model (read from path) that is not the model
// of d's run, as CheckModel refuses an RBM: another kind, other layers or
// methods, or other visible units.
func (d RunDir) CheckStack(s *engine.Stack, methods []engine.Method, path string) error {
	return d.checkStack(s, methods, path, false)
}

// checkStack is CheckStack, of the RBMs pre-trained so far when partial.
func (d RunDir) checkStack(s *engine.Stack, methods []engine.Method, path string, partial bool) error {
	rs, err := d.Spec()
	if err != nil {
		return err
	}
	rs = rs.Normalize()
	if !rs.IsDeep() {
		return fmt.Errorf("%s is a deep model; the run in %s trains an RBM", path, d)
	}
	want, wantMethods := rs.Stack().Sizes(s.RBMs[0].X), rs.Methods()
	if n := len(s.RBMs); partial && n < len(wantMethods) {
		want, wantMethods = want[:n+1], wantMethods[:n]
	}
	var diffs []string
	if s.Kind != rs.Deep.Kind {
		diffs = append(diffs, fmt.Sprintf("kind %s, the run's %s", s.Kind, rs.Deep.Kind))
	}
	if got := s.Sizes(); !slices.Equal(got, want) {
		diffs = append(diffs, fmt.Sprintf("layers of %v units, the run's %v", got, want))
	}
	if !slices.Equal(methods, wantMethods) {
		diffs = append(diffs, fmt.Sprintf("methods %v, the run's %v", methods, wantMethods))
	}
	if v := s.RBMs[0].Visible; v != rs.Engine.Visible {
		diffs = append(diffs, fmt.Sprintf("%s visible units, the run's %s", v.Name(), rs.Engine.Visible.Name()))
	}
	if len(diffs) > 0 {
		return fmt.Errorf("%s is not the model of the run in %s (%s)", path, d, diffs[0])
	}
	return nil
}

// LoadStack reads the deep model at a (a.Stack), checked (ReadStack) and,
// when it belongs to a run, checked against the run (RunDir.CheckStack):
// a stack.json, a run's, or for a run not yet trained to the end the
// model of its checkpoint, resumed on data (the run's training data; nil
// refuses such a run). It returns the weight matrices' methods too.
func (a ModelAt) LoadStack(data *engine.Data, workers int) (*engine.Stack, []engine.Method, error) {
	if !a.Stack {
		return nil, nil, fmt.Errorf("%s is an RBM, not a deep model", a.Path)
	}
	d := a.Run
	if !a.Dir || exists(d.StackPath()) {
		path := a.Path
		if a.Dir {
			path = d.StackPath()
		}
		s, f, err := ReadStack(path)
		if err != nil {
			return nil, nil, err
		}
		if d != "" {
			if err := d.CheckStack(s, f.Methods, path); err != nil {
				return nil, nil, err
			}
		}
		return s, f.Methods, nil
	}
	switch {
	case data == nil:
		return nil, nil, fmt.Errorf("%s: no %s: the run has not finished training", d, stackFileName)
	case !exists(d.CheckpointPath()):
		return nil, nil, fmt.Errorf("%s: no %s or %s", d, stackFileName, checkpointFile)
	}
	tr, err := engine.ResumeStack(d.CheckpointPath(), data, workers)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", d.CheckpointPath(), err)
	}
	rs, err := d.Spec()
	if err != nil {
		return nil, nil, err
	}
	s, methods := tr.Model(), rs.Normalize().Methods()
	if len(s.RBMs) < len(methods) { // in pre-training: the RBMs so far
		methods = methods[:len(s.RBMs)]
	}
	return s, methods, d.checkStack(s, methods, d.CheckpointPath(), true)
}
