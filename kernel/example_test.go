package kernel_test

import (
	"fmt"

	"github.com/ncg-rbm/ncg/kernel"
)

// The binary-state product: the product of a matrix with a 0/1 state is
// the sum of the rows where the state is 1. Indices lists those rows.
func ExampleSumRows() {
	m := []float32{ // 3 rows of 4 columns
		1, 2, 3, 4,
		10, 20, 30, 40,
		100, 200, 300, 400,
	}
	state := []float32{1, 0, 1}
	idx := make([]int32, len(state))
	n := kernel.Indices(idx, state)
	out := make([]float32, 4)
	kernel.SumRows(out, m, 4, idx[:n], 4)
	fmt.Println(idx[:n], out)
	// Output:
	// [0 2] [101 202 303 404]
}

func ExampleSigmoid() {
	x := []float32{-2, 0, 2, -100}
	p := make([]float32, len(x))
	kernel.Sigmoid(p, x)
	fmt.Printf("%.4f\n", p)
	// Output:
	// [0.1192 0.5000 0.8808 0.0000]
}

// A Stream is keyed by (seed, id): the same key gives the same draws on
// every tier and goroutine, which is what makes training reproducible.
func ExampleBernoulli() {
	p := make([]float32, 100000)
	for i := range p {
		p[i] = 0.3
	}
	a, b := make([]float32, len(p)), make([]float32, len(p))
	s1, s2 := kernel.NewStream(42, 7), kernel.NewStream(42, 7)
	kernel.Bernoulli(a, p, &s1)
	kernel.Bernoulli(b, p, &s2)
	ones, same := 0, true
	for i := range a {
		ones += int(a[i])
		same = same && a[i] == b[i]
	}
	fmt.Printf("fraction of ones %.2f, same draws for the same key: %v\n", float64(ones)/float64(len(a)), same)
	// Output:
	// fraction of ones 0.30, same draws for the same key: true
}
