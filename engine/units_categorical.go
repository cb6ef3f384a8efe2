package engine

import (
	"fmt"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/kernel"
)

// categoricalUnits are categorical attributes in one-hot form (unit.
// Categorical): the visible units form groups (Model.Groups), and a
// group's units are drawn together from the softmax of their inputs,
// exactly one of them on (kernel.SoftmaxSample):
//
//	P(x_g = k | h) = exp(d_gk + (C h)_gk) / Σ_k′ exp(d_gk′ + (C h)_gk′)
//
// A classification model's label units are one more group. The states
// are 0 and 1, so they enter the up pass and the gradient as binary
// units' do (binaryInput), and the energy −b·h − x·(d + C h) is the
// binary units' too: only the draw and the means differ.
type categoricalUnits struct {
	binaryInput
	groups []int32 // Model.Groups, for the kernels
}

// initModel gives the model the data's groups, and the label units, if
// any, as a last group.
func (u *categoricalUnits) initModel(m *Model, d *Data) {
	g := append(data.Groups(nil), d.Groups...)
	if d.Classes > 0 {
		g = append(g, d.D+d.Classes)
	}
	m.Groups = g
	u.bind(m)
}

func (u *categoricalUnits) bind(m *Model) {
	u.groups = make([]int32, len(m.Groups))
	for k, v := range m.Groups {
		u.groups[k] = int32(v)
	}
}

func (u *categoricalUnits) checkModel(m *Model) error {
	if err := m.Groups.Check(m.X); err != nil {
		return fmt.Errorf("categorical units: %w", err)
	}
	return nil
}

func (u *categoricalUnits) fileNames() []string { return []string{"groups"} }

func (u *categoricalUnits) fileEntries(m *Model) []npzItem {
	g := make([]int64, len(m.Groups))
	for k, v := range m.Groups {
		g[k] = int64(v)
	}
	return []npzItem{{"groups", g}}
}

// readFile reads the groups, which checkModel then checks.
func (u *categoricalUnits) readFile(f *npzFile, m *Model) error {
	var g []int64
	if err := f.read("groups", &g, -1); err != nil {
		return err
	}
	m.Groups = make(data.Groups, len(g))
	for k, v := range g {
		if v < 0 || v > int64(m.X) {
			return fmt.Errorf("%s: groups[%d] = %d is outside 0…%d", f.path, k, v, m.X)
		}
		m.Groups[k] = int(v)
	}
	return nil
}

func (u *categoricalUnits) checkConfig(c Config, bad func(string, ...any)) {
	u.binaryInput.checkConfig(c, bad)
	if c.SETProcedure == Mocanu {
		bad("set-procedure %s trains binary visible units only", Mocanu)
	}
}

// mean sets each group's softmax probabilities.
func (u *categoricalUnits) mean(dst, pre []float32, nc int) []float32 {
	x := len(pre) / nc
	for c := 0; c < nc; c++ {
		kernel.Softmax(dst[c*x:(c+1)*x], pre[c*x:(c+1)*x], u.groups)
	}
	return dst
}

// sample draws each group's unit from the softmax of β(d + C h).
func (u *categoricalUnits) sample(t *Trainer, blk int, states, dst, pre []float32, nc int, beta float64, streams []kernel.Stream) []float32 {
	x := t.m.X
	if beta != 1 {
		scale(dst[:nc*x], pre[:nc*x], beta)
		pre = dst
	}
	for c := 0; c < nc; c++ {
		kernel.SoftmaxSample(dst[c*x:(c+1)*x], states[c*x:(c+1)*x], pre[c*x:(c+1)*x], u.groups, &streams[c])
	}
	return dst
}
