package eval_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/eval"
	"github.com/ncg-rbm/ncg/unit"
)

// A model of two visible units and one hidden unit, both weights 1, biases
// 0: Z = Σ_x (1 + e^(x₁+x₂)) = 5 + 2e + e², and p(1,1) = (1 + e²)/Z.
func ExampleExactLogZ() {
	m := &eval.Model{H: 1, X: 2, C: []float32{1, 1}, HiddenBias: []float32{0}, VisibleBias: []float32{0, 0}}
	logZ, err := eval.ExactLogZ(context.Background(), m, 1)
	if err != nil {
		panic(err)
	}
	x := &data.Set{Name: "x", N: 1, D: 2, X: []uint8{1, 1}} // one row of two units
	nll, err := eval.ExactNLL(context.Background(), m, x, 1)
	if err != nil {
		panic(err)
	}
	e := math.E
	fmt.Printf("log Z %.4f (closed form %.4f)\n", logZ, math.Log(5+2*e+e*e))
	fmt.Printf("NLL of (1,1) %.4f (closed form %.4f)\n", nll, -math.Log((1+e*e)/(5+2*e+e*e)))
	// Output:
	// log Z 2.8806 (closed form 2.8806)
	// NLL of (1,1) 0.7537 (closed form 0.7537)
}

// AIS estimates log Z from below in expectation; on this model, small
// enough to sum exactly and easy to anneal, its ±3σ interval holds the
// exact value. The interval is the estimate's variance over runs, not its
// bias: CheckAIS looks for what AIS misses.
func ExampleAIS() {
	const X, H = 20, 12
	r := rand.New(rand.NewPCG(1, 2))
	m := &eval.Model{H: H, X: X, C: make([]float32, X*H), HiddenBias: make([]float32, H), VisibleBias: make([]float32, X)}
	for i := range m.C {
		m.C[i] = float32(r.NormFloat64() * 0.5)
	}
	exact, err := eval.ExactLogZ(context.Background(), m, 0)
	if err != nil {
		panic(err)
	}
	// 100 runs (the default) of 2,000 evenly spaced β, seed 0; a uniform
	// base model since there is no data here (see BaseRate). Without
	// Betas, AIS runs the paper's schedule of 14,500 intervals.
	est, err := eval.AIS(context.Background(), m, eval.AISConfig{Betas: eval.UniformSchedule(2000)})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d runs of %d intervals\n", est.Runs, est.Intervals)
	fmt.Println("within 0.05 nats of the exact log Z:", math.Abs(est.LogZ-exact) < 0.05)
	fmt.Println("the interval holds it:", est.LogZLo <= exact && exact <= est.LogZHi)
	// Output:
	// 100 runs of 2000 intervals
	// within 0.05 nats of the exact log Z: true
	// the interval holds it: true
}

// Evaluate chooses the method (here exact: the model is small), measures
// the test set (the training set when there is none) and says what it did.
// The model of ExampleExactLogZ, with the row (1,1) as its test set.
func ExampleEvaluate() {
	m := &eval.Model{H: 1, X: 2, C: []float32{1, 1}, HiddenBias: []float32{0}, VisibleBias: []float32{0, 0}}
	train := &data.Set{Name: "train", N: 2, D: 2, X: []uint8{1, 0, 0, 1}}
	test := &data.Set{Name: "test", N: 1, D: 2, X: []uint8{1, 1}}
	res, err := eval.Evaluate(context.Background(), m, eval.Sets{Train: train, Test: test}, eval.Plan{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s on the %s set (%d row): log Z %.4f, NLL %.4f\n", res.Likelihood, res.Set, res.Rows, res.LogZ, res.NLL)
	// Output:
	// exact on the test set (1 row): log Z 2.8806, NLL 0.7537
}

// A Gaussian–Bernoulli model of one visible unit (σ = 1) and one hidden
// unit, weight 1, biases 0: E(v, h) = v²/2 − vh, so Z = ∫ e^(−v²/2) dv +
// ∫ e^(−(v−1)²/2 + 1/2) dv = √(2π)·(1 + e^(1/2)), and the density at v = 0
// is 2/Z. Evaluate reads the set's real-valued rows; the NLL is a negative
// log-density.
func ExampleEvaluate_gaussian() {
	m := &eval.Model{H: 1, X: 1, C: []float32{1}, HiddenBias: []float32{0}, VisibleBias: []float32{0}, Visible: unit.Gaussian}
	train := &data.Set{Name: "train", N: 1, D: 1, Real: []float32{0}}
	res, err := eval.Evaluate(context.Background(), m, eval.Sets{Train: train}, eval.Plan{})
	if err != nil {
		panic(err)
	}
	z := math.Log(math.Sqrt(2*math.Pi) * (1 + math.Exp(0.5)))
	fmt.Printf("%s: log Z %.4f (closed form %.4f)\n", res.Likelihood, res.LogZ, z)
	fmt.Printf("NLL of v = 0: %.4f (closed form %.4f)\n", res.NLL, z-math.Log(2))
	// Output:
	// exact: log Z 1.8930 (closed form 1.8930)
	// NLL of v = 0: 1.1999 (closed form 1.1999)
}

// A categorical model of one attribute with three values (one group of
// three visible units) and one hidden unit, weights 1, 0, −1, biases 0:
// its states are the three one-hot vectors, so Z = Σ_k (1 + e^(C_k)) =
// 4 + e + 1/e. The same parameters as a binary model sum over all eight
// binary vectors: Z = 8 + 2(1 + e)(1 + 1/e), the mass of the five that are
// not one-hot included, so the row (1, 0, 0) is likelier under the
// categorical model.
func ExampleExactLogZ_categorical() {
	m := &eval.Model{H: 1, X: 3, C: []float32{1, 0, -1}, HiddenBias: []float32{0}, VisibleBias: []float32{0, 0, 0},
		Visible: unit.Categorical, Groups: data.Groups{0, 3}}
	logZ, err := eval.ExactLogZ(context.Background(), m, 1)
	if err != nil {
		panic(err)
	}
	row := &data.Set{Name: "row", N: 1, D: 3, X: []uint8{1, 0, 0}, Groups: data.Groups{0, 3}}
	nll, err := eval.ExactNLL(context.Background(), m, row, 1)
	if err != nil {
		panic(err)
	}
	b := *m
	b.Visible, b.Groups = unit.Binary, nil
	binZ, err := eval.ExactLogZ(context.Background(), &b, 1)
	if err != nil {
		panic(err)
	}
	binNLL, err := eval.ExactNLL(context.Background(), &b, &data.Set{Name: "row", N: 1, D: 3, X: []uint8{1, 0, 0}}, 1)
	if err != nil {
		panic(err)
	}
	e := math.E
	// The free energy of (1, 0, 0) is −log(1 + e) under both.
	fmt.Printf("categorical: log Z %.4f (closed form %.4f), NLL of (1,0,0) %.4f (%.4f)\n", logZ, math.Log(4+e+1/e), nll, math.Log((4+e+1/e)/(1+e)))
	fmt.Printf("binary:      log Z %.4f (closed form %.4f), NLL of (1,0,0) %.4f (%.4f)\n", binZ, math.Log(8+2*(1+e)*(1+1/e)), binNLL, math.Log((8+2*(1+e)*(1+1/e))/(1+e)))
	// Output:
	// categorical: log Z 1.9581 (closed form 1.9581), NLL of (1,0,0) 0.6449 (0.6449)
	// binary:      log Z 2.8999 (closed form 2.8999), NLL of (1,0,0) 1.5866 (1.5866)
}
