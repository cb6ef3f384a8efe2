package data

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
)

// MaxRealValues bounds the number of values (rows × columns) a .npy or CSV
// file may hold, so that a corrupt header cannot make a reader allocate
// without limit: 2²⁸ values are 1 GiB as float32 (and 2 GiB as the float64
// values read before scaling).
const MaxRealValues = 1 << 28

// maxNPYHeader bounds the length of a .npy header.
const maxNPYHeader = 1 << 20

// npyMagic starts every .npy file.
var npyMagic = []byte("\x93NUMPY")

// matrix is a dense n×d matrix of numbers read from a file, before any
// label column is taken out or any scaling applied.
type matrix struct {
	n, d   int
	v      []float64  // row-major
	source string     // for Set.Source
	names  []string   // the column names of a CSV header, or nil
	jumps  []lineJump // where the rows of a CSV file are (see lineOf); nil for .npy
}

// ReadNPY reads a NumPy .npy file, plain or gzip, from r: a 2-D array
// (rows = examples, columns = units) of float32 or float64 (or signed or
// unsigned integers of 1 to 8 bytes, or bool: bytes 0 and 1, anything else
// is a damaged file), either byte order, C or
// Fortran order. The values are read as float64 and must be finite; the
// set holds them as float32, unscaled and unlabelled ([Load] and
// [LoadFile] apply [Options.Real] and [Options.LabelColumn]). name is used
// in error messages, which give the byte offset.
//
// The header is parsed by this package (as a Python dict literal with the
// keys 'descr', 'fortran_order' and 'shape' and nothing else), and a shape
// of more than [MaxRealValues] values is refused before anything is
// allocated.
func ReadNPY(r io.Reader, name string) (*Set, error) {
	in, err := sniff(r, name, lenOf(r))
	if err != nil {
		return nil, err
	}
	m, err := readNPY(in)
	if err != nil {
		return nil, err
	}
	return m.set(name)
}

// set returns m as an unscaled real-valued set.
func (m *matrix) set(name string) (*Set, error) {
	x, err := applyScaling(m.v, m.d, nil, name)
	if err != nil {
		return nil, err
	}
	return &Set{Name: filepath.Base(name), N: m.n, D: m.d, Real: x, Source: m.source}, nil
}

func readNPY(in *input) (*matrix, error) {
	name := in.name
	var pre [10]byte
	n, err := io.ReadFull(in.r, pre[:])
	if k := min(n, len(npyMagic)); !bytes.Equal(pre[:k], npyMagic[:k]) {
		return nil, fmt.Errorf("%s: byte offset 0: bad .npy magic % x (want 93 4e 55 4d 50 59, \"\\x93NUMPY\")", name, pre[:k])
	}
	if err != nil {
		if n == 0 && err == io.EOF {
			return nil, fmt.Errorf("%s: byte offset 0: empty file, want a .npy header", name)
		}
		return nil, fmt.Errorf("%s: byte offset %d: truncated .npy header: %w", name, n, unwrapEOF(err))
	}
	var hlen, start int
	switch pre[6] {
	case 1:
		hlen, start = int(binary.LittleEndian.Uint16(pre[8:])), 10
	case 2, 3:
		var more [2]byte
		if n, err := io.ReadFull(in.r, more[:]); err != nil {
			return nil, fmt.Errorf("%s: byte offset %d: truncated .npy header: %w", name, 10+n, unwrapEOF(err))
		}
		l := binary.LittleEndian.Uint32(append(pre[8:10:10], more[:]...))
		if l > maxNPYHeader {
			return nil, fmt.Errorf("%s: byte offset 8: .npy header of %d bytes (limit %d)", name, l, maxNPYHeader)
		}
		hlen, start = int(l), 12
	default:
		return nil, fmt.Errorf("%s: byte offset 6: unsupported .npy version %d.%d (want 1, 2 or 3)", name, pre[6], pre[7])
	}
	hdr := make([]byte, hlen)
	if n, err := io.ReadFull(in.r, hdr); err != nil {
		return nil, fmt.Errorf("%s: byte offset %d: truncated .npy header (%d bytes declared): %w", name, start+n, hlen, unwrapEOF(err))
	}
	h, err := parseNPYHeader(hdr)
	if err != nil {
		return nil, fmt.Errorf("%s: byte offset %d: .npy header: %w", name, start, err)
	}
	if len(h.shape) != 2 {
		return nil, fmt.Errorf("%s: byte offset %d: .npy shape %v: want a 2-D array (rows, units)", name, start, h.shape)
	}
	n, d := h.shape[0], h.shape[1]
	if n < 1 || d < 1 {
		return nil, fmt.Errorf("%s: byte offset %d: .npy shape %v: want at least one row and one unit", name, start, h.shape)
	}
	if n > MaxRealValues/d {
		return nil, fmt.Errorf("%s: byte offset %d: .npy shape %v holds more than %d values", name, start, h.shape, MaxRealValues)
	}
	dataAt := int64(start + hlen)
	total := int64(n) * int64(d) * int64(h.size)
	avail := int64(-1)
	if in.size >= 0 {
		avail = in.size - dataAt
	}
	raw, err := readN(in.r, total, avail)
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: byte offset %d: truncated: shape %v of %s declares %d data bytes, file ends after %d",
				name, dataAt+int64(len(raw)), h.shape, h.descr, total, len(raw))
		}
		return nil, fmt.Errorf("%s: byte offset %d: %w", name, dataAt+int64(len(raw)), err)
	}
	var one [1]byte
	k, err := io.ReadFull(in.r, one[:])
	if k > 0 {
		return nil, fmt.Errorf("%s: byte offset %d: unexpected data after the %d bytes declared by shape %v", name, dataAt+total, total, h.shape)
	}
	if err != io.EOF {
		return nil, fmt.Errorf("%s: byte offset %d: %w", name, dataAt+total, err)
	}
	m := &matrix{n: n, d: d, v: make([]float64, n*d),
		source: fmt.Sprintf(".npy %s (%d×%d %s)", name, n, d, h.descr)}
	for e := range m.v {
		v := h.decode(raw[e*h.size:])
		if h.descr[1] == 'b' && v > 1 { // NumPy writes a bool as the byte 0 or 1
			return nil, fmt.Errorf("%s: byte offset %d: byte %d in a bool array, which holds 0 and 1 only", name, dataAt+int64(e), int(v))
		}
		if !finite(v) {
			return nil, fmt.Errorf("%s: byte offset %d: value %v is not finite", name, dataAt+int64(e*h.size), v)
		}
		i, j := e/d, e%d // C order: element e is row e/d, column e%d
		if h.fortran {
			i, j = e%n, e/n
		}
		m.v[i*d+j] = v
	}
	return m, nil
}

// npyHeader is what a .npy header says.
type npyHeader struct {
	descr   string
	fortran bool
	shape   []int
	size    int                    // bytes per element
	decode  func(b []byte) float64 // reads one element
}

// parseNPYHeader parses the header dict, e.g.
// {'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }.
func parseNPYHeader(b []byte) (*npyHeader, error) {
	p := &pyParser{b: b}
	h := &npyHeader{}
	p.space()
	if !p.eat('{') {
		return nil, p.errorf("want '{'")
	}
	seen := map[string]bool{}
	for {
		p.space()
		if p.eat('}') {
			break
		}
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		if seen[key] {
			return nil, p.errorf("key %q repeated", key)
		}
		seen[key] = true
		p.space()
		if !p.eat(':') {
			return nil, p.errorf("want ':' after %q", key)
		}
		p.space()
		switch key {
		case "descr":
			if p.peek() == '[' {
				return nil, p.errorf("structured arrays are not supported")
			}
			if h.descr, err = p.str(); err != nil {
				return nil, err
			}
		case "fortran_order":
			switch {
			case p.word("True"):
				h.fortran = true
			case p.word("False"):
			default:
				return nil, p.errorf("fortran_order: want True or False")
			}
		case "shape":
			if h.shape, err = p.tuple(); err != nil {
				return nil, err
			}
		default:
			return nil, p.errorf("unexpected key %q", key)
		}
		p.space()
		if p.eat(',') {
			continue
		}
		p.space()
		if !p.eat('}') {
			return nil, p.errorf("want ',' or '}'")
		}
		break
	}
	for _, c := range p.b[p.i:] {
		if c != ' ' && c != '\n' && c != '\t' && c != '\r' && c != 0 {
			return nil, p.errorf("unexpected bytes after the dict")
		}
	}
	for _, k := range []string{"descr", "fortran_order", "shape"} {
		if !seen[k] {
			return nil, fmt.Errorf("no '%s'", k)
		}
	}
	var err error
	if h.size, h.decode, err = npyType(h.descr); err != nil {
		return nil, err
	}
	return h, nil
}

// npyType returns the element size and decoder of a dtype descriptor such
// as "<f4", ">f8", "|u1".
func npyType(descr string) (int, func([]byte) float64, error) {
	bad := fmt.Errorf("dtype %q not supported (want float32 or float64, an integer type or bool)", descr)
	if len(descr) < 3 {
		return 0, nil, bad
	}
	var order binary.ByteOrder
	switch descr[0] {
	case '<', '|':
		order = binary.LittleEndian
	case '>':
		order = binary.BigEndian
	default:
		return 0, nil, bad
	}
	size, err := strconv.Atoi(descr[2:])
	if err != nil {
		return 0, nil, bad
	}
	if size > 1 && descr[0] == '|' {
		return 0, nil, bad
	}
	switch kind := descr[1]; {
	case kind == 'f' && size == 4:
		return 4, func(b []byte) float64 { return float64(math.Float32frombits(order.Uint32(b))) }, nil
	case kind == 'f' && size == 8:
		return 8, func(b []byte) float64 { return math.Float64frombits(order.Uint64(b)) }, nil
	case kind == 'b' && size == 1:
		return 1, func(b []byte) float64 { return float64(b[0]) }, nil
	case kind == 'u' || kind == 'i':
		signed := kind == 'i'
		switch size {
		case 1:
			if signed {
				return 1, func(b []byte) float64 { return float64(int8(b[0])) }, nil
			}
			return 1, func(b []byte) float64 { return float64(b[0]) }, nil
		case 2:
			if signed {
				return 2, func(b []byte) float64 { return float64(int16(order.Uint16(b))) }, nil
			}
			return 2, func(b []byte) float64 { return float64(order.Uint16(b)) }, nil
		case 4:
			if signed {
				return 4, func(b []byte) float64 { return float64(int32(order.Uint32(b))) }, nil
			}
			return 4, func(b []byte) float64 { return float64(order.Uint32(b)) }, nil
		case 8:
			if signed {
				return 8, func(b []byte) float64 { return float64(int64(order.Uint64(b))) }, nil
			}
			return 8, func(b []byte) float64 { return float64(order.Uint64(b)) }, nil
		}
	}
	return 0, nil, bad
}

// pyParser reads the few Python literals of a .npy header.
type pyParser struct {
	b []byte
	i int
}

func (p *pyParser) errorf(format string, a ...any) error {
	return fmt.Errorf("at header byte %d: %s", p.i, fmt.Sprintf(format, a...))
}

func (p *pyParser) peek() byte {
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

func (p *pyParser) eat(c byte) bool {
	if p.peek() == c && p.i < len(p.b) {
		p.i++
		return true
	}
	return false
}

func (p *pyParser) space() {
	for p.i < len(p.b) && (p.b[p.i] == ' ' || p.b[p.i] == '\t' || p.b[p.i] == '\n' || p.b[p.i] == '\r') {
		p.i++
	}
}

func (p *pyParser) word(w string) bool {
	if bytes.HasPrefix(p.b[p.i:], []byte(w)) {
		p.i += len(w)
		return true
	}
	return false
}

// str reads a quoted string without escapes.
func (p *pyParser) str() (string, error) {
	q := p.peek()
	if q != '\'' && q != '"' {
		return "", p.errorf("want a quoted string")
	}
	end := bytes.IndexByte(p.b[p.i+1:], q)
	if end < 0 {
		return "", p.errorf("unterminated string")
	}
	s := string(p.b[p.i+1 : p.i+1+end])
	p.i += end + 2
	return s, nil
}

// tuple reads a tuple of non-negative integers: (), (3,), (3, 4).
func (p *pyParser) tuple() ([]int, error) {
	if !p.eat('(') {
		return nil, p.errorf("shape: want a tuple")
	}
	var t []int
	for {
		p.space()
		if p.eat(')') {
			return t, nil
		}
		j := p.i
		for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
			p.i++
		}
		v, err := strconv.Atoi(string(p.b[j:p.i]))
		if err != nil || len(t) >= 32 {
			return nil, p.errorf("shape: want non-negative integers")
		}
		t = append(t, v)
		p.space()
		if !p.eat(',') {
			p.space()
			if !p.eat(')') {
				return nil, p.errorf("shape: want ',' or ')'")
			}
			return t, nil
		}
	}
}
