package data

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// rawFile is a data file read before its values are scaled.
type rawFile struct {
	s      *Set      // name, size, source, labels; X holds the grey levels of IDX images
	vals   []float64 // the values of a .npy or CSV file, N×D, without the label column
	labels []float64 // the label column of a .npy or CSV file, or nil
	col    int       // that column, from 1
	path   string
}

// loadRealFiles reads the file trainPath and, if testPath is not empty, the
// file testPath (each in opts.Format, or its detected format) as
// real-valued sets: IDX images as grey levels, .npy and CSV files with
// opts.LabelColumn as labels, scaled by opts.Real fitted on the first.
func loadRealFiles(trainPath, testPath string, opts Options) (train, test *Set, err error) {
	mode, err := ParseRealMode(string(opts.Real))
	if err != nil {
		return nil, nil, err
	}
	files := []*rawFile{}
	for _, p := range []string{trainPath, testPath} {
		if p == "" {
			continue
		}
		f, err := readRaw(p, opts, mode)
		if err != nil {
			return nil, nil, err
		}
		files = append(files, f)
	}
	if len(files) == 2 && files[1].s.D != files[0].s.D {
		return nil, nil, fmt.Errorf("data: %s has %d units per row but %s has %d", trainPath, files[0].s.D, testPath, files[1].s.D)
	}
	if files[0].vals != nil {
		mapLabels(files)
	} else if len(files) == 2 && files[0].s.Labels != nil && files[1].s.Labels != nil {
		k := max(files[0].s.NumClasses, files[1].s.NumClasses)
		for _, f := range files {
			f.s.NumClasses, f.s.ClassNames = k, decimalNames(k)
		}
	}
	if err := scaleSets(mode, fmt.Sprintf("%s (%d rows)", trainPath, files[0].s.N), files...); err != nil {
		return nil, nil, err
	}
	train = files[0].s
	if len(files) == 2 {
		test = files[1].s
	}
	return train, test, nil
}

// readRaw reads one file for loadRealFiles.
func readRaw(path string, opts Options, mode RealMode) (*rawFile, error) {
	format := opts.Format
	if format == "" {
		var err error
		if format, err = DetectFormat(path); err != nil {
			return nil, err
		}
	}
	switch format {
	case FormatIDX:
		if opts.LabelColumn != 0 {
			return nil, fmt.Errorf("data: %s: a label column applies to .npy and CSV files; IDX labels come from their own file", path)
		}
		s, err := readGrey(path, idxLabelsFor(path))
		if err != nil {
			return nil, err
		}
		return &rawFile{s: s, path: path}, nil
	case FormatNPY, FormatCSV:
		in, err := openInput(path)
		if err != nil {
			return nil, err
		}
		defer in.close()
		var m *matrix
		if format == FormatNPY {
			m, err = readNPY(in)
		} else {
			m, err = readCSV(in)
		}
		if err != nil {
			return nil, err
		}
		return takeLabels(m, path, opts.LabelColumn)
	case FormatLIBSVM, FormatSplit:
		return nil, fmt.Errorf("data: %s: a %s file is binary; real-valued mode %q applies to MNIST, IDX images, .npy and CSV files", path, format, mode)
	}
	return nil, fmt.Errorf("data: unknown format %s (want %s)", format, formatList)
}

// takeLabels takes column col (1-based; −1 the last; 0 none) out of m as
// the labels.
func takeLabels(m *matrix, path string, col int) (*rawFile, error) {
	f := &rawFile{s: &Set{Name: filepath.Base(path), N: m.n, D: m.d, Source: m.source}, vals: m.v, path: path}
	if col == 0 {
		return f, nil
	}
	c := col - 1
	if col == -1 {
		c = m.d - 1
	}
	if c < 0 || c >= m.d {
		return nil, fmt.Errorf("data: %s: label column %d, but the rows have %d columns (want 1..%d, or −1 for the last)", path, col, m.d, m.d)
	}
	if m.d == 1 {
		return nil, fmt.Errorf("data: %s: the label column is the only column", path)
	}
	d := m.d - 1
	f.vals, f.labels, f.s.D, f.col = make([]float64, 0, m.n*d), make([]float64, m.n), d, c+1
	for i := range m.n {
		row := m.v[i*m.d : (i+1)*m.d]
		f.labels[i] = row[c]
		f.vals = append(append(f.vals, row[:c]...), row[c+1:]...)
	}
	return f, nil
}

// mapLabels turns the label columns of files into labels 0..L−1: the
// distinct values of all the files in increasing numeric order.
func mapLabels(files []*rawFile) {
	if files[0].labels == nil {
		return
	}
	var vals []float64
	for _, f := range files {
		vals = append(vals, f.labels...)
	}
	slices.Sort(vals)
	vals = slices.Compact(vals)
	names := make([]string, len(vals))
	for k, v := range vals {
		names[k] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	for _, f := range files {
		f.s.Labels = make([]int32, f.s.N)
		for i, v := range f.labels {
			k, _ := slices.BinarySearch(vals, v)
			f.s.Labels[i] = int32(k)
		}
		f.s.NumClasses = len(vals)
		f.s.ClassNames = append([]string(nil), names...)
		f.s.Source += fmt.Sprintf("; labels from column %d (%s → 0..%d)", f.col, strings.Join(truncList(names), ","), len(vals)-1)
	}
}

func truncList(names []string) []string {
	if len(names) > 12 {
		return append(names[:12:12], "…")
	}
	return names
}

func decimalNames(k int) []string {
	names := make([]string, k)
	for i := range names {
		names[i] = strconv.Itoa(i)
	}
	return names
}

// scaleSets makes the sets of files real-valued, with a scaling of mode
// (none for RealNone) fitted on the first; from names its rows.
func scaleSets(mode RealMode, from string, files ...*rawFile) error {
	tr := files[0]
	var (
		c   *Scaling
		err error
	)
	if mode != RealNone {
		if tr.vals == nil {
			c, err = fitScaling(tr.s.X, tr.s.N, tr.s.D, mode, true, from)
		} else {
			c, err = fitScaling(tr.vals, tr.s.N, tr.s.D, mode, false, from)
		}
		if err != nil {
			return err
		}
	}
	for _, f := range files {
		name := f.path
		if name == "" {
			name = f.s.Name
		}
		if f.vals == nil {
			f.s.Real, err = applyScaling(f.s.X, f.s.D, c, name)
		} else {
			f.s.Real, err = applyScaling(f.vals, f.s.D, c, name)
		}
		if err != nil {
			return err
		}
		f.s.X, f.s.Scaling = nil, c
		if c != nil {
			f.s.Source += "; " + c.describe()
		}
	}
	return nil
}

// isReal reports whether the file path (in opts.Format or its detected
// format) loads as a real-valued set, and refuses a label column for a
// file that is not .npy or CSV.
func isReal(path string, opts Options) (bool, error) {
	format := opts.Format
	if format == "" {
		var err error
		if format, err = DetectFormat(path); err != nil {
			return false, err
		}
	}
	real := format == FormatNPY || format == FormatCSV
	if opts.LabelColumn != 0 && !real {
		return false, fmt.Errorf("data: %s: a label column applies to .npy and CSV files, not %s files", path, format)
	}
	return real || opts.Real != RealNone, nil
}

// idxLabelsFor returns the label file of an IDX image file: the file of the
// same name with "-labels-idx1-ubyte" for "-images-idx3-ubyte", if present,
// else "".
func idxLabelsFor(path string) string {
	if b := filepath.Base(path); strings.Contains(b, "-images-idx3-ubyte") {
		l := filepath.Join(filepath.Dir(path), strings.Replace(b, "-images-idx3-ubyte", "-labels-idx1-ubyte", 1))
		if exists(l) {
			return l
		}
	}
	return ""
}
