package experiment

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"time"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/engine"
)

// NumericalError is a run stopped by NaN or Inf: the engine's report of
// what became NaN and when, with what sets the size of its steps, the
// likeliest cause first (Causes: the data's magnitude, -init-scale, -l2,
// -l1, -momentum, -lr).
type NumericalError struct {
	*engine.NumericalError
	Causes []string
}

func (e *NumericalError) Error() string {
	return fmt.Sprintf("epoch %d, minibatch %d: %s became NaN or Inf; what sets its size, the likeliest first: %s",
		e.Epoch, e.Batch, e.Param, strings.Join(e.Causes, "; "))
}

func (e *NumericalError) Unwrap() error { return e.NumericalError }

// numericalCauses lists what sets the size of a run's steps, the likeliest
// cause of a NaN first: data far from the unit scale that Gaussian units of
// σ = 1 model, a learning rate above 1, large initial weights (for Gaussian
// units, any above 0.1), weight decay; then the rest, the learning rate
// last, as it scales every step.
func (s Spec) numericalCauses(train *data.Set) []string {
	e := s.Engine
	var first, rest []string
	add := func(likely bool, line string) {
		if likely {
			first = append(first, line)
		} else {
			rest = append(rest, line)
		}
	}
	if train.IsReal() {
		m := maxAbs(train.Real)
		how := "as read"
		if s.Real != data.RealNone {
			how = "after -real " + string(s.Real)
		}
		line := fmt.Sprintf("the data reach |x| = %.3g %s", m, how)
		if m > 10 {
			line += ", where Gaussian units of σ = 1 model data of unit scale: give -real standardise"
		}
		add(m > 10, line)
	}
	lr := fmt.Sprintf("-lr %v (every step is lr times the gradient)", e.LR)
	if e.LR > 1 {
		add(true, lr)
	}
	if e.Init != engine.Zero {
		line := fmt.Sprintf("-init-scale %v (initial weights of that size)", e.InitScale)
		if train.IsReal() && e.InitScale > 0.1 {
			line += "; Gaussian units want small ones, such as -init normal -init-scale 0.01"
		}
		add(e.InitScale > 1 || (train.IsReal() && e.InitScale > 0.1), line)
	}
	if e.L2 > 0 {
		add(true, fmt.Sprintf("-l2 %v (lr·l2 = %.3g; weight decay alone diverges at 2(1 + momentum))", e.L2, e.LR*e.L2))
	}
	if e.L1 > 0 {
		add(true, fmt.Sprintf("-l1 %v (a step of lr·l1 = %.3g toward 0)", e.L1, e.LR*e.L1))
	}
	if mu := max(e.Momentum, e.MomentumStart); mu > 0 {
		add(false, fmt.Sprintf("-momentum %v (steps add up over about %.3g minibatches)", mu, 1/(1-mu)))
	}
	if e.LR <= 1 {
		add(false, lr)
	}
	return append(first, rest...)
}

// maxAbs is the largest |v|.
func maxAbs(vs []float32) float64 {
	var m float64
	for _, v := range vs {
		m = max(m, math.Abs(float64(v)))
	}
	return m
}

// Failure is failed.json: why a run stopped before its end, other than
// being interrupted (a NaN). Running the run again retries it from its
// last checkpoint.
type Failure struct {
	Epoch     int       `json:"epoch"`     // the epoch at fault, 1-based
	Minibatch int       `json:"minibatch"` // and its minibatch
	Error     string    `json:"error"`
	Time      time.Time `json:"time"`
}

// FailurePath is the path of failed.json.
func (d RunDir) FailurePath() string { return d.path(failureFile) }

// Failure reads failed.json (an error wrapping fs.ErrNotExist for a run
// that has not failed).
func (d RunDir) Failure() (*Failure, error) {
	var f Failure
	if err := readJSON(d.FailurePath(), &f); err != nil {
		return nil, err
	}
	return &f, nil
}

// writeFailure records a run stopped by a numerical error.
func (d RunDir) writeFailure(e *NumericalError) error {
	return writeJSON(d.FailurePath(), Failure{Epoch: e.Epoch, Minibatch: e.Batch, Error: e.Error(), Time: time.Now().UTC()})
}

// clearFailure removes failed.json: the run got past it.
func (d RunDir) clearFailure() error {
	if err := os.Remove(d.FailurePath()); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}
