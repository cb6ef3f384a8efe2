package engine

import (
	"context"
	"fmt"
	"testing"
)

// mnistDBM is the 784-500-1000 DBM of Salakhutdinov & Hinton on MNIST,
// without pre-training (the joint step's cost does not depend on it):
// 100 rows and 100 chains per update, 10 mean-field iterations, 1 Gibbs
// sweep.
func mnistDBM(method Method) StackConfig {
	a, b := paperNCG(), paperNCG()
	a.Method, b.Method = method, method
	a.Hidden, b.Hidden = 500, 1000
	a.Epochs, b.Epochs = 0, 0
	a.Init, b.Init, a.InitScale, b.InitScale = Normal, Normal, 0.01, 0.01
	j := DefaultJoint()
	j.Epochs = 1
	return StackConfig{Kind: DBM, Layers: []Config{a, b}, Seed: 1, Joint: j}
}

// jointMNIST returns the MNIST DBM of method on d with workers, set up
// for joint training (Train with no joint epochs sets up its state).
func jointMNIST(b *testing.B, d *Data, m Method, workers int) *StackTrainer {
	b.Helper()
	cfg := mnistDBM(m)
	cfg.Workers = workers
	cfg.Joint.Epochs = 0
	t, err := NewStack(cfg, d)
	if err != nil {
		b.Fatal(err)
	}
	if err := t.Train(context.Background(), StackOptions{}); err != nil {
		b.Fatal(err)
	}
	return t
}

// BenchmarkDBMStep is one joint-training minibatch of the MNIST DBM,
// dense and NCG, in steady state.
func BenchmarkDBMStep(b *testing.B) {
	d := loadMNIST(b)
	for _, m := range []Method{Dense, NCG} {
		for _, w := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/workers%d", m, w), func(b *testing.B) {
				t := jointMNIST(b, d, m, w)
				defer t.Close()
				rows := make([]int32, t.cfg.Joint.Batch)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					for k := range rows {
						rows[k] = int32((i*len(rows) + k) % d.N)
					}
					if err := t.Step(rows); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkDBMMeanField is the positive phase of one joint minibatch of
// the MNIST DBM (bottom-up pass, 10 sweeps, the reconstruction) on its
// own, with the speed of its dense products: beside BenchmarkKernel's
// dense/<tier>/tile-x1000-h64-c100 (one tile alone) it shows what the
// products lose inside the phase.
func BenchmarkDBMMeanField(b *testing.B) {
	d := loadMNIST(b)
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers%d", w), func(b *testing.B) {
			t := jointMNIST(b, d, Dense, w)
			defer t.Close()
			cfg := t.cfg
			rows := make([]int32, cfg.Joint.Batch)
			for k := range rows {
				rows[k] = int32(k)
			}
			if err := t.Step(rows); err != nil { // loads the rows, packs C
				b.Fatal(err)
			}
			j := t.joint
			// Multiply-adds: the bottom-up pass above the bottom layer, each
			// sweep's inputs from below and above, the reconstruction.
			n, macs := j.n, 0
			for l := 2; l < len(n); l++ {
				macs += n[l-1] * n[l] * (1 + cfg.Joint.MeanField)
			}
			for l := 1; l+1 < len(n); l++ {
				macs += n[l] * n[l+1] * cfg.Joint.MeanField
			}
			macs = (macs + n[0]*n[1]) * j.nb
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				j.meanField()
			}
			b.ReportMetric(2*float64(macs)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// BenchmarkDBMEpoch is one joint-training epoch of the MNIST DBM (600
// minibatches), the figure bench's epoch/mnist-dbm and its NumPy peer
// compare.
func BenchmarkDBMEpoch(b *testing.B) {
	d := loadMNIST(b)
	for _, m := range []Method{Dense, NCG} {
		for _, w := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/workers%d", m, w), func(b *testing.B) {
				cfg := mnistDBM(m)
				cfg.Workers = w
				var seconds float64
				for i := 0; i < b.N; i++ {
					t, err := NewStack(cfg, d)
					if err != nil {
						b.Fatal(err)
					}
					err = t.Train(context.Background(), StackOptions{OnEpoch: func(r StackRecord) error {
						if r.Layer == 0 {
							seconds += r.Seconds
						}
						return nil
					}})
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(seconds/float64(b.N), "s/epoch")
			})
		}
	}
}
