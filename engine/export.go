package engine

import (
	"io"

	"github.com/sbinet/npyio/npz"
	"gonum.org/v1/gonum/mat"
)

// ExportNPZ writes the model as a NumPy .npz archive (atomically), in the
// paper's orientation so that Python code reads it directly:
//
//	W (H×X), A (H×X), C (H×X), Aprime (H×X, NCG only): float64 holding the
//	exact float32 values; b (H), d (X): float32; shape: [X, D, H] int64.
//
// Load with numpy.load(path); columns D..X−1 are label units.
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
		for _, it := range items {
			if err := z.Write(it.name, it.v); err != nil {
				return err
			}
		}
		return z.Close()
	})
}
