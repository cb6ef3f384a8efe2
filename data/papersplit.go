package data

import (
	"fmt"
	"math"
	"path/filepath"
)

// paperSet describes one of the paper's LIBSVM-derived sets.
type paperSet struct {
	name, libsvm, train, test string
	nTrain, features          int
	classNames                []string
}

var paperSets = map[string]paperSet{
	"mushrooms": {"mushrooms", "mushrooms/mushrooms", "mushrooms/mushrooms-train.data", "mushrooms/mushrooms-test.data",
		2000, 112, []string{"1", "2"}},
	"connect-4": {"connect-4", "connect-4/connect-4", "connect-4/connect-4-train.data", "connect-4/connect-4-test.data",
		16000, 126, []string{"-1", "0", "1"}},
}

// LoadPaperSplit loads "mushrooms" or "connect-4" from opts.Dir, using the
// first of these that the files present allow:
//
//  1. the paper's split files <name>-train.data and <name>-test.data;
//  2. the paper's training split file, with the test set made of the rows of
//     the full LIBSVM file that are not in it (the paper's test set: the
//     split files are a partition of the LIBSVM file, labels in the same
//     order);
//  3. the full LIBSVM file, split by [Split] with opts.SplitSeed into
//     2000/6124 (mushrooms) or 16000/51557 (connect-4) rows;
//  4. the paper's training split file alone, with a seeded hold-out of
//     opts.HoldOut (default 20%) of its rows as the test set, which is then
//     NOT the paper's test set.
//
// Class names are the LIBSVM labels ("1","2" for mushrooms, "-1","0","1"
// for connect-4) whichever files are used. Source says which case applied.
func LoadPaperSplit(name string, opts Options) (train, test *Set, err error) {
	name, _ = Canonical(name)
	ps, ok := paperSets[name]
	if !ok {
		return nil, nil, fmt.Errorf("data: no paper split for %q", name)
	}
	dir := Dir(opts.Dir)
	p := func(f string) string { return filepath.Join(dir, filepath.FromSlash(f)) }
	if err := unreachable(name, p(ps.train), p(ps.test), p(ps.libsvm)); err != nil {
		return nil, nil, err
	}
	haveTrain, haveTest, haveFull := exists(p(ps.train)), exists(p(ps.test)), exists(p(ps.libsvm))
	// Every file of the set is read as that set, whatever its name or
	// header says: its rows must have the set's categorical groups.
	set := builtins[name]
	readSplit := func(f string) (*Set, error) {
		s, _, err := readSplitFile(p(f), set)
		if err == nil && (s.D != ps.features || s.NumClasses != len(ps.classNames)) {
			err = fmt.Errorf("data: %s: %d units and %d classes, want %d and %d", p(f), s.D, s.NumClasses, ps.features, len(ps.classNames))
		}
		return s, err
	}
	readFull := func() (*Set, error) {
		s, err := readLIBSVMFile(p(ps.libsvm), ps.features, set)
		if err == nil && s.NumClasses != len(ps.classNames) {
			err = fmt.Errorf("data: %s: %d classes, want %d", p(ps.libsvm), s.NumClasses, len(ps.classNames))
		}
		return s, err
	}
	switch {
	case haveTrain && haveTest:
		if train, err = readSplit(ps.train); err != nil {
			return nil, nil, err
		}
		if test, err = readSplit(ps.test); err != nil {
			return nil, nil, err
		}
		test.Source += "; the paper's test split"
	case haveTrain && haveFull:
		if train, err = readSplit(ps.train); err != nil {
			return nil, nil, err
		}
		full, err := readFull()
		if err != nil {
			return nil, nil, err
		}
		if test, err = difference(full, train); err != nil {
			return nil, nil, err
		}
		test.Source = fmt.Sprintf("the %d rows of %s not in %s (the paper's test split)", test.N, p(ps.libsvm), p(ps.train))
	case haveFull:
		full, err := readFull()
		if err != nil {
			return nil, nil, err
		}
		if full.N <= ps.nTrain {
			return nil, nil, fmt.Errorf("data: %s: %d rows, want more than %d", p(ps.libsvm), full.N, ps.nTrain)
		}
		train, test = Split(full, ps.nTrain, opts.SplitSeed)
		train.Source += " (split files absent: a seeded split of the LIBSVM file, not the paper's exact split)"
		test.Source += " (split files absent: a seeded split of the LIBSVM file, not the paper's exact split)"
	case haveTrain:
		all, err := readSplit(ps.train)
		if err != nil {
			return nil, nil, err
		}
		f := opts.HoldOut
		if f == 0 {
			f = 0.2
		}
		if !(f > 0 && f < 1) {
			return nil, nil, fmt.Errorf("data: hold-out fraction %v not in (0, 1)", opts.HoldOut)
		}
		nTest := int(math.Round(f * float64(all.N)))
		if nTest < 1 || nTest >= all.N {
			return nil, nil, fmt.Errorf("data: hold-out of %v of %d rows leaves no train or test rows", f, all.N)
		}
		train, test = Split(all, all.N-nTest, opts.SplitSeed)
		note := fmt.Sprintf(" (%s and %s absent: test is a seeded %.0f%% hold-out of the paper's training split, NOT the paper's test set)",
			p(ps.test), p(ps.libsvm), 100*f)
		train.Source += note
		test.Source += note
	default:
		return nil, nil, fmt.Errorf("data: %s: none of %s, %s found (run 'ncgbench data fetch %s', or set -data-dir or NCG_DATA to the data directory)",
			name, p(ps.train), p(ps.libsvm), name)
	}
	for _, s := range []*Set{train, test} {
		s.ClassNames = append([]string(nil), ps.classNames...)
	}
	train.Name, test.Name = name+"-train", name+"-test"
	return train, test, nil
}

// difference returns the rows of full (in file order) that are not in part,
// matching rows by units and label, each row of part used once. It fails if
// a row of part is not in full.
func difference(full, part *Set) (*Set, error) {
	if full.D != part.D || full.NumClasses != part.NumClasses {
		return nil, fmt.Errorf("data: %s and %s differ in shape", full.Name, part.Name)
	}
	key := func(s *Set, i int) string {
		return string(append(append([]byte(nil), s.Row(i)...), byte(s.Label(i)), byte(s.Label(i)>>8)))
	}
	left := make(map[string]int, part.N)
	for i := 0; i < part.N; i++ {
		left[key(part, i)]++
	}
	var idx []int
	for i := 0; i < full.N; i++ {
		k := key(full, i)
		if left[k] > 0 {
			left[k]--
			continue
		}
		idx = append(idx, i)
	}
	if full.N-len(idx) != part.N {
		return nil, fmt.Errorf("data: %d of the %d rows of %s are not in %s: they are not a split of it",
			part.N-(full.N-len(idx)), part.N, part.Source, full.Source)
	}
	return full.Subset(idx), nil
}
