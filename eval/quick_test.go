package eval

import (
	"testing"
	"time"
)

func TestQuickCD25(t *testing.T) {
	m := loadCD25(t)
	train, test := loadMNIST(t)
	dA, err := BaseRate(train.x, train.n, train.X, 0.025*float64(train.n))
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	res, err := AIS(m, AISConfig{Runs: 20, BaseBias: dA, Betas: UniformSchedule(1000)})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("AIS %v: logZ %.3f [%.3f, %.3f]", time.Since(t0), res.LogZ, res.LogZLo, res.LogZHi)
	nll, err := AverageNLL(m, res.LogZ, test.x, test.n, 0)
	t.Logf("nll %.3f %v", nll, err)
}
