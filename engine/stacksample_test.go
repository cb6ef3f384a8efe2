package engine

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// tinyStack returns a stack of kind k with sizes n and random weights and
// biases (every bias of the RBMs set, so that a DBM's combined biases and
// a DBN's separate ones both matter).
func tinyStack(k StackKind, n []int, seed uint64) *Stack {
	rng := rand.New(rand.NewPCG(seed, 1))
	s := &Stack{Kind: k}
	for l := 0; l+1 < len(n); l++ {
		m := newModel(n[l], n[l], n[l+1], false)
		for i := range m.W {
			m.W[i], m.A[i] = float32(1.2*rng.NormFloat64()), 1
		}
		for i := range m.HiddenBias {
			m.HiddenBias[i] = float32(rng.NormFloat64())
		}
		for i := range m.VisibleBias {
			m.VisibleBias[i] = float32(rng.NormFloat64())
		}
		m.refreshC()
		s.RBMs = append(s.RBMs, m)
	}
	return s
}

// bits returns the n-unit binary vector of code.
func bits(code, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(code >> i & 1)
	}
	return v
}

// exactVisibleMean returns E[v] of the stack by brute force over every
// state: for a DBM from exp(−E) over all layers with the combined
// biases; for a DBN from the top RBM's joint and the generative
// conditionals below it.
func exactVisibleMean(s *Stack) []float64 {
	n := s.Sizes()
	x := n[0]
	sum, z := make([]float64, x), 0.0
	var walk func(l int, states [][]float64, logw float64)
	walk = func(l int, states [][]float64, logw float64) {
		if l == len(n) {
			var lw float64
			if s.Kind == DBM {
				for k, m := range s.RBMs {
					for a := 0; a < m.X; a++ {
						for b := 0; b < m.H; b++ {
							lw += states[k][a] * float64(m.W[a*m.H+b]) * states[k+1][b]
						}
					}
				}
				// Layer l's bias: RBM l−1's hidden biases plus RBM l's
				// visible ones (the one of them that exists at the ends).
				for l2 := range n {
					for i, v := range states[l2] {
						var b float64
						if l2 > 0 {
							b += float64(s.RBMs[l2-1].HiddenBias[i])
						}
						if l2 < len(s.RBMs) {
							b += float64(s.RBMs[l2].VisibleBias[i])
						}
						lw += v * b
					}
				}
			} else {
				L := len(s.RBMs)
				top := s.RBMs[L-1]
				for a := 0; a < top.X; a++ {
					lw += states[L-1][a] * float64(top.VisibleBias[a])
					for b := 0; b < top.H; b++ {
						lw += states[L-1][a] * float64(top.W[a*top.H+b]) * states[L][b]
					}
				}
				for b := 0; b < top.H; b++ {
					lw += states[L][b] * float64(top.HiddenBias[b])
				}
				for k := L - 2; k >= 0; k-- { // log p(x_k | x_{k+1})
					m := s.RBMs[k]
					for a := 0; a < m.X; a++ {
						in := float64(m.VisibleBias[a])
						for b := 0; b < m.H; b++ {
							in += float64(m.W[a*m.H+b]) * states[k+1][b]
						}
						lw += states[k][a]*in - math.Log1p(math.Exp(in))
					}
				}
			}
			w := math.Exp(lw)
			z += w
			for i, v := range states[0] {
				sum[i] += w * v
			}
			return
		}
		for code := 0; code < 1<<n[l]; code++ {
			walk(l+1, append(states, bits(code, n[l])), logw)
		}
	}
	walk(0, nil, 0)
	for i := range sum {
		sum[i] /= z
	}
	return sum
}

// TestGibbsStackSamplesTheModel compares the mean of GibbsStack's
// visible means over 3,000 chains with E[v] by brute force, for a DBM and
// a DBN of 3 layers: each unit within 5 standard errors of the chains'
// spread (a false alarm in fewer than 1 in 10⁵ runs), where a sampler
// that drops a layer's input, doubles it or mixes a DBN's biases with a
// DBM's is off by many.
func TestGibbsStackSamplesTheModel(t *testing.T) {
	const chains = 3000
	for _, k := range StackKinds() {
		s := tinyStack(k, []int{4, 3, 3, 2}, 7)
		want := exactVisibleMean(s)
		x := s.RBMs[0].X
		v := make([]float32, chains*x) // all chains from 0
		means, err := GibbsStack(context.Background(), s, v, chains, 60, 3)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < x; i++ {
			var m, m2 float64
			for c := 0; c < chains; c++ {
				p := float64(means[c*x+i])
				m += p
				m2 += p * p
			}
			m /= chains
			se := math.Sqrt((m2/chains - m*m) / chains)
			if math.Abs(m-want[i]) > 5*se+1e-3 {
				t.Errorf("%s: unit %d: chains' mean %.4f, exact %.4f (SE %.4f)", k, i, m, want[i], se)
			}
		}
	}
}
