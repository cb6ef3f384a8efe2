package data

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Dir returns the data directory: flagValue (a -data-dir flag) if not
// empty, else $NCG_DATA if set, else <user cache dir>/ncg (e.g.
// ~/.cache/ncg on Linux), else "ncg-data" in the working directory. Inside
// it the layout is mnist/, mushrooms/, connect-4/ as in [Files].
func Dir(flagValue string) string {
	if flagValue != "" {
		return flagValue
	}
	if d := os.Getenv("NCG_DATA"); d != "" {
		return d
	}
	if c, err := os.UserCacheDir(); err == nil {
		return filepath.Join(c, "ncg")
	}
	return "ncg-data"
}

// Options configures [Load]. The zero value loads the defaults: data from
// Dir(""), stochastic binarisation with seed 0, 4×4 bars and stripes, split
// seed 0, a 20% hold-out.
type Options struct {
	Dir          string       // data directory; "" means Dir("")
	Binarization Binarization // for MNIST and other IDX images
	BASSize      int          // bars-and-stripes side n; 0 means 4
	// BASSamples > 0 makes the bars-and-stripes training set that many
	// images sampled uniformly (seed SplitSeed) instead of every pattern;
	// the test set is still every pattern.
	BASSamples int
	SplitSeed  uint64  // seed of every shuffle-split and hold-out
	HoldOut    float64 // fraction held out as a test set when no test data exists; 0 means 0.2
	// For a file path: its Format ("idx", "libsvm", "split", "npy", "csv";
	// "" detects), the number of LIBSVM features (0 infers it) and an
	// optional test file of the same format.
	Format      string
	NumFeatures int
	TestPath    string
	// Real makes MNIST and IDX images real-valued instead of binary, and
	// scales the values of .npy and CSV files (which are real-valued
	// whatever Real says): see [RealMode]. The scaling is fitted on the
	// training set and applied unchanged to the test set; it is recorded
	// in Set.Scaling.
	Real RealMode
	// LabelColumn takes a column of a .npy or CSV file out of the units as
	// the class labels: 0 (the default) none, k ≥ 1 the k-th column, −1
	// the last. The distinct values of the column (training and test file
	// together) become labels 0..L−1 in increasing numeric order.
	LabelColumn int
	// Categorical, when not nil, reads a .npy or CSV file as categorical
	// attributes coded as integers, each column (but the label column) a
	// group of one-hot units: a binary set with Groups (see
	// [Categorical]). It applies to .npy and CSV files only, and not with
	// Real.
	Categorical *Categorical
}

// Names are the built-in data set names Load knows.
var Names = []string{"bas", "mnist", "mushrooms", "connect-4"}

// Load returns the training and test sets of a built-in data set or of a
// file:
//
//   - "bas": all 2^(n+1)−2 n×n bars-and-stripes images (n = BASSize,
//     default 4) as both train and test (two copies), or BASSamples sampled
//     training images.
//   - "mnist": the 60000 training and 10000 test images of mnist/, labelled,
//     binarised by opts.Binarization (PCG stream 1 for train, 2 for test).
//   - "mushrooms", "connect-4": the paper's splits (2000/6124 and
//     16000/51557, 112 and 126 units, 2 and 3 classes); see [LoadPaperSplit]
//     for the files used and the fallbacks when some are absent.
//   - anything else is a file path: train is the file (format
//     opts.Format or detected), test is opts.TestPath or nil.
//
// With opts.Real, MNIST and IDX images are real-valued (grey levels scaled
// or standardised); .npy and CSV files are real-valued unless
// opts.Categorical reads them as one-hot categorical columns. The other
// sets are binary only, and opts.Real is an error for them.
//
// Mushrooms and Connect-4 have their categorical groups built in
// ([BuiltinGroups]); so has a file of them named or headed as such (see
// [ReadLIBSVM], [ReadSplit]). When only one of a file and its test file
// has groups, the other's rows must fit them, and it gets them too.
//
// Source of each set says exactly which files, seeds and fallbacks made it.
//
// A built-in set that is binary only (BinaryOnly) refuses opts.Real.
func Load(name string, opts Options) (train, test *Set, err error) {
	dir := Dir(opts.Dir)
	name, _ = Canonical(name)
	if _, err := ParseRealMode(string(opts.Real)); err != nil {
		return nil, nil, err
	}
	if opts.Real != RealNone && BinaryOnly(name) {
		return nil, nil, fmt.Errorf("data: %s is binary; real-valued mode %q applies to MNIST, IDX images, .npy and CSV files", name, opts.Real)
	}
	if opts.LabelColumn != 0 && slices.Contains(Names, name) {
		return nil, nil, fmt.Errorf("data: %s has its labels; a label column applies to .npy and CSV files", name)
	}
	if opts.Categorical != nil && slices.Contains(Names, name) {
		return nil, nil, fmt.Errorf("data: %s: categorical columns apply to .npy and CSV files (mushrooms and connect-4 have their groups built in)", name)
	}
	switch name {
	case "bas":
		n := opts.BASSize
		if n == 0 {
			n = 4
		}
		all, err := BarsAndStripes(n)
		if err != nil {
			return nil, nil, err
		}
		test = all
		if opts.BASSamples > 0 {
			train, err = SampleBarsAndStripes(n, opts.BASSamples, opts.SplitSeed)
			if err != nil {
				return nil, nil, err
			}
		} else {
			train = &Set{Name: all.Name, N: all.N, D: all.D, X: append([]uint8(nil), all.X...), Source: all.Source}
		}
		train.Name, test.Name = train.Name+"-train", test.Name+"-test"
		return train, test, nil
	case "mnist":
		return loadMNIST(dir, opts)
	case "mushrooms", "connect-4":
		return LoadPaperSplit(name, opts)
	}
	if _, err := os.Stat(name); err != nil {
		return nil, nil, fmt.Errorf("data: %q is neither a known data set (%s) nor a readable file: %w",
			name, strings.Join(Names, ", "), err)
	}
	if opts.Categorical != nil {
		return loadCategoricalFiles(name, opts.TestPath, opts)
	}
	if real, err := isReal(name, opts); err != nil {
		return nil, nil, err
	} else if real {
		return loadRealFiles(name, opts.TestPath, opts)
	}
	train, err = LoadFile(name, opts)
	if err != nil {
		return nil, nil, err
	}
	if opts.TestPath != "" {
		if test, err = LoadFile(opts.TestPath, opts); err != nil {
			return nil, nil, err
		}
		if test.D != train.D {
			return nil, nil, fmt.Errorf("data: %s has %d units per row but %s has %d", name, train.D, opts.TestPath, test.D)
		}
		if err := shareGroups(train, test, name, opts.TestPath); err != nil {
			return nil, nil, err
		}
	}
	return train, test, nil
}

// shareGroups gives the set of two files that has no categorical groups
// those of the other, when one has them (a file of mushrooms or connect-4
// with a file that does not say what it is); its rows must fit them.
func shareGroups(train, test *Set, trainPath, testPath string) error {
	from, to, path := train, test, testPath
	if train.Groups == nil {
		from, to, path = test, train, trainPath
	}
	if from.Groups == nil || to.Groups != nil {
		return nil
	}
	for i := 0; i < to.N; i++ {
		if k, on := from.Groups.broken(to.Row(i)); k >= 0 {
			return fmt.Errorf("data: %s: example %d: group %d%s has %d units on, want exactly 1: the rows of %s must have the categorical groups of %s",
				path, i+1, k, attrName(from.Attributes, k), on, path, from.Name)
		}
	}
	to.Groups, to.Attributes = from.Groups, from.Attributes
	to.Source += fmt.Sprintf("; every row one-hot in the %d categorical groups of %s", to.Groups.Len(), from.Name)
	return nil
}

// MNIST file names in the mnist/ directory.
const (
	MNISTTrainImages = "train-images-idx3-ubyte.gz"
	MNISTTrainLabels = "train-labels-idx1-ubyte.gz"
	MNISTTestImages  = "t10k-images-idx3-ubyte.gz"
	MNISTTestLabels  = "t10k-labels-idx1-ubyte.gz"
)

func loadMNIST(dir string, opts Options) (train, test *Set, err error) {
	p := func(f string) string { return filepath.Join(dir, "mnist", f) }
	if err := need("mnist", p(MNISTTrainImages), p(MNISTTrainLabels), p(MNISTTestImages), p(MNISTTestLabels)); err != nil {
		return nil, nil, err
	}
	read := func(images, labels string, stream uint64) (*Set, error) {
		if opts.Real != RealNone {
			return readGrey(images, labels)
		}
		return ReadMNIST(images, labels, opts.Binarization, stream)
	}
	train, err = read(p(MNISTTrainImages), p(MNISTTrainLabels), 1)
	if err != nil {
		return nil, nil, err
	}
	test, err = read(p(MNISTTestImages), p(MNISTTestLabels), 2)
	if err != nil {
		return nil, nil, err
	}
	for _, s := range []*Set{train, test} {
		if s.D != 784 || s.NumClasses > 10 {
			return nil, nil, fmt.Errorf("data: %s: %d units, %d classes: not MNIST (784 units, 10 classes)", s.Name, s.D, s.NumClasses)
		}
		s.NumClasses = 10
		s.ClassNames = []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}
	}
	train.Name, test.Name = "mnist-train", "mnist-test"
	if opts.Real != RealNone {
		mode, _ := ParseRealMode(string(opts.Real))
		err := scaleSets(mode, fmt.Sprintf("the %d MNIST training images", train.N),
			&rawFile{s: train, path: p(MNISTTrainImages)}, &rawFile{s: test, path: p(MNISTTestImages)})
		if err != nil {
			return nil, nil, err
		}
	}
	return train, test, nil
}

// need returns an error naming the missing files, if any, or the real
// cause when a file cannot even be looked at (permission denied, …).
func need(set string, paths ...string) error {
	if err := unreachable(set, paths...); err != nil {
		return err
	}
	var miss []string
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			miss = append(miss, p)
		}
	}
	if miss == nil {
		return nil
	}
	return fmt.Errorf("data: %s: missing %s (run 'ncgbench data fetch %s', or set -data-dir or NCG_DATA to the data directory)",
		set, strings.Join(miss, ", "), set)
}

// unreachable returns the first error other than "does not exist" that
// looking at paths gives, so that an unreadable data directory is reported
// as such rather than as missing files.
func unreachable(set string, paths ...string) error {
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("data: %s: %w", set, err)
		}
	}
	return nil
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

// Formats LoadFile knows.
const (
	FormatIDX    = "idx"
	FormatLIBSVM = "libsvm"
	FormatSplit  = "split"
	FormatNPY    = "npy"
	FormatCSV    = "csv"
)

const formatList = "idx, libsvm, split, npy or csv"

// DetectFormat reports the format of a plain or gzip file: "idx" if its
// content starts with the IDX magic 00 00 08, "npy" if with the .npy magic
// \x93NUMPY or if its name ends in .npy (or .npy.gz); "csv" if its name ends
// in .csv or .tsv (or those and .gz); else "split" if its first line is a
// "Key: value" header line starting with a letter, else "libsvm".
func DetectFormat(path string) (string, error) {
	in, err := openInput(path)
	if err != nil {
		return "", err
	}
	defer in.close()
	f, err := detect(in.r, path)
	if err != nil || f == FormatIDX || f == FormatNPY {
		return f, err
	}
	switch filepath.Ext(strings.TrimSuffix(strings.ToLower(path), ".gz")) {
	case ".npy":
		return FormatNPY, nil
	case ".csv", ".tsv":
		return FormatCSV, nil
	}
	return f, nil
}

func detect(r io.Reader, name string) (string, error) {
	head := make([]byte, 512)
	n, err := io.ReadFull(r, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	head = head[:n]
	if n == 0 {
		return "", fmt.Errorf("%s: byte offset 0: empty file", name)
	}
	if n >= 3 && head[0] == 0 && head[1] == 0 && head[2] == 0x08 {
		return FormatIDX, nil
	}
	if bytes.HasPrefix(head, npyMagic) {
		return FormatNPY, nil
	}
	first, _, _ := bytes.Cut(head, []byte("\n"))
	first = bytes.TrimSpace(first)
	if len(first) > 0 && (first[0]|0x20 >= 'a' && first[0]|0x20 <= 'z') && bytes.Contains(first, []byte(":")) {
		return FormatSplit, nil
	}
	return FormatLIBSVM, nil
}

// LoadFile reads one data file of format opts.Format, or of the detected
// format when that is empty. An IDX image file is binarised by
// opts.Binarization (PCG stream 1), or made real-valued by opts.Real; its
// labels are read from the file of the same name with "-labels-idx1-ubyte"
// for "-images-idx3-ubyte", when present. A .npy or CSV file is
// real-valued, scaled by opts.Real with its own statistics, or with
// opts.Categorical binary one-hot categorical columns whose categories are
// its own; either way labelled by opts.LabelColumn.
func LoadFile(path string, opts Options) (*Set, error) {
	if opts.Categorical != nil {
		s, _, err := loadCategoricalFiles(path, "", opts)
		return s, err
	}
	if real, err := isReal(path, opts); err != nil {
		return nil, err
	} else if real {
		s, _, err := loadRealFiles(path, "", opts)
		return s, err
	}
	format := opts.Format
	if format == "" {
		var err error
		if format, err = DetectFormat(path); err != nil {
			return nil, err
		}
	}
	switch format {
	case FormatIDX:
		return ReadMNIST(path, idxLabelsFor(path), opts.Binarization, 1)
	case FormatLIBSVM:
		return ReadLIBSVMFile(path, opts.NumFeatures)
	case FormatSplit:
		s, _, err := ReadSplitFile(path)
		return s, err
	}
	return nil, errors.New("data: unknown format " + format + " (want " + formatList + ")")
}

// BinaryOnly reports whether name (canonical, see Canonical) is a built-in
// set that has binary values only, with no real-valued form.
func BinaryOnly(name string) bool {
	switch name {
	case "bas", "mushrooms", "connect-4":
		return true
	}
	return false
}
