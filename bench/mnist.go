package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/engine"
	"github.com/ncg-rbm/ncg/unit"
)

// mnist loads the MNIST training set once in each form: binarised, and
// real-valued for Gaussian units (grey levels in [0, 1], data.RealUnit,
// or standardised per pixel, data.RealStandardise).
type mnist struct {
	dir  string
	once [3]sync.Once
	sets [3]*data.Set
	err  [3]error
}

// mnistForms are the forms of mnist, by index.
var mnistForms = [3]data.RealMode{data.RealNone, data.RealUnit, data.RealStandardise}

func (m *mnist) load() (*data.Set, error) { return m.loadAs(data.RealNone) }

func (m *mnist) loadAs(mode data.RealMode) (*data.Set, error) {
	k := slices.Index(mnistForms[:], mode)
	m.once[k].Do(func() {
		d := data.Dir(m.dir)
		if _, err := os.Stat(filepath.Join(d, "mnist")); err != nil {
			m.err[k] = &SkipError{fmt.Sprintf("no MNIST in %s (ncgbench data fetch mnist, or -data-dir)", d)}
			return
		}
		m.sets[k], _, m.err[k] = data.Load("mnist", data.Options{Dir: d, Real: mode})
	})
	return m.sets[k], m.err[k]
}

// engineData is the binarised training set as the engine trains on it.
func (m *mnist) engineData() (*engine.Data, error) { return m.dataAs(data.RealNone) }

// dataAs is the training set in the given form as the engine trains on it.
func (m *mnist) dataAs(mode data.RealMode) (*engine.Data, error) {
	return m.view(func() (*data.Set, error) { return m.loadAs(mode) })
}

func (m *mnist) view(load func() (*data.Set, error)) (*engine.Data, error) {
	train, err := load()
	if err != nil {
		return nil, err
	}
	return engine.FromSet(train, false)
}

// connect4 loads the paper's Connect-4 training split once, with its
// label units (the paper's classification setting).
type connect4 struct {
	dir  string
	once sync.Once
	d    *engine.Data
	err  error
}

func (c *connect4) engineData() (*engine.Data, error) {
	c.once.Do(func() {
		d := data.Dir(c.dir)
		if _, err := os.Stat(filepath.Join(d, "connect-4")); err != nil {
			c.err = &SkipError{fmt.Sprintf("no connect-4 in %s (ncgbench data fetch connect-4, or -data-dir)", d)}
			return
		}
		train, _, err := data.Load("connect-4", data.Options{Dir: d})
		if err != nil {
			c.err = err
			return
		}
		c.d, c.err = engine.FromSet(train, true)
	})
	return c.d, c.err
}

// connect4Config is the paper's Connect-4 NCG configuration (H 100, CD-10,
// batch 10, α 0.01, α_A 0.05, p 0.5) with visible units of type u.
func connect4Config(u unit.Type) engine.Config {
	cfg := engine.DefaultConfig()
	cfg.Hidden, cfg.Batch, cfg.LR, cfg.LRConn, cfg.Visible = 100, 10, 0.01, 0.05, u
	return cfg
}
