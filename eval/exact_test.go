package eval

import (
	"context"
	"math"
	"strings"
	"testing"
)

// bruteLogZ sums exp(dᵀx + bᵀh + xᵀCh) over every joint state, in float64.
func bruteLogZ(m *Model) float64 {
	var terms []float64
	for xs := 0; xs < 1<<m.X; xs++ {
		for hs := 0; hs < 1<<m.H; hs++ {
			terms = append(terms, bruteEnergy(m, xs, hs))
		}
	}
	return logSumExp(terms)
}

// bruteEnergy returns −E(x, h) = dᵀx + bᵀh + xᵀCh for bit-coded states.
func bruteEnergy(m *Model, xs, hs int) float64 {
	var e float64
	for j := 0; j < m.X; j++ {
		if xs>>j&1 == 0 {
			continue
		}
		e += float64(m.VisibleBias[j])
		for i := 0; i < m.H; i++ {
			if hs>>i&1 == 1 {
				e += float64(m.C[j*m.H+i])
			}
		}
	}
	for i := 0; i < m.H; i++ {
		if hs>>i&1 == 1 {
			e += float64(m.HiddenBias[i])
		}
	}
	return e
}

// bruteFreeEnergy is F(x) in float64 from the definition.
func bruteFreeEnergy(m *Model, x []uint8) float64 {
	f := 0.0
	for j, v := range x {
		f -= float64(v) * float64(m.VisibleBias[j])
	}
	for i := 0; i < m.H; i++ {
		a := float64(m.HiddenBias[i])
		for j, v := range x {
			a += float64(v) * float64(m.C[j*m.H+i])
		}
		f -= softplus64(a)
	}
	return f
}

func TestExactLogZBruteForce(t *testing.T) {
	// Tolerance: float32 pre-activations of O(1) weights, ~1e-6 relative.
	const tol = 2e-5
	for _, c := range []struct{ X, H int }{
		{6, 5}, {5, 6}, {6, 6}, {1, 4}, {4, 1}, {3, 14}, {14, 3},
	} {
		for seed := uint64(1); seed <= 3; seed++ {
			m := randomModel(c.X, c.H, 1, seed)
			want := bruteLogZ(m)
			for _, w := range []int{1, 2, 3} {
				got, err := ExactLogZ(context.Background(), m, w)
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(got-want) > tol*math.Max(1, math.Abs(want)) {
					t.Errorf("X=%d H=%d seed %d workers %d: log Z = %.9f, brute force %.9f", c.X, c.H, seed, w, got, want)
				}
			}
		}
	}
}

func TestExactLogZWorkersAndSymmetry(t *testing.T) {
	// 2^16 states: 16 chunks, each with refreshes; bit-identical for any
	// number of workers.
	m := randomModel(40, 16, 0.3, 7)
	ref, err := ExactLogZ(context.Background(), m, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []int{2, 3, 0} {
		got, _ := ExactLogZ(context.Background(), m, w)
		if got != ref {
			t.Errorf("workers %d: %v, workers 1: %v", w, got, ref)
		}
	}
	// The transposed model (visible and hidden swapped) has the same Z and
	// is enumerated over its visible layer.
	tm := &Model{H: m.X, X: m.H, C: m.transposed(), HiddenBias: m.VisibleBias, VisibleBias: m.HiddenBias}
	got, err := ExactLogZ(context.Background(), tm, 2)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got-ref) > 1e-4 {
		t.Errorf("transposed model: log Z = %.7f, original %.7f", got, ref)
	}
}

func TestExactLogZTooLarge(t *testing.T) {
	m := randomModel(30, 26, 0.1, 1)
	_, err := ExactLogZ(context.Background(), m, 1)
	if err == nil || !strings.Contains(err.Error(), "2^26") {
		t.Fatalf("want a clear error for 2^26 states, got %v", err)
	}
}

func TestFreeEnergyAndExactNLL(t *testing.T) {
	m := randomModel(7, 5, 1, 3)
	n := 1 << m.X
	x := make([]uint8, n*m.X)
	for r := 0; r < n; r++ {
		for j := 0; j < m.X; j++ {
			x[r*m.X+j] = uint8(r >> j & 1)
		}
	}
	f, err := FreeEnergies(context.Background(), m, binRows(x, n, m.X), 2)
	if err != nil {
		t.Fatal(err)
	}
	lz := bruteLogZ(m)
	var nll, psum float64
	for r := 0; r < n; r++ {
		want := bruteFreeEnergy(m, x[r*m.X:(r+1)*m.X])
		if math.Abs(f[r]-want) > 1e-5*math.Max(1, math.Abs(want)) {
			t.Errorf("row %d: F = %.7f, want %.7f", r, f[r], want)
		}
		nll += want + lz
		psum += math.Exp(-want - lz)
	}
	if math.Abs(psum-1) > 1e-9 {
		t.Fatalf("brute-force probabilities sum to %v", psum)
	}
	got, err := ExactNLL(context.Background(), m, binRows(x, n, m.X), 3)
	if err != nil {
		t.Fatal(err)
	}
	if want := nll / float64(n); math.Abs(got-want) > 1e-5 {
		t.Errorf("ExactNLL = %.7f, want %.7f", got, want)
	}
	if _, err := FreeEnergies(context.Background(), m, binRows(x[:len(x)-1], n, m.X), 1); err == nil {
		t.Error("short data accepted")
	}
	if _, err := FreeEnergies(context.Background(), m, binRows(x[:len(x)-m.X], n-1, m.X-1), 1); err == nil || !strings.Contains(err.Error(), "rows of 6 units") {
		t.Errorf("rows of X−1 units: %v", err)
	}
	x[3] = 2
	if _, err := FreeEnergies(context.Background(), m, binRows(x, n, m.X), 1); err == nil || !strings.Contains(err.Error(), "0 or 1") {
		t.Errorf("non-binary data: %v", err)
	}
}

func TestValidate(t *testing.T) {
	m := randomModel(3, 2, 1, 1)
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	bad := *m
	bad.C = bad.C[:5]
	if err := bad.Validate(); err == nil {
		t.Error("short C accepted")
	}
	bad = *m
	bad.HiddenBias = []float32{0, float32(math.NaN())}
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "HiddenBias[1]") {
		t.Errorf("NaN bias: %v", err)
	}
	if err := (*Model)(nil).Validate(); err == nil {
		t.Error("nil model accepted")
	}
}

// BenchmarkExactLogZ: 2^20 hidden states, X = 784.
func BenchmarkExactLogZ(b *testing.B) {
	m := randomModel(784, 20, 0.05, 1)
	for b.Loop() {
		if _, err := ExactLogZ(context.Background(), m, 0); err != nil {
			b.Fatal(err)
		}
	}
}
