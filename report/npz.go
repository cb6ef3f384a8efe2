package report

import (
	"fmt"

	"github.com/sbinet/npyio/npz"
	"gonum.org/v1/gonum/mat"

	"github.com/ncg-rbm/ncg/engine"
)

// LoadNPZ reads a model written by engine.Model.ExportNPZ (W, A, C and,
// for NCG, Aprime as H×X float64; b, d float32; shape [X, D, H]) back into
// the engine's visible-major layout.
func LoadNPZ(path string) (*engine.Model, error) {
	r, err := npz.Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var shape []int64
	if err := r.Read("shape", &shape); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(shape) != 3 || shape[0] < 1 || shape[1] < 1 || shape[1] > shape[0] || shape[2] < 1 {
		return nil, fmt.Errorf("%s: shape %v is not [X, D, H] with 1 ≤ D ≤ X, H ≥ 1", path, shape)
	}
	x, d, h := int(shape[0]), int(shape[1]), int(shape[2])
	m := &engine.Model{X: x, DataUnits: d, H: h}
	readHX := func(name string) ([]float32, error) {
		var a mat.Dense
		if err := r.Read(name, &a); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
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
	if m.W, err = readHX("W"); err != nil {
		return nil, err
	}
	if m.A, err = readHX("A"); err != nil {
		return nil, err
	}
	c, err := readHX("C")
	if err != nil {
		return nil, err
	}
	if r.Header("Aprime") != nil {
		if m.AP, err = readHX("Aprime"); err != nil {
			return nil, err
		}
	}
	if err := r.Read("b", &m.HiddenBias); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := r.Read("d", &m.VisibleBias); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(m.HiddenBias) != h || len(m.VisibleBias) != x {
		return nil, fmt.Errorf("%s: b has %d values, d %d; want %d and %d", path, len(m.HiddenBias), len(m.VisibleBias), h, x)
	}
	if err := m.SetC(c); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}
