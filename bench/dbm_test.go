package bench

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ncg-rbm/ncg/engine"
)

// TestDBMConfig: the DBM cases train what bench/peers/numpy_dbm.py
// trains, as its docstring states it: 784-500-1000, no pre-training,
// W ~ N(0, 0.01²), 100 rows and 100 chains per update, 10 mean-field
// iterations, 1 Gibbs sweep, α = 0.001, one epoch; NCG with p, α_A and γ
// 0.5.
func TestDBMConfig(t *testing.T) {
	for _, m := range []engine.Method{engine.Dense, engine.NCG} {
		c := dbmConfig(m)
		if err := c.Validate(784); err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		j := c.Joint
		if c.Kind != engine.DBM || len(c.Layers) != 2 || j.Epochs != 1 || j.Batch != 100 || j.Chains != 100 || j.MeanField != 10 || j.Gibbs != 1 || j.LR != 0.001 ||
			j.Momentum != 0 || j.L2 != 0 || j.Centre {
			t.Fatalf("%s: %+v", m, c)
		}
		for l, h := range []int{500, 1000} {
			lc := c.Layers[l]
			if lc.Method != m || lc.Hidden != h || lc.Epochs != 0 || lc.Init != engine.Normal || lc.InitScale != 0.01 ||
				lc.P != 0.5 || lc.LRConn != 0.5 || lc.Gamma != 0.5 {
				t.Errorf("%s layer %d: %+v", m, l+1, lc)
			}
		}
	}
}

// TestDBMEpochCase runs the DBM epoch case on a small made-up data set (a
// 784-20-30 NCG DBM, one epoch of 4 updates, no pre-training): its time is
// the joint epoch's record (a case without one is an error) and the init
// part the rest of the run, so that the two add up to no more than the
// time of the whole call.
func TestDBMEpochCase(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	d := &engine.Data{N: 200, D: 784, X: make([]uint8, 200*784)}
	for i := range d.X {
		d.X[i] = uint8(r.IntN(2))
	}
	cfg := dbmConfig(engine.NCG)
	cfg.Layers[0].Hidden, cfg.Layers[1].Hidden = 20, 30
	cfg.Joint.Batch, cfg.Joint.Chains = 50, 10
	c := dbmEpoch("epoch/test", cfg, func() (*engine.Data, error) { return d, nil })
	start := time.Now()
	v, err := c.Run()
	took := time.Since(start).Seconds()
	if err != nil {
		t.Fatal(err)
	}
	parts := c.Parts()
	if len(parts) != 1 || parts[0].Name != "init" || parts[0].Unit != "s" {
		t.Fatalf("parts %+v, want init alone", parts)
	}
	if !(v > 0) || !(parts[0].Value > 0) || v+parts[0].Value > took {
		t.Errorf("epoch %v s, init %v s, in a call of %v s", v, parts[0].Value, took)
	}
	cfg.Joint.Epochs = 0
	if _, err := dbmEpoch("epoch/test", cfg, func() (*engine.Data, error) { return d, nil }).Run(); err == nil {
		t.Errorf("a case without a joint-training epoch gave no error")
	}
}
