package experiment

import (
	"strings"
	"testing"

	"github.com/ncg-rbm/ncg/engine"
	"github.com/ncg-rbm/ncg/unit"
)

// TestCheckModel: a model is its run's only with the run's hidden units,
// label units, visible unit type and (for NCG) connection strengths; each
// difference is named.
func TestCheckModel(t *testing.T) {
	spec, err := NewSpec(Settings{"data": "bas", "method": "dense", "hidden": 3})
	if err != nil {
		t.Fatal(err)
	}
	d := RunDir(t.TempDir())
	if err := d.writeConfig(spec, Meta{}, nil); err != nil {
		t.Fatal(err)
	}
	model := func(change func(*engine.Config), data *engine.Data) *engine.Model {
		cfg := spec.Engine
		change(&cfg)
		tr, err := engine.New(cfg, data)
		if err != nil {
			t.Fatal(err)
		}
		defer tr.Close()
		return tr.Model()
	}
	binary := &engine.Data{N: 2, D: 4, X: []uint8{1, 0, 1, 0, 0, 1, 1, 0}}
	real := &engine.Data{N: 2, D: 4, Real: []float32{1, 0, 1, 0, 0, 1, 1, 0}}
	labelled := &engine.Data{N: 2, D: 4, X: []uint8{1, 0, 1, 0, 0, 1, 1, 0}, Labels: []int32{0, 1}, Classes: 2}
	for _, c := range []struct {
		name string
		m    *engine.Model
		want string
	}{
		{"its own", model(func(*engine.Config) {}, binary), ""},
		{"hidden", model(func(c *engine.Config) { c.Hidden = 4 }, binary), "4 hidden units, the run 3"},
		{"labels", model(func(*engine.Config) {}, labelled), "2 label units, the run classify = false"},
		{"gaussian", model(func(c *engine.Config) { c.Visible = unit.Gaussian }, real), "gaussian visible units, the run's binary"},
		{"ncg", model(func(c *engine.Config) { c.Method, c.P, c.Gamma, c.LRConn = engine.NCG, 0.5, 0.5, 0.1 }, binary), "connection strengths A′: true, the run's method dense"},
	} {
		err := d.CheckModel(c.m, "m.npz")
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), "m.npz is not the model of the run in "+string(d)+" (the model has "+c.want)):
			t.Errorf("%s: %v, want it refused saying %q", c.name, err, c.want)
		}
	}
}
