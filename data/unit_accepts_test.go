package data_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/unit"
)

// TestCategoricalSetsSuitCategoricalUnits: a CSV file read with
// Options.Categorical, and a connect-4 LIBSVM file, are binary sets that
// categorical visible units accept; the same CSV file read as numbers is
// not.
func TestCategoricalSetsSuitCategoricalUnits(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "t.csv")
	if err := os.WriteFile(p, []byte("a,b\n1,0\n2,0\n1,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := data.LoadFile(p, data.Options{Categorical: &data.Categorical{}})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []unit.Type{unit.Categorical, unit.Binary} {
		if err := u.Accepts(s); err != nil {
			t.Errorf("%s: %v", u, err)
		}
	}
	if err := unit.Gaussian.Accepts(s); err == nil {
		t.Error("gaussian units accept one-hot rows")
	}
	real, err := data.LoadFile(p, data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := unit.Categorical.Accepts(real); err == nil {
		t.Error("categorical units accept the numbers of a CSV file")
	}
}
