package engine

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/ncg-rbm/ncg/unit"
	"github.com/sbinet/npyio/npy"
	"github.com/sbinet/npyio/npz"
	"gonum.org/v1/gonum/mat"
)

// ExportNPZ writes the model as a NumPy .npz archive (atomically), in the
// paper's orientation so that Python code reads it directly. Its entries
// are named as numpy.savez names them, W.npy for the array W, and hold:
//
//	W, A, C (H×X), Aprime (H×X, NCG only): float64 holding the exact
//	float32 values; b (H), d (X): float32; shape: [X, D, H] int64;
//	and the visible unit type's own (visibleUnits.fileEntries): for
//	Gaussian units sigma (X): σ, and log_var (X): log σ², float32; for
//	categorical ones groups (G+1): int64, the offsets of the one-hot
//	groups of the X visible units, the label group last. A binary model
//	has none of these; a file says its type by the first of its type's
//	entries.
//
// Load with numpy.load(path); columns D..X−1 are label units. ReadNPZ
// reads it back, and reads a file re-saved by numpy.savez.
func (m *Model) ExportNPZ(path string) error {
	return WriteAtomic(path, func(w io.Writer) error {
		z := npz.NewWriter(w)
		hx := func(s []float32) *mat.Dense {
			d := mat.NewDense(m.H, m.X, nil)
			for j := 0; j < m.X; j++ {
				for i := 0; i < m.H; i++ {
					d.Set(i, j, float64(s[j*m.H+i]))
				}
			}
			return d
		}
		items := []npzItem{{"W", hx(m.W)}, {"A", hx(m.A)}, {"C", hx(m.c)}, {"b", m.HiddenBias}, {"d", m.VisibleBias}, {"shape", []int64{int64(m.X), int64(m.DataUnits), int64(m.H)}}}
		if m.AP != nil {
			items = append(items, npzItem{"Aprime", hx(m.AP)})
		}
		items = append(items, unitsOf(m.Visible).fileEntries(m)...)
		for _, it := range items {
			if err := z.Write(it.name+npyExt, it.v); err != nil {
				return err
			}
		}
		return z.Close()
	})
}

// npzItem is an array of a model file and its name.
type npzItem struct {
	name string
	v    any
}

// npyExt ends the name of each entry of a .npz archive that numpy.savez
// writes: the array W is the entry W.npy. ReadNPZ also reads entries
// named without it.
const npyExt = ".npy"

// npzFile is an open model file: its reader and the name of each array's
// entry (with or without npyExt).
type npzFile struct {
	r       *npz.Reader
	path    string
	entries map[string]string // array name → entry name
}

func openNPZ(path string) (*npzFile, error) {
	r, err := npz.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	f := &npzFile{r: r, path: path, entries: map[string]string{}}
	for _, k := range r.Keys() {
		name := strings.TrimSuffix(k, npyExt)
		if _, dup := f.entries[name]; dup {
			r.Close()
			return nil, fmt.Errorf("%s: two entries for the array %s (%s and %s)", path, name, name, name+npyExt)
		}
		f.entries[name] = k
	}
	return f, nil
}

func (f *npzFile) has(name string) bool { _, ok := f.entries[name]; return ok }

// read reads the array name into ptr after checking that its shape is
// want (its rank and every dimension; a negative dimension is any).
func (f *npzFile) read(name string, ptr any, want ...int) error {
	k, ok := f.entries[name]
	if !ok {
		return fmt.Errorf("%s: no array %s", f.path, name)
	}
	rc, err := f.r.Open(k)
	if err != nil {
		return fmt.Errorf("%s: %s: %w", f.path, name, err)
	}
	defer rc.Close()
	rd, err := npy.NewReader(rc)
	if err != nil {
		return fmt.Errorf("%s: %s: %w", f.path, name, err)
	}
	shape := rd.Header.Descr.Shape
	ok = len(shape) == len(want)
	for i := 0; ok && i < len(want); i++ {
		ok = want[i] < 0 || shape[i] == want[i]
	}
	if !ok {
		return fmt.Errorf("%s: %s has shape %v, want %s", f.path, name, shape, shapeString(want))
	}
	if err := rd.Read(ptr); err != nil {
		return fmt.Errorf("%s: %s: %w", f.path, name, err)
	}
	return nil
}

func shapeString(dims []int) string {
	parts := make([]string, len(dims))
	for i, d := range dims {
		parts[i] = "n"
		if d >= 0 {
			parts[i] = strconv.Itoa(d)
		}
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// NPZShape reads only the shape of a model file of ExportNPZ's layout:
// visible units X, data units D and hidden units H, so that a caller can
// check the memory ReadNPZ will need (NPZBytes) before it allocates.
func NPZShape(path string) (x, d, h int, err error) {
	f, err := openNPZ(path)
	if err != nil {
		return 0, 0, 0, err
	}
	defer f.r.Close()
	return f.shape()
}

// NPZBytes is at least the memory ReadNPZ takes for a model of X × H
// units: a float64 matrix read and the float32 matrices kept.
func NPZBytes(x, h int) float64 { return float64(x) * float64(h) * (8 + 4*4) }

func (f *npzFile) shape() (x, d, h int, err error) {
	var shape []int64
	if err := f.read("shape", &shape, 3); err != nil {
		return 0, 0, 0, err
	}
	if shape[0] < 1 || shape[1] < 1 || shape[1] > shape[0] || shape[2] < 1 || shape[0]*shape[2] > 1<<31 {
		return 0, 0, 0, fmt.Errorf("%s: shape %v is not [X, D, H] with 1 ≤ D ≤ X, H ≥ 1 and X·H ≤ 2³¹", f.path, shape)
	}
	return int(shape[0]), int(shape[1]), int(shape[2]), nil
}

// ReadNPZ reads a model in the layout ExportNPZ writes, back into the
// engine's visible-major layout; what ExportNPZ wrote comes back exactly.
// Entries may be named with or without ".npy" (numpy.savez's W.npy, or W).
// A file written elsewhere needs shape, b, d and either C or both W and A:
// without C, C is W⊙A; without W and A, the model is dense with W = C.
// A file whose arrays have other shapes or disagree (checkNPZModel) is
// refused. Errors name the file.
func ReadNPZ(path string) (*Model, error) {
	f, err := openNPZ(path)
	if err != nil {
		return nil, err
	}
	defer f.r.Close()
	x, d, h, err := f.shape()
	if err != nil {
		return nil, err
	}
	m := &Model{X: x, DataUnits: d, H: h}
	readHX := func(name string) ([]float32, error) {
		var a mat.Dense
		if err := f.read(name, &a, h, x); err != nil {
			return nil, err
		}
		out := make([]float32, x*h)
		for j := 0; j < x; j++ {
			for i := 0; i < h; i++ {
				out[j*h+i] = float32(a.At(i, j))
			}
		}
		return out, nil
	}
	switch {
	case f.has("W") && f.has("A"):
		if m.W, err = readHX("W"); err != nil {
			return nil, err
		}
		if m.A, err = readHX("A"); err != nil {
			return nil, err
		}
	case !f.has("C"):
		return nil, fmt.Errorf("%s: neither C nor both W and A", path)
	}
	var c []float32
	if f.has("C") {
		if c, err = readHX("C"); err != nil {
			return nil, err
		}
	} else {
		c = make([]float32, x*h)
		for k := range c {
			c[k] = m.W[k] * m.A[k]
		}
	}
	if m.W == nil { // C alone: a dense model
		m.W, m.A = append([]float32(nil), c...), make([]float32, x*h)
		fill(m.A, 1)
	}
	if f.has("Aprime") {
		if m.AP, err = readHX("Aprime"); err != nil {
			return nil, err
		}
	}
	if err := f.read("b", &m.HiddenBias, h); err != nil {
		return nil, err
	}
	if err := f.read("d", &m.VisibleBias, x); err != nil {
		return nil, err
	}
	if err := f.readUnits(m); err != nil {
		return nil, err
	}
	if err := checkNPZModel(m, c); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := m.SetC(c); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// checkNPZModel refuses a model read from a file whose arrays disagree,
// so that no command trains, samples or evaluates a damaged model: the
// unit type's own parameters as its checkModel checks them (σ, log σ²,
// groups), a value that is not finite, A not 0 or 1, C other than W⊙A,
// A′ outside [0, 1] (the trainer clips it there).
func checkNPZModel(m *Model, c []float32) error {
	if err := unitsOf(m.Visible).checkModel(m); err != nil {
		return err
	}
	for _, p := range []struct {
		name string
		v    []float32
	}{{"W", m.W}, {"A", m.A}, {"C", c}, {"Aprime", m.AP}, {"b", m.HiddenBias}, {"d", m.VisibleBias}} {
		for k, v := range p.v {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return fmt.Errorf("%s%s = %v is not a finite number", p.name, m.at(p.name, k), v)
			}
		}
	}
	for k, a := range m.A {
		if a != 0 && a != 1 {
			return fmt.Errorf("A%s = %v: a mask holds 0 and 1 only", m.at("A", k), a)
		}
		if c[k] != m.W[k]*a {
			return fmt.Errorf("C%s = %v but W⊙A = %v: the acting weights C are W⊙A", m.at("C", k), c[k], m.W[k]*a)
		}
		if m.AP != nil && !(m.AP[k] >= 0 && m.AP[k] <= 1) {
			return fmt.Errorf("Aprime%s = %v: connection strengths lie in [0, 1]", m.at("Aprime", k), m.AP[k])
		}
	}
	return nil
}

// readUnits reads the visible unit type's own entries into m: the type is
// the one whose first entry the file holds (binary for none), and an
// entry of another type is an error.
func (f *npzFile) readUnits(m *Model) error {
	var found []unit.Type
	for _, u := range unit.Types() {
		if names := unitsOf(u).fileNames(); len(names) > 0 && f.has(names[0]) {
			found = append(found, u)
		}
	}
	if len(found) > 1 {
		return fmt.Errorf("%s: entries of both %s and %s units", f.path, found[0].Name(), found[1].Name())
	}
	if len(found) == 1 {
		m.Visible = found[0]
	}
	for _, u := range unit.Types() {
		if u == m.Visible {
			continue
		}
		for _, name := range unitsOf(u).fileNames() {
			if f.has(name) {
				return fmt.Errorf("%s: %s is an entry of %s units, but the file holds %s units", f.path, name, u.Name(), m.Visible.Name())
			}
		}
	}
	return unitsOf(m.Visible).readFile(f, m)
}

// at names element k of an X×H matrix of the model (visible-major) by its
// place in the file's H×X array, "[i, j]", or of a vector, "[k]".
func (m *Model) at(name string, k int) string {
	switch name {
	case "W", "A", "C", "Aprime":
		return fmt.Sprintf("[%d, %d]", k%m.H, k/m.H)
	}
	return fmt.Sprintf("[%d]", k)
}
