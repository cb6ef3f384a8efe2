package eval

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/unit"
)

// The exact log Z of a DBM against every joint state summed in float64,
// for 2 and 3 RBMs, with either side enumerated (the even side when it is
// smaller, the odd side otherwise), to 1e-9 relative.
func TestDBMExactLogZBruteForce(t *testing.T) {
	for _, c := range []struct {
		sizes  []int
		parity int // the side the sum should enumerate
	}{
		{[]int{7, 4, 3}, 1},    // odd 4 < even 10
		{[]int{3, 6, 2}, 0},    // even 5 < odd 6
		{[]int{6, 3, 4, 3}, 1}, // odd 6 < even 10
		{[]int{2, 5, 2, 5}, 0}, // even 4 < odd 10
		{[]int{5, 4, 1}, 1},    // the top a single unit
		{[]int{6, 5}, 1},       // one RBM
	} {
		for seed := uint64(1); seed <= 2; seed++ {
			d := &DBM{Layers: randomStack(c.sizes, 1, seed)}
			n, parity, err := DBMExactUnits(d)
			if err != nil {
				t.Fatal(err)
			}
			if parity != c.parity {
				t.Errorf("%v: enumerates parity %d (%d units), want %d", c.sizes, parity, n, c.parity)
			}
			want := bruteDBMJoint(d, nil)
			for _, w := range []int{1, 3} {
				got, err := DBMExactLogZ(context.Background(), d, w)
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(got-want) > 1e-9*math.Abs(want) {
					t.Errorf("%v seed %d workers %d: log Z = %.12f, brute force %.12f", c.sizes, seed, w, got, want)
				}
			}
		}
	}
}

// A DBM of one RBM is the RBM.
func TestDBMExactLogZOneRBM(t *testing.T) {
	m := randomModel(9, 4, 1, 5)
	want, err := ExactLogZ(context.Background(), m, 1)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DBMExactLogZ(context.Background(), &DBM{Layers: []*Model{m}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got-want) > 1e-5 {
		t.Errorf("log Z = %.9f, the RBM's %.9f", got, want)
	}
}

// Categorical and Gaussian visible layers are summed out by their own
// code, the odd side enumerated even when the even side is smaller.
func TestDBMExactLogZVisibleTypes(t *testing.T) {
	for seed := uint64(1); seed <= 2; seed++ {
		layers := randomStack([]int{4, 7, 2}, 1, seed) // even 6 < odd 7
		layers[0].Visible, layers[0].Groups = unit.Categorical, data.Groups{0, 2, 4}
		d := &DBM{Layers: layers}
		if n, parity, _ := DBMExactUnits(d); parity != 1 || n != 7 {
			t.Errorf("categorical: enumerates %d units of parity %d, want the 7 odd ones", n, parity)
		}
		want := bruteDBMJoint(d, nil)
		got, err := DBMExactLogZ(context.Background(), d, 2)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-want) > 1e-9*math.Abs(want) {
			t.Errorf("categorical seed %d: log Z = %.12f, brute force %.12f", seed, got, want)
		}

		layers = randomStack([]int{3, 5, 2, 2}, 0.7, seed) // even 5 < odd 7
		layers[0].Visible = unit.Gaussian
		rng := rand.New(rand.NewPCG(seed, 3))
		layers[0].Sigma = []float32{float32(0.5 + rng.Float64()), float32(0.5 + rng.Float64()), float32(0.5 + rng.Float64())}
		d = &DBM{Layers: layers}
		want = bruteGaussDBMLogZ(d)
		got, err = DBMExactLogZ(context.Background(), d, 2)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-want) > 1e-9*math.Abs(want) {
			t.Errorf("Gaussian seed %d: log Z = %.12f, brute force %.12f", seed, got, want)
		}
	}
}

func TestDBMExactLogZTooLarge(t *testing.T) {
	d := &DBM{Layers: randomStack([]int{40, 20, 30, 8}, 0.1, 1)} // even 70, odd 28
	_, err := DBMExactLogZ(context.Background(), d, 1)
	if err == nil || !strings.Contains(err.Error(), "28 units") || !strings.Contains(err.Error(), "limit is 25") {
		t.Fatalf("want an error naming 28 units and the limit 25, got %v", err)
	}
	// Gaussian visible units: the odd side whatever the even one.
	layers := randomStack([]int{3, 26, 2}, 0.1, 1)
	layers[0].Visible = unit.Gaussian
	_, err = DBMExactLogZ(context.Background(), &DBM{Layers: layers}, 1)
	if err == nil || !strings.Contains(err.Error(), "26 units") {
		t.Fatalf("want an error naming the 26 odd units, got %v", err)
	}
}

// Bad stacks are errors naming the RBM, never panics.
func TestDeepValidate(t *testing.T) {
	good := func() []*Model { return randomStack([]int{4, 3, 2}, 1, 1) }
	for _, c := range []struct {
		name string
		edit func([]*Model) []*Model
		want string
	}{
		{"empty", func([]*Model) []*Model { return nil }, "at least 1 RBM"},
		{"nil", func(l []*Model) []*Model { l[1] = nil; return l }, "RBM 2 of 2 is nil"},
		{"shapes", func(l []*Model) []*Model {
			l[1] = randomModel(4, 2, 1, 1)
			return l
		}, "RBM 2 of 2 has 4 visible units, but RBM 1 below it has 3 hidden units"},
		{"weights", func(l []*Model) []*Model { l[1].C = l[1].C[:5]; return l }, "RBM 2 of 2: model weights C have length 5"},
		{"hidden type", func(l []*Model) []*Model {
			l[1].Visible, l[1].Sigma = unit.Gaussian, nil
			return l
		}, "RBM 2 of 2 has gaussian visible units"},
		{"nan", func(l []*Model) []*Model { l[0].HiddenBias[1] = float32(math.NaN()); return l }, "RBM 1 of 2: model parameter HiddenBias[1]"},
	} {
		layers := c.edit(good())
		d, n := &DBM{Layers: layers}, &DBN{Layers: layers}
		for _, err := range []error{d.Validate(), n.Validate()} {
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
			}
		}
		ctx := context.Background()
		if _, err := DBMExactLogZ(ctx, d, 1); err == nil {
			t.Errorf("%s: DBMExactLogZ accepted the stack", c.name)
		}
		if _, err := DBMAIS(ctx, d, DBMAISConfig{Runs: 2, Betas: UniformSchedule(3)}); err == nil {
			t.Errorf("%s: DBMAIS accepted the stack", c.name)
		}
		if _, err := DBMMeanField(ctx, d, allBinaryRows(4), 0, MeanFieldConfig{Iterations: 1}); err == nil {
			t.Errorf("%s: DBMMeanField accepted the stack", c.name)
		}
		if _, err := DBNBound(ctx, n, allBinaryRows(4), 0, DBNBoundConfig{Samples: 1}); err == nil {
			t.Errorf("%s: DBNBound accepted the stack", c.name)
		}
	}
	var nilDBM *DBM
	if err := nilDBM.Validate(); err == nil {
		t.Error("nil DBM accepted")
	}
}
