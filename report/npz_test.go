package report

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/ncg-rbm/ncg/engine"
)

func TestLoadNPZ(t *testing.T) {
	for _, method := range []engine.Method{engine.NCG, engine.Dense} {
		cfg := engine.DefaultConfig()
		cfg.Method, cfg.Hidden, cfg.Batch = method, 5, 2
		d := &engine.Data{N: 4, D: 6, X: []uint8{1, 0, 1, 0, 1, 0, 0, 1, 0, 1, 0, 1, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0}, Labels: []int32{0, 1, 2, 1}, Classes: 3}
		tr, err := engine.New(cfg, d)
		if err != nil {
			t.Fatal(err)
		}
		m := tr.Model()
		path := filepath.Join(t.TempDir(), "model.npz")
		if err := m.ExportNPZ(path); err != nil {
			t.Fatal(err)
		}
		got, err := LoadNPZ(path)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, m) {
			t.Errorf("%s: LoadNPZ(ExportNPZ(m)) differs from m:\n%+v\n%+v", method, got, m)
		}
	}
	if _, err := LoadNPZ(filepath.Join(t.TempDir(), "none.npz")); err == nil {
		t.Error("no error for a missing file")
	}
}
