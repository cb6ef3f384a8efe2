package data

import (
	"fmt"
	"math/rand/v2"
)

// Permutation returns a seeded random permutation of 0..n−1: math/rand/v2's
// Shuffle (Fisher–Yates) driven by PCG seeded with (seed, 0).
func Permutation(n int, seed uint64) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	rand.New(rand.NewPCG(seed, 0)).Shuffle(n, func(i, j int) { p[i], p[j] = p[j], p[i] })
	return p
}

// Split shuffles the rows of s with [Permutation](s.N, seed) and returns the
// first nTrain as train and the remaining s.N − nTrain as test, each in
// permutation order. Both record the split in Source. It panics unless
// 0 ≤ nTrain ≤ s.N.
func Split(s *Set, nTrain int, seed uint64) (train, test *Set) {
	if nTrain < 0 || nTrain > s.N {
		panic(fmt.Sprintf("data: Split of %s: nTrain %d not in 0..%d", s.Name, nTrain, s.N))
	}
	p := Permutation(s.N, seed)
	train, test = s.Subset(p[:nTrain]), s.Subset(p[nTrain:])
	train.Source = fmt.Sprintf("first %d of %d rows after a seeded shuffle (PCG seed %d) of [%s]", nTrain, s.N, seed, s.Source)
	test.Source = fmt.Sprintf("last %d of %d rows after a seeded shuffle (PCG seed %d) of [%s]", s.N-nTrain, s.N, seed, s.Source)
	return train, test
}
