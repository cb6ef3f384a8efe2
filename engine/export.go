package engine

import (
	"fmt"
	"io"
	"math"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/unit"
	"github.com/sbinet/npyio/npz"
	"gonum.org/v1/gonum/mat"
)

// ExportNPZ writes the model as a NumPy .npz archive (atomically), in the
// paper's orientation so that Python code reads it directly:
//
//	W (H×X), A (H×X), C (H×X), Aprime (H×X, NCG only): float64 holding the
//	exact float32 values; b (H), d (X): float32; shape: [X, D, H] int64;
//	for Gaussian visible units, sigma (X): σ, and log_var (X): log σ²,
//	float32 (a model with sigma is Gaussian); for categorical ones,
//	groups (G+1): int64, the offsets of the one-hot groups of the X
//	visible units (data.Groups; a model with groups is categorical). A
//	binary model has none of these.
//
// Load with numpy.load(path); columns D..X−1 are label units. ReadNPZ
// reads it back.
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
		items := []struct {
			name string
			v    any
		}{{"W", hx(m.W)}, {"A", hx(m.A)}, {"C", hx(m.c)}, {"b", m.HiddenBias}, {"d", m.VisibleBias}, {"shape", []int64{int64(m.X), int64(m.DataUnits), int64(m.H)}}}
		if m.AP != nil {
			items = append(items, struct {
				name string
				v    any
			}{"Aprime", hx(m.AP)})
		}
		if m.Visible == unit.Gaussian {
			items = append(items, struct {
				name string
				v    any
			}{"sigma", m.Sigma}, struct {
				name string
				v    any
			}{"log_var", m.LogVar})
		}
		if m.Visible == unit.Categorical {
			g := make([]int64, len(m.Groups))
			for k, v := range m.Groups {
				g[k] = int64(v)
			}
			items = append(items, struct {
				name string
				v    any
			}{"groups", g})
		}
		for _, it := range items {
			if err := z.Write(it.name, it.v); err != nil {
				return err
			}
		}
		return z.Close()
	})
}

// NPZShape reads only the shape of a model file of ExportNPZ's layout:
// visible units X, data units D and hidden units H, so that a caller can
// check the memory ReadNPZ will need (NPZBytes) before it allocates.
func NPZShape(path string) (x, d, h int, err error) {
	r, err := npz.Open(path)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("%s: %w", path, err)
	}
	defer r.Close()
	return npzShape(r, path)
}

// NPZBytes is at least the memory ReadNPZ takes for a model of X × H
// units: a float64 matrix read and the float32 matrices kept.
func NPZBytes(x, h int) float64 { return float64(x) * float64(h) * (8 + 4*4) }

func npzShape(r *npz.Reader, path string) (x, d, h int, err error) {
	var shape []int64
	if err := r.Read("shape", &shape); err != nil {
		return 0, 0, 0, fmt.Errorf("%s: %w", path, err)
	}
	if len(shape) != 3 || shape[0] < 1 || shape[1] < 1 || shape[1] > shape[0] || shape[2] < 1 || shape[0]*shape[2] > 1<<31 {
		return 0, 0, 0, fmt.Errorf("%s: shape %v is not [X, D, H] with 1 ≤ D ≤ X, H ≥ 1 and X·H ≤ 2³¹", path, shape)
	}
	return int(shape[0]), int(shape[1]), int(shape[2]), nil
}

// ReadNPZ reads a model in the layout ExportNPZ writes, back into the
// engine's visible-major layout; what ExportNPZ wrote comes back exactly.
// A file written elsewhere needs shape, b, d and either C or both W and A:
// without C, C is W⊙A; without W and A, the model is dense with W = C.
// Errors name the file.
func ReadNPZ(path string) (*Model, error) {
	r, err := npz.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer r.Close()
	x, d, h, err := npzShape(r, path)
	if err != nil {
		return nil, err
	}
	m := &Model{X: x, DataUnits: d, H: h}
	has := func(name string) bool { return r.Header(name) != nil }
	readHX := func(name string) ([]float32, error) {
		var a mat.Dense
		if err := r.Read(name, &a); err != nil {
			return nil, fmt.Errorf("%s: %s: %w", path, name, err)
		}
		if rows, cols := a.Dims(); rows != h || cols != x {
			return nil, fmt.Errorf("%s: %s is %d×%d, want %d×%d (H×X)", path, name, rows, cols, h, x)
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
	case has("W") && has("A"):
		if m.W, err = readHX("W"); err != nil {
			return nil, err
		}
		if m.A, err = readHX("A"); err != nil {
			return nil, err
		}
	case !has("C"):
		return nil, fmt.Errorf("%s: neither C nor both W and A", path)
	}
	var c []float32
	if has("C") {
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
	if has("Aprime") {
		if m.AP, err = readHX("Aprime"); err != nil {
			return nil, err
		}
	}
	if err := r.Read("b", &m.HiddenBias); err != nil {
		return nil, fmt.Errorf("%s: b: %w", path, err)
	}
	if err := r.Read("d", &m.VisibleBias); err != nil {
		return nil, fmt.Errorf("%s: d: %w", path, err)
	}
	if len(m.HiddenBias) != h || len(m.VisibleBias) != x {
		return nil, fmt.Errorf("%s: b has %d values, d %d; want H = %d and X = %d", path, len(m.HiddenBias), len(m.VisibleBias), h, x)
	}
	if has("sigma") && has("groups") {
		return nil, fmt.Errorf("%s: both sigma (Gaussian units) and groups (categorical units)", path)
	}
	if has("sigma") {
		if err := readSigma(r, m, has("log_var")); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	if has("groups") {
		if err := readGroups(r, m); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	if err := m.SetC(c); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// readSigma reads a Gaussian model's σ (and log σ², computed from σ when
// the file lacks it).
func readSigma(r *npz.Reader, m *Model, logVar bool) error {
	m.Visible = unit.Gaussian
	if err := r.Read("sigma", &m.Sigma); err != nil {
		return fmt.Errorf("sigma: %w", err)
	}
	if len(m.Sigma) != m.X {
		return fmt.Errorf("sigma has %d values, want X = %d", len(m.Sigma), m.X)
	}
	for j, s := range m.Sigma {
		if !(s > 0) || math.IsInf(float64(s), 0) {
			return fmt.Errorf("sigma[%d] = %v, want a positive finite number", j, s)
		}
	}
	if logVar {
		if err := r.Read("log_var", &m.LogVar); err != nil {
			return fmt.Errorf("log_var: %w", err)
		}
		if len(m.LogVar) != m.X {
			return fmt.Errorf("log_var has %d values, want X = %d", len(m.LogVar), m.X)
		}
		return nil
	}
	m.LogVar = make([]float32, m.X)
	for j, s := range m.Sigma {
		m.LogVar[j] = float32(2 * math.Log(float64(s)))
	}
	return nil
}

// readGroups reads a categorical model's groups.
func readGroups(r *npz.Reader, m *Model) error {
	var g []int64
	if err := r.Read("groups", &g); err != nil {
		return fmt.Errorf("groups: %w", err)
	}
	m.Visible = unit.Categorical
	m.Groups = make(data.Groups, len(g))
	for k, v := range g {
		if v < 0 || v > int64(m.X) {
			return fmt.Errorf("groups[%d] = %d is outside 0…%d", k, v, m.X)
		}
		m.Groups[k] = int(v)
	}
	if err := m.Groups.Check(m.X); err != nil {
		return fmt.Errorf("groups: %w", err)
	}
	return nil
}
