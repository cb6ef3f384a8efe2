package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/ncg-rbm/ncg/engine"
)

// dbmConfig is the 784-500-1000 MNIST DBM of Salakhutdinov & Hinton
// (AISTATS 2009) without pre-training, both matrices trained by method:
// W ~ N(0, 0.01²), then one epoch of joint training with 100 rows and 100
// chains per update, 10 mean-field iterations, 1 Gibbs sweep and α =
// 0.001, the work of bench/peers/numpy_dbm.py (NCG: p 0.5, α_A 0.5, γ 0.5).
func dbmConfig(method engine.Method) engine.StackConfig {
	layers := make([]engine.Config, 2)
	for l, h := range []int{500, 1000} {
		c := engine.DefaultConfig()
		c.Method, c.Hidden, c.Epochs = method, h, 0
		c.Init, c.InitScale = engine.Normal, 0.01
		layers[l] = c
	}
	j := engine.DefaultJoint()
	j.Epochs, j.Batch, j.Chains, j.MeanField, j.Gibbs, j.LR = 1, 100, 100, 10, 1, 0.001
	return engine.StackConfig{Kind: engine.DBM, Layers: layers, Seed: 1, Joint: j}
}

// dbmCases are the DBM's joint-training epoch, dense and NCG, each beside
// its NumPy peer. An epoch's time is the one its record reports (the
// minibatches and the epoch's shuffle); the part <epoch>/init is the rest
// of NewStack and Train: the RBMs' initialisation, the sampled data of the
// upper RBM (which a run without pre-training still draws) and the
// chains' start, which the peer leaves out of its time too.
func dbmCases(mn *mnist, dataDir string) []Case {
	return []Case{
		dbmEpoch("epoch/mnist-dbm", dbmConfig(engine.Dense), mn.engineData),
		peerCase("peer/numpy/mnist-dbm", "numpy_dbm.py", dataDir),
		dbmEpoch("epoch/mnist-dbm-ncg", dbmConfig(engine.NCG), mn.engineData),
		peerCase("peer/numpy/mnist-dbm-ncg", "numpy_dbm.py", dataDir, "--ncg"),
	}
}

// dbmEpoch is the case of cfg's joint-training epoch on the data of load.
func dbmEpoch(name string, cfg engine.StackConfig, load func() (*engine.Data, error)) Case {
	var initTook time.Duration
	c := Case{Name: name, Unit: "s", Count: 3, Group: "epoch"}
	c.Parts = func() []Part { return []Part{{"init", "s", initTook.Seconds()}} }
	c.Run = func() (float64, error) {
		d, err := load()
		if err != nil {
			return 0, err
		}
		start := time.Now()
		t, err := engine.NewStack(cfg, d)
		if err != nil {
			return 0, err
		}
		var joint float64
		onEpoch := func(r engine.StackRecord) error {
			if r.Layer == 0 {
				joint = r.Seconds
			}
			return nil
		}
		if err := t.Train(context.Background(), engine.StackOptions{OnEpoch: onEpoch}); err != nil {
			return 0, err
		}
		if !(joint > 0) {
			return 0, fmt.Errorf("%s: no joint-training epoch recorded", name)
		}
		initTook = time.Since(start) - time.Duration(joint*float64(time.Second))
		return joint, nil
	}
	return c
}
