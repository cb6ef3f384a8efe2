package data

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// ErrCategories is wrapped by the errors of a file whose values do not fit
// the categories asked of it (Options.Categorical): values that are not
// integer codes, outside the stated categories, or unseen in training,
// and a number of columns other than the categories stated. A caller
// that took the categories from its user can tell these from a damaged
// file.
var ErrCategories = errors.New("the data do not fit the categories")

// Categorical reads the columns of a .npy or CSV file as categorical
// attributes coded as integers ([Options.Categorical]). Each column (the
// label column, if any, taken out) becomes a group of one-hot units, in
// the order of the columns, and the set is binary with [Set.Groups] and
// [Set.Attributes]. The categories of a column are:
//
//   - stated: 0, 1, …, K−1 for a column of K categories (Size for every
//     column, or Sizes, one per column); a value outside is an error;
//   - read from the data, when neither is set: the distinct values of the
//     column in the training file, in increasing order. A test file is
//     expanded with the training file's categories, and a value the
//     training file's column lacks is an error.
//
// Values must be integers of magnitude below 2⁵³ (so that a float64
// holds them exactly); any other value, and NaN or ±Inf, is an error
// naming the file, the line (CSV) or row (.npy), and the column.
type Categorical struct {
	// Size, when > 0, is the number of categories of every column.
	Size int
	// Sizes, when not nil, is the number of categories of each column, in
	// the order of the file's columns without the label column.
	Sizes []int
}

// maxExact bounds the magnitude of a category code: every integer below
// 2⁵³ is a float64, so a code read as one is the code written.
const maxExact = 1 << 53

// ParseCategorical returns the Categorical a flag value names: "" none
// (nil), "data" the categories of the training file, "K" K categories in
// every column, "K1,K2,…" K1 in the first column, K2 in the second, and so
// on. String gives the value back.
func ParseCategorical(s string) (*Categorical, error) {
	switch s = strings.TrimSpace(s); s {
	case "":
		return nil, nil
	case "data":
		return &Categorical{}, nil
	}
	var sizes []int
	for _, f := range strings.Split(s, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || k < 1 {
			return nil, fmt.Errorf("data: categories %q: want data, a number of categories K ≥ 1 for every column, or one K per column separated by commas", s)
		}
		sizes = append(sizes, k)
	}
	c := &Categorical{Sizes: sizes}
	if len(sizes) == 1 {
		c = &Categorical{Size: sizes[0]}
	}
	return c, c.Validate()
}

// String is the flag value of c (see [ParseCategorical]): "" for nil.
func (c *Categorical) String() string {
	switch {
	case c == nil:
		return ""
	case c.Size > 0:
		return strconv.Itoa(c.Size)
	case c.Sizes != nil:
		s := make([]string, len(c.Sizes))
		for i, k := range c.Sizes {
			s[i] = strconv.Itoa(k)
		}
		return strings.Join(s, ",")
	}
	return "data"
}

// Validate checks that c states its categories at most one way, and every
// number of categories is at least 1 and at most the limit on the units of
// a row (that of LIBSVM features, 2²⁰).
func (c *Categorical) Validate() error {
	switch {
	case c.Size < 0:
		return fmt.Errorf("data: categories: %d categories in every column", c.Size)
	case c.Size > 0 && c.Sizes != nil:
		return errors.New("data: categories: both a number for every column and one per column")
	case c.Sizes != nil && len(c.Sizes) == 0:
		return errors.New("data: categories: an empty list of numbers per column")
	}
	if c.Size > maxFeatures {
		return fmt.Errorf("data: categories: %d categories in every column: want at most %d", c.Size, maxFeatures)
	}
	for j, k := range c.Sizes {
		if k < 1 || k > maxFeatures {
			return fmt.Errorf("data: categories: %d categories for column %d of the list: want 1 to %d", k, j+1, maxFeatures)
		}
	}
	return nil
}

// catFile is a .npy or CSV file read for categorical columns.
type catFile struct {
	*rawFile
	m *matrix // as read, for the places of errors and the column names
}

// column returns the file's column number (from 1) of data column j.
func (f *catFile) column(j int) int {
	if f.col == 0 || j+1 < f.col {
		return j + 1
	}
	return j + 2
}

// at names value (i, j) of f's data columns for an error.
func (f *catFile) at(i, j int) string {
	return fmt.Sprintf("%s: %s: column %d", f.path, f.m.where(i), f.column(j))
}

// loadCategoricalFiles reads trainPath and, if testPath is not empty,
// testPath (.npy or CSV files) with opts.Categorical, taking
// opts.LabelColumn out as the labels.
func loadCategoricalFiles(trainPath, testPath string, opts Options) (train, test *Set, err error) {
	c := opts.Categorical
	if err := c.Validate(); err != nil {
		return nil, nil, err
	}
	if opts.Real != RealNone {
		return nil, nil, fmt.Errorf("data: %s: categorical columns are one-hot binary units; real-valued mode %q does not apply to them: %w", trainPath, opts.Real, ErrCategories)
	}
	var files []*catFile
	for _, p := range []string{trainPath, testPath} {
		if p == "" {
			continue
		}
		f, err := readCatFile(p, opts)
		if err != nil {
			return nil, nil, err
		}
		files = append(files, f)
	}
	return categoricalSets(c, files...)
}

// categoricalSets makes the sets of the training file and the test file
// (if any) of categorical columns c.
func categoricalSets(c *Categorical, files ...*catFile) (train, test *Set, err error) {
	tr := files[0]
	if len(files) == 2 && files[1].s.D != tr.s.D {
		return nil, nil, fmt.Errorf("data: %s has %d categorical columns but %s has %d: %w", tr.path, tr.s.D, files[1].path, files[1].s.D, ErrCategories)
	}
	if c.Sizes != nil && len(c.Sizes) != tr.s.D {
		return nil, nil, fmt.Errorf("data: %s: categories stated for %d columns, but the file has %d (without the label column): %w", tr.path, len(c.Sizes), tr.s.D, ErrCategories)
	}
	raws := make([]*rawFile, len(files))
	for i, f := range files {
		raws[i] = f.rawFile
	}
	mapLabels(raws)
	cats, err := categories(c, tr)
	if err != nil {
		return nil, nil, err
	}
	groups := Groups{0}
	for _, vals := range cats {
		units := groups[len(groups)-1] + len(vals)
		if units > maxFeatures {
			return nil, nil, fmt.Errorf("data: %s: more than %d one-hot units (%d columns so far)", tr.path, maxFeatures, len(groups))
		}
		groups = append(groups, units)
	}
	attrs := make([]Attribute, len(cats))
	for j, vals := range cats {
		attrs[j].Name = fmt.Sprintf("column %d", tr.column(j))
		if tr.m.names != nil {
			attrs[j].Name = tr.m.names[tr.column(j)-1]
		}
		attrs[j].Values = make([]string, len(vals))
		for k, v := range vals {
			attrs[j].Values[k] = strconv.FormatFloat(v, 'f', -1, 64)
		}
	}
	note := describeCategories(c, tr, attrs, groups)
	for _, f := range files {
		if err := f.expand(cats, groups, c); err != nil {
			return nil, nil, err
		}
		f.s.Attributes = attrs
		f.s.Source += note
	}
	train = tr.s
	if len(files) == 2 {
		test = files[1].s
	}
	return train, test, nil
}

// readCatFile reads one .npy or CSV file for loadCategoricalFiles.
func readCatFile(path string, opts Options) (*catFile, error) {
	format := opts.Format
	if format == "" {
		var err error
		if format, err = DetectFormat(path); err != nil {
			return nil, err
		}
	}
	if format != FormatNPY && format != FormatCSV {
		return nil, fmt.Errorf("data: %s: categorical columns are read from .npy and CSV files, not %s files (the LIBSVM and split files of mushrooms and connect-4 have their groups built in): %w", path, format, ErrCategories)
	}
	in, err := openInput(path)
	if err != nil {
		return nil, err
	}
	defer in.close()
	return readCat(in, format, opts.LabelColumn)
}

// readCat reads a .npy or CSV file (format) from in, taking column
// labelColumn out as the labels (see [Options.LabelColumn]).
func readCat(in *input, format string, labelColumn int) (*catFile, error) {
	var (
		m   *matrix
		err error
	)
	if format == FormatNPY {
		m, err = readNPY(in)
	} else {
		m, err = readCSV(in)
	}
	if err != nil {
		return nil, err
	}
	f, err := takeLabels(m, in.name, labelColumn)
	if err != nil {
		return nil, err
	}
	return &catFile{rawFile: f, m: m}, nil
}

// code checks that v is an integer category code.
func code(v float64) bool { return v == math.Trunc(v) && math.Abs(v) < maxExact }

func notCode(at string, v float64) error {
	return fmt.Errorf("%s: %v is not an integer category code (an integer of magnitude below 2⁵³): %w", at, v, ErrCategories)
}

// categories returns the categories of each column, in increasing order:
// 0…K−1 when c states K, else the distinct values of the column in tr.
func categories(c *Categorical, tr *catFile) ([][]float64, error) {
	d, n := tr.s.D, tr.s.N
	cats := make([][]float64, d)
	if c.Size > 0 || c.Sizes != nil {
		for j := range cats {
			k := c.Size
			if c.Sizes != nil {
				k = c.Sizes[j]
			}
			cats[j] = make([]float64, k)
			for v := range k {
				cats[j][v] = float64(v)
			}
		}
		return cats, nil
	}
	for i := range n { // in file order, so that the first bad value is reported
		for j, v := range tr.vals[i*d : (i+1)*d] {
			if !code(v) {
				return nil, notCode(tr.at(i, j), v)
			}
		}
	}
	col := make([]float64, n)
	for j := range cats {
		for i := range n {
			col[i] = tr.vals[i*d+j] + 0 // −0 + 0 is +0: the category is named "0"
		}
		slices.Sort(col)
		cats[j] = slices.Clone(slices.Compact(col))
	}
	return cats, nil
}

// expand makes f's set the one-hot rows of its values: value v of column j
// turns on unit groups[j] + (the index of v in cats[j]).
func (f *catFile) expand(cats [][]float64, groups Groups, c *Categorical) error {
	n, d, units := f.s.N, f.s.D, groups[len(groups)-1]
	if int64(n)*int64(units) > MaxIDXBytes {
		return fmt.Errorf("data: %s: %d rows of %d one-hot units are more than %d bytes", f.path, n, units, int64(MaxIDXBytes))
	}
	stated := c.Size > 0 || c.Sizes != nil
	x := make([]uint8, n*units)
	for i := range n {
		row := x[i*units : (i+1)*units]
		for j, v := range f.vals[i*d : (i+1)*d] {
			if !code(v) {
				return notCode(f.at(i, j), v)
			}
			k, ok := slices.BinarySearch(cats[j], v)
			if !ok && stated {
				return fmt.Errorf("%s: value %v is outside the stated categories 0…%d: %w", f.at(i, j), v, len(cats[j])-1, ErrCategories)
			}
			if !ok {
				return fmt.Errorf("%s: value %v is not among the %d categories of the column in the training file: %w", f.at(i, j), v, len(cats[j]), ErrCategories)
			}
			row[groups[j]+k] = 1
		}
	}
	f.s.X, f.s.D, f.s.Groups, f.vals = x, units, groups, nil
	return nil
}

// describeCategories is the note Source gets: the columns, their units and
// where their categories come from.
func describeCategories(c *Categorical, tr *catFile, attrs []Attribute, g Groups) string {
	var b strings.Builder
	fmt.Fprintf(&b, "; categorical columns one-hot (%d units)", g[len(g)-1])
	switch {
	case c.Size > 0:
		fmt.Fprintf(&b, ", categories 0…%d stated for every column", c.Size-1)
		return b.String()
	case c.Sizes != nil:
		fmt.Fprintf(&b, ", categories 0…K−1 stated, K = %s", c.String())
		return b.String()
	}
	fmt.Fprintf(&b, ", categories from %s:", tr.path)
	for j, a := range attrs {
		if j == 12 {
			fmt.Fprintf(&b, " … (%d columns)", len(attrs))
			break
		}
		fmt.Fprintf(&b, " %s {%s}", a.Name, strings.Join(truncList(a.Values), ","))
	}
	return b.String()
}
