package data

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
)

// SplitHeader is the header of a split file.
type SplitHeader struct {
	Name        string // "Name", e.g. MUSHROOMS
	Split       string // "Split", e.g. "train set"
	N           int    // "Number of examples"
	D           int    // "Example size"
	HasLabels   bool   // "Has labels": Yes or No (absent means No)
	NumLabels   int    // "Number of labels" (required when labelled)
	ShuffleSeed string // "Data shuffled with seed", as written ("" if absent)
	Other       map[string]string
}

// ReadSplit reads a file in the paper's split format (*.data), plain or
// gzip, from r. The format: a header of "Key: value" lines (Name, Split,
// Number of examples, Example size, Has labels, Number of labels, Data
// shuffled with seed; others are kept in SplitHeader.Other), a blank line,
// then per example a "Label: k" line (when labelled, 0 ≤ k < Number of
// labels) followed by one line of Example size space-separated 0/1 values.
// Blank lines between examples are ignored. name is used in error messages,
// which give the line number.
//
// A file whose Name is MUSHROOMS or CONNECT-4 (in any case) is a split of
// that built-in set: it must have its Example size (112 or 126), every
// example must have exactly one value 1 in each of its categorical groups
// (an error names the line and the group), and the set has the groups
// ([BuiltinGroups]).
func ReadSplit(r io.Reader, name string) (*Set, *SplitHeader, error) {
	in, err := sniff(r, name, lenOf(r))
	if err != nil {
		return nil, nil, err
	}
	return readSplit(in, nil)
}

// ReadSplitFile reads a split-format file; see [ReadSplit].
func ReadSplitFile(path string) (*Set, *SplitHeader, error) {
	return readSplitFile(path, nil)
}

func readSplitFile(path string, set *builtin) (*Set, *SplitHeader, error) {
	in, err := openInput(path)
	if err != nil {
		return nil, nil, err
	}
	defer in.close()
	return readSplit(in, set)
}

// readSplit reads a split file: a split of the built-in set "set" when it is
// not nil, else of the set its Name says, if any.
func readSplit(in *input, set *builtin) (*Set, *SplitHeader, error) {
	name := in.name
	sc := bufio.NewScanner(in.r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	line := 0
	scanErr := func() error {
		err := sc.Err()
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("%s: line %d: line longer than %d bytes", name, line+1, maxLine)
		}
		return fmt.Errorf("%s: line %d: %w", name, line+1, err)
	}
	h := &SplitHeader{Other: map[string]string{}}
	seen := map[string]int{}
	ended := false
	for sc.Scan() {
		line++
		t := strings.TrimSpace(sc.Text())
		if t == "" {
			if len(seen) == 0 {
				return nil, nil, fmt.Errorf("%s: line %d: blank line before the header", name, line)
			}
			ended = true
			break
		}
		k, v, ok := strings.Cut(t, ":")
		if !ok {
			return nil, nil, fmt.Errorf("%s: line %d: header line %q is not \"Key: value\"", name, line, truncS(t))
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if l, dup := seen[k]; dup {
			return nil, nil, fmt.Errorf("%s: line %d: header key %q repeated (first on line %d)", name, line, k, l)
		}
		seen[k] = line
		var err error
		switch k {
		case "Name":
			h.Name = v
		case "Split":
			h.Split = v
		case "Number of examples":
			h.N, err = headerInt(v)
		case "Example size":
			h.D, err = headerInt(v)
		case "Number of labels":
			h.NumLabels, err = headerInt(v)
		case "Has labels":
			switch strings.ToLower(v) {
			case "yes", "true":
				h.HasLabels = true
			case "no", "false":
			default:
				err = errors.New("want Yes or No")
			}
		case "Data shuffled with seed":
			h.ShuffleSeed = v
		default:
			h.Other[k] = v
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s: line %d: header %q: value %q: %v", name, line, k, truncS(v), err)
		}
	}
	if !ended {
		if err := sc.Err(); err != nil {
			return nil, nil, scanErr()
		}
		if line == 0 {
			return nil, nil, fmt.Errorf("%s: line 1: empty file, want a split-file header", name)
		}
		return nil, nil, fmt.Errorf("%s: line %d: file ends in the header (no blank line before the examples)", name, line)
	}
	for _, k := range []string{"Number of examples", "Example size"} {
		if _, ok := seen[k]; !ok {
			return nil, nil, fmt.Errorf("%s: line %d: header lacks %q", name, line, k)
		}
	}
	if h.N < 1 || h.D < 1 {
		return nil, nil, fmt.Errorf("%s: line %d: header declares %d examples of size %d (want at least 1 of size 1)", name, seen["Number of examples"], h.N, h.D)
	}
	if int64(h.N)*int64(h.D) > MaxIDXBytes {
		return nil, nil, fmt.Errorf("%s: line %d: header declares %d examples of size %d: too large", name, seen["Number of examples"], h.N, h.D)
	}
	if set == nil {
		set = splitClaim(h.Name)
	}
	if set != nil && h.D != set.units() {
		return nil, nil, fmt.Errorf("%s: line %d: header declares examples of size %d, but a split of %s has %d", name, seen["Example size"], h.D, set.name, set.units())
	}
	if h.HasLabels {
		if _, ok := seen["Number of labels"]; !ok {
			return nil, nil, fmt.Errorf("%s: line %d: header says \"Has labels: Yes\" but lacks \"Number of labels\"", name, seen["Has labels"])
		}
		if h.NumLabels < 1 || h.NumLabels > MaxLabels {
			return nil, nil, fmt.Errorf("%s: line %d: Number of labels is %d (want 1 to %d)", name, seen["Number of labels"], h.NumLabels, MaxLabels)
		}
	}
	total := h.N * h.D
	c := total
	if in.size >= 0 {
		c = min(c, int(in.size))
	} else {
		c = min(c, 1<<20)
	}
	s := &Set{Name: filepath.Base(name), D: h.D, X: make([]uint8, 0, c)}
	if h.HasLabels {
		s.Labels = make([]int32, 0, min(h.N, c))
		s.NumClasses = h.NumLabels
		s.ClassNames = make([]string, h.NumLabels)
		for k := range s.ClassNames {
			s.ClassNames[k] = strconv.Itoa(k)
		}
	}
	wantLabel := h.HasLabels
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		if s.N == h.N {
			return nil, nil, fmt.Errorf("%s: line %d: more examples than the header's %d", name, line, h.N)
		}
		if wantLabel {
			rest, ok := bytes.CutPrefix(b, []byte("Label:"))
			if !ok {
				return nil, nil, fmt.Errorf("%s: line %d: want \"Label: k\" before example %d, got %q", name, line, s.N+1, trunc(b))
			}
			k, err := strconv.Atoi(string(bytes.TrimSpace(rest)))
			if err != nil || k < 0 || k >= h.NumLabels {
				return nil, nil, fmt.Errorf("%s: line %d: label %q is not an integer in 0..%d", name, line, trunc(bytes.TrimSpace(rest)), h.NumLabels-1)
			}
			s.Labels = append(s.Labels, int32(k))
			wantLabel = false
			continue
		}
		start := len(s.X)
		sep := true
		for col, ch := range b {
			switch {
			case ch == ' ' || ch == '\t':
				sep = true
				continue
			case (ch == '0' || ch == '1') && sep:
				if len(s.X)-start == h.D {
					return nil, nil, fmt.Errorf("%s: line %d: example %d has more than %d values", name, line, s.N+1, h.D)
				}
				s.X = append(s.X, ch-'0')
				sep = false
			default:
				return nil, nil, fmt.Errorf("%s: line %d: column %d: example %d: unexpected %q, want space-separated 0/1 values", name, line, col+1, s.N+1, string(rune(ch)))
			}
		}
		if got := len(s.X) - start; got != h.D {
			return nil, nil, fmt.Errorf("%s: line %d: example %d has %d values, header says %d", name, line, s.N+1, got, h.D)
		}
		if set != nil {
			if k, on := set.groups.broken(s.X[start:]); k >= 0 {
				return nil, nil, set.rowError(name, fmt.Sprintf("line %d: example %d", line, s.N+1), k, on, "values")
			}
		}
		s.N++
		wantLabel = h.HasLabels
	}
	if err := sc.Err(); err != nil {
		return nil, nil, scanErr()
	}
	if wantLabel != h.HasLabels {
		return nil, nil, fmt.Errorf("%s: line %d: file ends after a label line, without its example", name, line)
	}
	if s.N != h.N {
		return nil, nil, fmt.Errorf("%s: line %d: file ends after %d examples, header says %d", name, line, s.N, h.N)
	}
	seed := ""
	if h.ShuffleSeed != "" {
		seed = ", shuffled with seed " + h.ShuffleSeed
	}
	s.Source = fmt.Sprintf("split file %s (Name %q, Split %q, %d×%d%s)", name, h.Name, h.Split, s.N, s.D, seed)
	if set != nil {
		set.attach(s)
		s.Source += fmt.Sprintf("; every row one-hot in the %d categorical groups of %s", s.Groups.Len(), set.name)
	}
	return s, h, nil
}

func headerInt(v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, errors.New("want a non-negative integer")
	}
	return n, nil
}

func truncS(s string) string { return trunc([]byte(s)) }
