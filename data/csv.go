package data

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
)

// ReadCSV reads a dense matrix of numbers, plain or gzip, from r: one row
// per line. Blank lines and lines starting with "#" are skipped. The first
// other line is a header, and skipped, when none of its fields is a
// number; otherwise it is the first row. The columns are separated by
// commas when the header or the first row has a comma, else by spaces and
// tabs. Every row has the same number of columns (and as many as
// the header). Numbers are decimal, as written by NumPy, pandas and
// spreadsheets: an optional sign, digits with an optional point and an
// optional exponent ("1", "-2.5e-3", ".5"), finite in float64; Go's
// underscores ("1_0") and hexadecimal floats ("0x1p3") are not numbers
// here. Fields may have spaces around them, and a UTF-8 byte order mark
// at the start of the file is dropped.
//
// The set holds the values as float32, unscaled and unlabelled ([Load] and
// [LoadFile] apply [Options.Real] and [Options.LabelColumn]). name is used
// in error messages, which give the line and the column (the field's
// number, from 1). At most [MaxRealValues] values are read.
func ReadCSV(r io.Reader, name string) (*Set, error) {
	in, err := sniff(r, name, lenOf(r))
	if err != nil {
		return nil, err
	}
	m, err := readCSV(in)
	if err != nil {
		return nil, err
	}
	return m.set(name)
}

func readCSV(in *input) (*matrix, error) {
	name := in.name
	sc := bufio.NewScanner(in.r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	var (
		m          = &matrix{}
		line       int
		first      = true // no content line seen yet
		comma      bool
		header     []byte // the header line, if any
		headerLine int
		dLine      int // the line that set d
		rowLine    int // the line of the last row
	)
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if line == 1 {
			b = bytes.TrimPrefix(b, utf8BOM)
		}
		b = bytes.TrimSpace(b)
		if len(b) == 0 || b[0] == '#' {
			continue
		}
		if m.d == 0 { // the header or the first row: decides the separator
			comma = bytes.IndexByte(b, ',') >= 0 || bytes.IndexByte(header, ',') >= 0
		}
		fields := split(b, comma)
		if first {
			first = false
			numbers := 0
			for _, f := range fields {
				if _, err := parseDecimal(bytes.TrimSpace(f)); err == nil || errors.Is(err, strconv.ErrRange) {
					numbers++
				}
			}
			if numbers == 0 {
				header, headerLine = bytes.Clone(b), line
				continue
			}
		}
		if m.d == 0 {
			m.d, dLine = len(fields), line
			if h := len(split(header, comma)); headerLine > 0 && h != m.d {
				return nil, fmt.Errorf("%s: line %d: %d columns, but the header (line %d) has %d", name, line, m.d, headerLine, h)
			}
		} else if len(fields) != m.d {
			return nil, fmt.Errorf("%s: line %d: %d columns, want %d (as on line %d)", name, line, len(fields), m.d, dLine)
		}
		if m.n == 0 || line != rowLine+1 {
			m.jumps = append(m.jumps, lineJump{row: m.n, line: line})
		}
		rowLine = line
		if m.n >= MaxRealValues/m.d {
			return nil, fmt.Errorf("%s: line %d: more than %d values", name, line, MaxRealValues)
		}
		for c, f := range fields {
			f = bytes.TrimSpace(f)
			if len(f) == 0 {
				return nil, fmt.Errorf("%s: line %d: column %d: empty field", name, line, c+1)
			}
			v, err := parseDecimal(f)
			if errors.Is(err, strconv.ErrRange) {
				return nil, fmt.Errorf("%s: line %d: column %d: %q is out of the float64 range", name, line, c+1, trunc(f))
			}
			if err != nil {
				return nil, fmt.Errorf("%s: line %d: column %d: %q is not a number", name, line, c+1, trunc(f))
			}
			if !finite(v) {
				return nil, fmt.Errorf("%s: line %d: column %d: %q is not a finite number", name, line, c+1, trunc(f))
			}
			m.v = append(m.v, v)
		}
		m.n++
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%s: line %d: line longer than %d bytes", name, line+1, maxLine)
		}
		return nil, fmt.Errorf("%s: line %d: %w", name, line+1, err)
	}
	if m.n == 0 {
		return nil, fmt.Errorf("%s: line %d: no rows of numbers (%w)", name, line, errEmpty)
	}
	sep := "whitespace-separated"
	if comma {
		sep = "comma-separated"
	}
	if headerLine > 0 {
		sep += fmt.Sprintf(", header on line %d", headerLine)
		for _, f := range split(header, comma) {
			m.names = append(m.names, string(bytes.TrimSpace(f)))
		}
	}
	m.source = fmt.Sprintf("CSV %s (%d×%d, %s)", name, m.n, m.d, sep)
	return m, nil
}

// split returns the fields of a line: separated by commas, or by runs of
// spaces and tabs.
func split(b []byte, comma bool) [][]byte {
	if comma {
		return bytes.Split(b, []byte(","))
	}
	return bytes.Fields(b)
}

// lineJump records that row is on line, for the rows of a CSV file that
// do not follow the row before on the next line.
type lineJump struct{ row, line int }

// lineOf returns the line (from 1) of row i of a matrix read from CSV.
func (m *matrix) lineOf(i int) int {
	k, found := slices.BinarySearchFunc(m.jumps, i, func(j lineJump, i int) int { return cmp.Compare(j.row, i) })
	if !found {
		k--
	}
	return m.jumps[k].line + i - m.jumps[k].row
}

// where names row i (from 0) of m for an error message: its line in a CSV
// file, else its row (from 1).
func (m *matrix) where(i int) string {
	if m.jumps != nil {
		return fmt.Sprintf("line %d", m.lineOf(i))
	}
	return fmt.Sprintf("row %d", i+1)
}

// utf8BOM is the byte order mark some editors put at the start of a file.
var utf8BOM = []byte("\ufeff")

// parseDecimal reads a field as a decimal number: strconv.ParseFloat's
// syntax without underscores and hexadecimal ("1_0" and "0x1p3" are not
// numbers in a CSV file); "inf" and "nan" parse, for the caller to refuse
// as not finite.
func parseDecimal(f []byte) (float64, error) {
	for _, c := range f {
		if c == '_' || c == 'x' || c == 'X' {
			return 0, strconv.ErrSyntax
		}
	}
	return strconv.ParseFloat(string(f), 64)
}
