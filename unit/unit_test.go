package unit

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ncg-rbm/ncg/data"
)

func TestParseAndString(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Type
	}{{"binary", Binary}, {"", Binary}, {"gaussian", Gaussian}, {"categorical", Categorical}} {
		got, err := Parse(c.in)
		if err != nil || got != c.want {
			t.Errorf("Parse(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	if _, err := Parse("softmax"); err == nil || !strings.Contains(err.Error(), "binary, gaussian, categorical") {
		t.Errorf("Parse(softmax): %v, want the list of types", err)
	}
	if Binary.Name() != "binary" || Categorical.Name() != "categorical" {
		t.Errorf("names %q %q", Binary, Categorical)
	}
}

// TestAccepts: each type takes its kind of rows and refuses the others,
// and categorical units need groups that every row satisfies.
func TestAccepts(t *testing.T) {
	bin := &data.Set{Name: "b", N: 2, D: 3, X: []uint8{1, 0, 1, 0, 1, 1}}
	real := &data.Set{Name: "r", N: 1, D: 2, Real: []float32{0.5, -1}}
	grouped := &data.Set{Name: "g", N: 2, D: 3, X: []uint8{1, 0, 1, 0, 1, 1}, Groups: data.Groups{0, 2, 3}}
	broken := &data.Set{Name: "x", N: 2, D: 3, X: []uint8{1, 0, 1, 1, 1, 1}, Groups: data.Groups{0, 2, 3}}
	for _, c := range []struct {
		t    Type
		s    *data.Set
		want string // "" accepted, else a fragment of the error
	}{
		{Binary, bin, ""}, {Binary, grouped, ""}, {Binary, real, "r is real-valued; binary units need binary rows (gaussian units model these rows)"},
		{Gaussian, real, ""}, {Gaussian, bin, "b is binary; gaussian units need real-valued rows (binary units"},
		{Categorical, grouped, ""}, {Categorical, bin, "b has no categorical groups"}, {Categorical, real, "real-valued"},
		{Categorical, broken, "row 1, group 0 (units 0…1): 2 units on"},
		{Type("softmax"), bin, "not one of"},
	} {
		err := c.t.Accepts(c.s)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s on %s: %v", c.t.Name(), c.s.Name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s on %s: %v, want %q", c.t.Name(), c.s.Name, err, c.want)
		}
	}
}

// TestUnmarshal: "binary" in JSON (and in flags, which parse the same
// way) is the zero value, and an unknown name is an error.
func TestUnmarshal(t *testing.T) {
	var c struct{ Visible Type }
	if err := json.Unmarshal([]byte(`{"Visible": "binary"}`), &c); err != nil || c.Visible != Binary {
		t.Errorf("binary: %q, %v", c.Visible, err)
	}
	if err := json.Unmarshal([]byte(`{"Visible": "categorical"}`), &c); err != nil || c.Visible != Categorical {
		t.Errorf("categorical: %q, %v", c.Visible, err)
	}
	if err := json.Unmarshal([]byte(`{"Visible": "softmax"}`), &c); err == nil {
		t.Error("softmax accepted")
	}
}

func TestContinuous(t *testing.T) {
	if !Gaussian.Continuous() || Binary.Continuous() || Categorical.Continuous() {
		t.Error("only Gaussian units are real-valued")
	}
}

func TestExactLayer(t *testing.T) {
	if Binary.ExactLayer(10, 30) != 10 || Binary.ExactLayer(40, 12) != 12 {
		t.Error("binary: the smaller layer")
	}
	if Gaussian.ExactLayer(10, 30) != 30 || Categorical.ExactLayer(10, 30) != 30 {
		t.Error("gaussian and categorical: the hidden layer")
	}
}
