package data

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// maxFeatures bounds the feature index a LIBSVM file may use, so that a
// corrupt file cannot make the reader allocate without limit.
var maxFeatures = 1 << 20

// maxLine bounds the length of a text line.
const maxLine = 16 << 20

// ReadLIBSVM reads a LIBSVM file of binary features, plain or gzip, from r:
// one example per line, "label index:value index:value …" with 1-based,
// strictly increasing indices and values 0 or 1 (written "0", "1", "1.0", …);
// blank lines and "#" comments are ignored.
//
// If numFeatures > 0 the set has that many units and larger indices are
// errors; if 0 it has as many as the largest index. Labels (any numbers) are
// mapped to 0..L−1 in increasing numeric order; ClassNames records the
// original values ("-1", "0", "1" for connect-4, "1", "2" for mushrooms).
// name is used in error messages, which give the line number.
//
// A file named like one of LIBSVM's one-hot sets, "mushrooms" or
// "connect-4" (the base of name, without a .gz), is that set: it has its
// number of features (112 or 126; numFeatures must be 0 or that), every
// row must have exactly one feature on in each of its categorical groups
// (an error names the line and the group), and the set has the groups
// ([BuiltinGroups]).
func ReadLIBSVM(r io.Reader, name string, numFeatures int) (*Set, error) {
	in, err := sniff(r, name, lenOf(r))
	if err != nil {
		return nil, err
	}
	return readLIBSVM(in, numFeatures, libsvmClaim(name))
}

// ReadLIBSVMFile reads a LIBSVM file of binary features; see [ReadLIBSVM].
func ReadLIBSVMFile(path string, numFeatures int) (*Set, error) {
	return readLIBSVMFile(path, numFeatures, libsvmClaim(path))
}

func readLIBSVMFile(path string, numFeatures int, set *builtin) (*Set, error) {
	in, err := openInput(path)
	if err != nil {
		return nil, err
	}
	defer in.close()
	return readLIBSVM(in, numFeatures, set)
}

// readLIBSVM reads a LIBSVM file; when set is not nil the file is that
// built-in set, and its rows are checked against its groups.
func readLIBSVM(in *input, numFeatures int, set *builtin) (*Set, error) {
	name := in.name
	if numFeatures < 0 || numFeatures > maxFeatures {
		return nil, fmt.Errorf("%s: number of features %d not in 0..%d", name, numFeatures, maxFeatures)
	}
	if set != nil {
		if numFeatures != 0 && numFeatures != set.units() {
			return nil, fmt.Errorf("%s: %d features asked for, but the LIBSVM %s set has %d", name, numFeatures, set.name, set.units())
		}
		numFeatures = set.units()
	}
	sc := bufio.NewScanner(in.r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	var (
		idx       []int32    // active indices (0-based) of all rows
		off       = []int{0} // row i's indices are idx[off[i]:off[i+1]]
		rawLabels []float64
		labelName = map[float64]string{}
		maxIdx    int
		line      int
	)
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if k := bytes.IndexByte(b, '#'); k >= 0 {
			b = b[:k]
		}
		f := bytes.Fields(b)
		if len(f) == 0 {
			continue
		}
		lab, err := strconv.ParseFloat(string(f[0]), 64)
		if err != nil || math.IsInf(lab, 0) || math.IsNaN(lab) {
			return nil, fmt.Errorf("%s: line %d: label %q is not a number", name, line, trunc(f[0]))
		}
		if _, ok := labelName[lab]; !ok {
			labelName[lab] = strconv.FormatFloat(lab, 'g', -1, 64)
		}
		rawLabels = append(rawLabels, lab)
		prev := 0
		for _, tok := range f[1:] {
			c := bytes.IndexByte(tok, ':')
			if c < 0 {
				return nil, fmt.Errorf("%s: line %d: %q is not index:value", name, line, trunc(tok))
			}
			j, err := strconv.Atoi(string(tok[:c]))
			if err != nil {
				return nil, fmt.Errorf("%s: line %d: bad feature index %q", name, line, trunc(tok[:c]))
			}
			if j < 1 {
				return nil, fmt.Errorf("%s: line %d: feature index %d < 1 (indices are 1-based)", name, line, j)
			}
			if j <= prev {
				return nil, fmt.Errorf("%s: line %d: feature index %d after %d (indices must increase)", name, line, j, prev)
			}
			if numFeatures > 0 && j > numFeatures {
				return nil, fmt.Errorf("%s: line %d: feature index %d > number of features %d", name, line, j, numFeatures)
			}
			if j > maxFeatures {
				return nil, fmt.Errorf("%s: line %d: feature index %d > limit %d", name, line, j, maxFeatures)
			}
			prev = j
			v, err := strconv.ParseFloat(string(tok[c+1:]), 64)
			if err != nil || (v != 0 && v != 1) {
				return nil, fmt.Errorf("%s: line %d: feature %d has value %q, want 0 or 1", name, line, j, trunc(tok[c+1:]))
			}
			maxIdx = max(maxIdx, j)
			if v == 1 {
				idx = append(idx, int32(j-1))
			}
		}
		if set != nil {
			if k, on := set.brokenSorted(idx[off[len(off)-1]:]); k >= 0 {
				return nil, set.rowError(name, fmt.Sprintf("line %d", line), k, on, "features")
			}
		}
		off = append(off, len(idx))
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%s: line %d: line longer than %d bytes", name, line+1, maxLine)
		}
		return nil, fmt.Errorf("%s: line %d: %w", name, line+1, err)
	}
	n := len(rawLabels)
	if n == 0 {
		return nil, fmt.Errorf("%s: line %d: no examples (%w)", name, line, errEmpty)
	}
	d := numFeatures
	if d == 0 {
		d = maxIdx
	}
	if d == 0 {
		return nil, fmt.Errorf("%s: line %d: no features (no index above 0 and no number of features given)", name, line)
	}
	if int64(n)*int64(d) > MaxIDXBytes {
		return nil, fmt.Errorf("%s: %d examples × %d features is too large", name, n, d)
	}
	vals := make([]float64, 0, len(labelName))
	for v := range labelName {
		vals = append(vals, v)
	}
	slices.Sort(vals)
	code := make(map[float64]int32, len(vals))
	names := make([]string, len(vals))
	for k, v := range vals {
		code[v] = int32(k)
		names[k] = labelName[v]
	}
	s := &Set{Name: filepath.Base(name), N: n, D: d, X: make([]uint8, n*d),
		Labels: make([]int32, n), NumClasses: len(vals), ClassNames: names}
	for i := 0; i < n; i++ {
		row := s.X[i*d : (i+1)*d]
		for _, j := range idx[off[i]:off[i+1]] {
			row[j] = 1
		}
		s.Labels[i] = code[rawLabels[i]]
	}
	s.Source = fmt.Sprintf("LIBSVM %s (%d rows, %d features; labels %s → 0..%d)",
		name, n, d, strings.Join(names, ","), len(names)-1)
	if set != nil {
		set.attach(s)
		s.Source += fmt.Sprintf("; every row one-hot in the %d categorical groups of %s", s.Groups.Len(), set.name)
	}
	return s, nil
}

// trunc shortens a token for an error message.
func trunc(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}
