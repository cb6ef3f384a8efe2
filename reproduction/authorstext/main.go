// Command authorstext re-creates how the paper authors' code hands a model to
// its MATLAB AIS, to measure what that hand-off does to log Ẑ.
//
// Their C++ program prints C = W⊙A, then d, then b with Eigen's default
// stream format (6 significant digits, so |v| < 1e-4 comes out in exponent
// form, "1.23457e-05"), one hidden unit per line. Their MATLAB reader takes
// the numbers of each line with the regular expression
// [+-]?(\d+,)*\d+(\.\d*)?, which has no exponent: "1.23457e-05" becomes the
// two values 1.23457 and −5, the rest of that line moves one place on and its
// last value is dropped. The free energies of the data are computed in C++ on
// the true parameters, log Ẑ on what MATLAB read.
//
// authorstext reads a model.npz (ncgbench's export), reports how many values
// go through exponent form, and writes the model as MATLAB reads it to
// another .npz that ncgbench eval accepts. The authors' NLL of a model is then
// the mean free energy under the true model plus log Ẑ of the written one.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"sort"
	"strconv"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/engine"
)

// number is the authors' MATLAB pattern for one value.
var number = regexp.MustCompile(`[+-]?(\d+,)*\d+(\.\d*)?`)

// eigenFormat is how Eigen's default stream output prints a double: C++'s
// %g with 6 significant digits (exponent form below 1e-4 and from 1e6).
func eigenFormat(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

// readBack prints vals as one line of Eigen output and returns the first
// len(vals) values the authors' reader takes from it, and how many values
// were printed in exponent form. With valueOnly, an exponent-form value
// becomes its mantissa and the line is not shifted (to tell the two effects
// apart).
func readBack(vals []float64, valueOnly bool) ([]float64, int, error) {
	out := make([]float64, 0, len(vals))
	var line []byte
	exps := 0
	for k, v := range vals {
		s := eigenFormat(v)
		if len(number.FindAllString(s, -1)) > 1 {
			exps++
		}
		if valueOnly {
			f, err := strconv.ParseFloat(number.FindString(s), 64)
			if err != nil {
				return nil, 0, err
			}
			out = append(out, f)
			continue
		}
		if k > 0 {
			line = append(line, ' ')
		}
		line = append(line, s...)
	}
	if valueOnly {
		return out, exps, nil
	}
	toks := number.FindAllString(string(line), len(vals))
	if len(toks) < len(vals) {
		return nil, 0, fmt.Errorf("a line of %d values reads back as %d", len(vals), len(toks))
	}
	for _, t := range toks {
		f, err := strconv.ParseFloat(t, 64)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, f)
	}
	return out, exps, nil
}

// model is what the hand-off carries: C (H×X, row i = hidden unit i), b, d.
type model struct {
	shape []int64 // [X, D, H], as ncgbench writes it
	c     []float64
	b, d  []float32
}

// readModel reads an .npz of engine.Model.ExportNPZ's layout with the
// engine's reader, into the paper's orientation.
func readModel(path string) (*model, error) {
	em, err := engine.ReadNPZ(path)
	if err != nil {
		return nil, err
	}
	X, H := em.X, em.H
	m := &model{shape: []int64{int64(X), int64(em.DataUnits), int64(H)}, c: make([]float64, H*X),
		b: em.HiddenBias, d: em.VisibleBias}
	for j, v := range em.C() { // visible-major X×H → H×X
		m.c[(j%H)*X+j/H] = float64(v)
	}
	return m, nil
}

func widen(s []float32) []float64 {
	o := make([]float64, len(s))
	for k, v := range s {
		o[k] = float64(v)
	}
	return o
}

func narrow(s []float64) []float32 {
	o := make([]float32, len(s))
	for k, v := range s {
		o[k] = float32(v)
	}
	return o
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("authorstext", flag.ContinueOnError)
	fs.SetOutput(stderr)
	in := fs.String("in", "", "model `file` (.npz from ncgbench)")
	out := fs.String("out", "", "write the model as the authors' MATLAB reads it to this .npz `file`")
	valueOnly := fs.Bool("value-only", false, "turn exponent-form values into their mantissa without shifting the rest of the line")
	dataDir := fs.String("mnist-dir", "", "data `directory` holding mnist/: also report how often the pixels under exponent-form weights are lit in the training images")
	positive := fs.Bool("positive", false, "first drop every weight that is not above 0: the model whose mask is read as W > 0")
	asIs := fs.Bool("as-is", false, "write the model without the text round trip (with -positive: the W > 0 model itself)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if *in == "" || fs.NArg() > 0 {
		return errUsage
	}
	m, err := readModel(*in)
	if err != nil {
		return err
	}
	if *positive {
		kept := 0
		for k, v := range m.c {
			if v > 0 {
				kept++
			} else {
				m.c[k] = 0
			}
		}
		fmt.Fprintf(stdout, "%s: %d weights above 0 kept (density %.5f)\n", *in, kept, float64(kept)/float64(len(m.c)))
	}
	if *asIs {
		if *out == "" {
			return fmt.Errorf("%w: -as-is needs -out", errUsage)
		}
		return writeModel(*out, m)
	}
	X, H := int(m.shape[0]), int(m.shape[2])
	read := &model{shape: m.shape, c: make([]float64, 0, H*X)}
	var expC, rows, active int
	var maxChange float64
	for i := 0; i < H; i++ {
		row := m.c[i*X : (i+1)*X]
		got, e, err := readBack(row, *valueOnly)
		if err != nil {
			return fmt.Errorf("%s: C row %d: %v", *in, i, err)
		}
		for j, v := range row {
			if v != 0 {
				active++
			}
			maxChange = math.Max(maxChange, math.Abs(got[j]-v))
		}
		if e > 0 {
			rows++
		}
		expC += e
		read.c = append(read.c, got...)
	}
	d, expD, err := readBack(widen(m.d), *valueOnly)
	if err != nil {
		return fmt.Errorf("%s: d: %v", *in, err)
	}
	b, expB, err := readBack(widen(m.b), *valueOnly)
	if err != nil {
		return fmt.Errorf("%s: b: %v", *in, err)
	}
	read.d, read.b = narrow(d), narrow(b)
	fmt.Fprintf(stdout, "%s: H %d, X %d, %d active weights (density %.4f)\n", *in, H, X, active, float64(active)/float64(H*X))
	fmt.Fprintf(stdout, "exponent form: %d weights in %d of %d hidden rows, %d visible and %d hidden biases; largest change of a weight %.4g\n",
		expC, rows, H, expD, expB, maxChange)
	if *dataDir != "" {
		if err := reportPixels(stdout, m, *dataDir); err != nil {
			return err
		}
	}
	if *out == "" {
		return nil
	}
	return writeModel(*out, read)
}

// writeModel writes m with the engine's writer, as a dense model whose
// weights are C (so that ncgbench eval reads C back).
func writeModel(path string, m *model) error {
	X, D, H := int(m.shape[0]), int(m.shape[1]), int(m.shape[2])
	w := make([]float32, X*H)
	for i := 0; i < H; i++ { // H×X → visible-major X×H
		for j := 0; j < X; j++ {
			w[j*H+i] = float32(m.c[i*X+j])
		}
	}
	a := make([]float32, X*H)
	for k := range a {
		a[k] = 1
	}
	em := &engine.Model{X: X, DataUnits: D, H: H, W: w, A: a, HiddenBias: m.b, VisibleBias: m.d}
	if err := em.SetC(append([]float32(nil), w...)); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	return em.ExportNPZ(path)
}

// reportPixels prints, for the weights printed in exponent form, how often
// their visible unit is 1 in the binarised MNIST training images: a weight on
// a pixel that is never lit cannot change the model's distribution much,
// whatever value it is read as.
func reportPixels(w io.Writer, m *model, dir string) error {
	tr, _, err := data.Load("mnist", data.Options{Dir: dir})
	if err != nil {
		return err
	}
	X, H := int(m.shape[0]), int(m.shape[2])
	if tr.D != X {
		return fmt.Errorf("model has %d visible units, MNIST %d", X, tr.D)
	}
	lit := make([]float64, X)
	for r := 0; r < tr.N; r++ {
		for j, v := range tr.X[r*X : (r+1)*X] {
			lit[j] += float64(v) / float64(tr.N)
		}
	}
	var at []float64
	for i := 0; i < H; i++ {
		for j, v := range m.c[i*X : (i+1)*X] {
			if len(number.FindAllString(eigenFormat(v), -1)) > 1 {
				at = append(at, lit[j])
			}
		}
	}
	if len(at) == 0 {
		return nil
	}
	sort.Float64s(at)
	var rare, often int
	for _, p := range at {
		if p < 0.01 {
			rare++
		}
		if p >= 0.1 {
			often++
		}
	}
	fmt.Fprintf(w, "their pixels: %d lit in < 1%% of training images, %d in ≥ 10%%; median %.3f\n", rare, often, at[len(at)/2])
	return nil
}

// errUsage marks bad flags or arguments (exit status 2).
var errUsage = errors.New("usage: authorstext -in model.npz [-out read.npz] [-value-only]")

func main() {
	err := run(os.Args[1:], os.Stdout, os.Stderr)
	switch {
	case err == nil:
	case errors.Is(err, flag.ErrHelp):
		os.Exit(0)
	case errors.Is(err, errUsage):
		fmt.Fprintln(os.Stderr, "authorstext:", err)
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "authorstext:", err)
		os.Exit(1)
	}
}
