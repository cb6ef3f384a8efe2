package eval

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
)

// Matrix is a real numeric array read from a MAT file, converted to float64
// and stored row-major (the file stores it column-major). An array with more
// than two dimensions has Cols = the product of its trailing dimensions, as
// MATLAB's reshape(A, size(A,1), []).
type Matrix struct {
	Rows, Cols int
	Data       []float64
}

// At returns element (i, j).
func (a Matrix) At(i, j int) float64 { return a.Data[i*a.Cols+j] }

// MAT v5 data types and array classes (MATLAB "MAT-File Format", 2024).
const (
	miINT8       = 1
	miUINT8      = 2
	miINT16      = 3
	miUINT16     = 4
	miINT32      = 5
	miUINT32     = 6
	miSINGLE     = 7
	miDOUBLE     = 9
	miINT64      = 12
	miUINT64     = 13
	miMATRIX     = 14
	miCOMPRESSED = 15

	mxDOUBLE = 6
	mxUINT64 = 15

	matFlagComplex = 0x0800

	// matMaxInflate caps the size of one decompressed variable (1 GiB), so a
	// malicious file cannot exhaust memory.
	matMaxInflate = 1 << 30
)

// ReadMAT reads the real numeric variables (double, single and integer
// classes, logical included) of a MATLAB v5 MAT file, compressed (v7) or
// not. Variables of other kinds (char, cell, struct, sparse, complex,
// objects) are skipped. Errors name the file and the problem.
func ReadMAT(path string) (map[string]Matrix, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("eval: read MAT file: %w", err)
	}
	vars, err := ParseMAT(b)
	if err != nil {
		return nil, fmt.Errorf("eval: MAT file %s: %w", path, err)
	}
	return vars, nil
}

// ParseMAT is ReadMAT on the bytes of a file.
func ParseMAT(b []byte) (map[string]Matrix, error) {
	if len(b) < 128 {
		return nil, fmt.Errorf("file is %d bytes, shorter than the 128-byte MAT v5 header", len(b))
	}
	if bytes.HasPrefix(b, []byte("MATLAB 7.3")) {
		return nil, errors.New("MAT v7.3 files are HDF5; save with -v7 or -v6")
	}
	var bo binary.ByteOrder
	switch string(b[126:128]) {
	case "IM":
		bo = binary.LittleEndian
	case "MI":
		bo = binary.BigEndian
	default:
		return nil, fmt.Errorf("bad endian indicator %q at offset 126: not a MAT v5 file", b[126:128])
	}
	if v := bo.Uint16(b[124:126]); v != 0x0100 {
		return nil, fmt.Errorf("unsupported MAT version 0x%04x (want 0x0100)", v)
	}
	p := matParser{bo: bo, vars: map[string]Matrix{}}
	if err := p.elements(b[128:], 128, true); err != nil {
		return nil, err
	}
	return p.vars, nil
}

type matParser struct {
	bo   binary.ByteOrder
	vars map[string]Matrix
}

// tag reads a data element tag at the start of b: its type, its data and
// the total number of bytes the element occupies (with padding).
func (p *matParser) tag(b []byte, off int) (typ uint32, data []byte, size int, err error) {
	if len(b) < 8 {
		return 0, nil, 0, fmt.Errorf("offset %d: truncated data element tag (%d bytes left)", off, len(b))
	}
	w := p.bo.Uint32(b)
	if w>>16 != 0 { // small data element: 2-byte size, 2-byte type, 4 bytes of data
		n := int(w >> 16)
		if n > 4 {
			return 0, nil, 0, fmt.Errorf("offset %d: small data element claims %d bytes (at most 4)", off, n)
		}
		return w & 0xffff, b[4 : 4+n], 8, nil
	}
	n := uint64(p.bo.Uint32(b[4:]))
	if n > uint64(len(b)-8) {
		return 0, nil, 0, fmt.Errorf("offset %d: data element of type %d claims %d bytes, only %d left", off, w, n, len(b)-8)
	}
	size = 8 + int(n)
	if w != miCOMPRESSED {
		size = min(len(b), (size+7)&^7)
	}
	return w, b[8 : 8+n], size, nil
}

// elements parses a sequence of top-level data elements.
func (p *matParser) elements(b []byte, off int, top bool) error {
	for len(b) > 0 {
		if top && len(b) < 8 && allZero(b) {
			return nil // trailing padding
		}
		typ, data, size, err := p.tag(b, off)
		if err != nil {
			return err
		}
		switch typ {
		case miCOMPRESSED:
			if !top {
				return fmt.Errorf("offset %d: nested compressed element", off)
			}
			zr, err := zlib.NewReader(bytes.NewReader(data))
			if err != nil {
				return fmt.Errorf("offset %d: compressed element: %w", off, err)
			}
			raw, err := io.ReadAll(io.LimitReader(zr, matMaxInflate+1))
			if err != nil {
				return fmt.Errorf("offset %d: compressed element: %w", off, err)
			}
			if len(raw) > matMaxInflate {
				return fmt.Errorf("offset %d: compressed element inflates to more than %d bytes", off, matMaxInflate)
			}
			if err := p.elements(raw, 0, false); err != nil {
				return fmt.Errorf("in compressed element at offset %d: %w", off, err)
			}
		case miMATRIX:
			if err := p.matrix(data, off+8); err != nil {
				return err
			}
		default:
			// Other top-level elements carry nothing we read.
		}
		b = b[size:]
		off += size
	}
	return nil
}

func allZero(b []byte) bool {
	for _, v := range b {
		if v != 0 {
			return false
		}
	}
	return true
}

// matrix parses the contents of one miMATRIX element.
func (p *matParser) matrix(b []byte, off int) error {
	if len(b) == 0 {
		return nil // an empty miMATRIX: MATLAB writes these for empty cells
	}
	// Array flags.
	typ, data, size, err := p.tag(b, off)
	if err != nil {
		return err
	}
	if typ != miUINT32 || len(data) != 8 {
		return fmt.Errorf("offset %d: array flags: want 8 bytes of type miUINT32, have %d bytes of type %d", off, len(data), typ)
	}
	flags := p.bo.Uint32(data)
	class := flags & 0xff
	b, off = b[size:], off+size
	// Dimensions.
	typ, data, size, err = p.tag(b, off)
	if err != nil {
		return err
	}
	if typ != miINT32 || len(data) < 8 || len(data)%4 != 0 {
		return fmt.Errorf("offset %d: dimensions: want at least 2 miINT32 values, have %d bytes of type %d", off, len(data), typ)
	}
	dims := make([]int, len(data)/4)
	count := 1
	for k := range dims {
		d := int32(p.bo.Uint32(data[4*k:]))
		if d < 0 {
			return fmt.Errorf("offset %d: negative dimension %d", off, d)
		}
		dims[k] = int(d)
		if d != 0 && count > math.MaxInt32/int(d) {
			return fmt.Errorf("offset %d: array dimensions %v are too large", off, dims[:k+1])
		}
		count *= int(d)
	}
	b, off = b[size:], off+size
	// Name.
	typ, data, size, err = p.tag(b, off)
	if err != nil {
		return err
	}
	if typ != miINT8 && typ != miUTF8 {
		return fmt.Errorf("offset %d: array name has type %d, want miINT8", off, typ)
	}
	name := string(data)
	b, off = b[size:], off+size
	if class < mxDOUBLE || class > mxUINT64 || flags&matFlagComplex != 0 {
		return nil // not a real numeric array: skip
	}
	if name == "" {
		return fmt.Errorf("offset %d: numeric array without a name", off)
	}
	if _, dup := p.vars[name]; dup {
		return fmt.Errorf("variable %q appears twice", name)
	}
	typ, data, _, err = p.tag(b, off)
	if err != nil {
		return fmt.Errorf("variable %q: real part: %w", name, err)
	}
	vals, err := p.numbers(typ, data, count)
	if err != nil {
		return fmt.Errorf("variable %q (dimensions %v) at offset %d: %w", name, dims, off, err)
	}
	rows := dims[0]
	cols := 0
	if rows > 0 {
		cols = count / rows
	} else {
		cols = 1
		for _, d := range dims[1:] {
			cols *= d
		}
	}
	// Column-major to row-major.
	m := Matrix{Rows: rows, Cols: cols, Data: make([]float64, count)}
	for j := 0; j < cols; j++ {
		for i := 0; i < rows; i++ {
			m.Data[i*cols+j] = vals[j*rows+i]
		}
	}
	p.vars[name] = m
	return nil
}

const miUTF8 = 16

// numbers converts count values of MAT type typ to float64.
func (p *matParser) numbers(typ uint32, b []byte, count int) ([]float64, error) {
	var w int
	switch typ {
	case miINT8, miUINT8:
		w = 1
	case miINT16, miUINT16:
		w = 2
	case miINT32, miUINT32, miSINGLE:
		w = 4
	case miDOUBLE, miINT64, miUINT64:
		w = 8
	default:
		return nil, fmt.Errorf("real part has unsupported data type %d", typ)
	}
	if len(b) != count*w {
		return nil, fmt.Errorf("real part has %d bytes, want %d values × %d bytes = %d", len(b), count, w, count*w)
	}
	v := make([]float64, count)
	bo := p.bo
	for k := range v {
		e := b[k*w:]
		switch typ {
		case miINT8:
			v[k] = float64(int8(e[0]))
		case miUINT8:
			v[k] = float64(e[0])
		case miINT16:
			v[k] = float64(int16(bo.Uint16(e)))
		case miUINT16:
			v[k] = float64(bo.Uint16(e))
		case miINT32:
			v[k] = float64(int32(bo.Uint32(e)))
		case miUINT32:
			v[k] = float64(bo.Uint32(e))
		case miSINGLE:
			v[k] = float64(math.Float32frombits(bo.Uint32(e)))
		case miDOUBLE:
			v[k] = math.Float64frombits(bo.Uint64(e))
		case miINT64:
			v[k] = float64(int64(bo.Uint64(e)))
		case miUINT64:
			v[k] = float64(bo.Uint64(e))
		}
	}
	return v, nil
}

// LoadMATModel reads an RBM saved by MATLAB in the layout of Salakhutdinov &
// Murray's code: vishid (X×H weights), visbiases (1×X or X×1) and hidbiases
// (1×H or H×1). The weights are converted to float32 with C[j*H+i] =
// vishid(j, i).
func LoadMATModel(path string) (*Model, error) {
	vars, err := ReadMAT(path)
	if err != nil {
		return nil, err
	}
	get := func(name string) (Matrix, error) {
		v, ok := vars[name]
		if !ok {
			return Matrix{}, fmt.Errorf("eval: MAT file %s: no numeric variable %q (an RBM needs vishid, visbiases and hidbiases)", path, name)
		}
		return v, nil
	}
	w, err := get("vishid")
	if err != nil {
		return nil, err
	}
	vb, err := get("visbiases")
	if err != nil {
		return nil, err
	}
	hb, err := get("hidbiases")
	if err != nil {
		return nil, err
	}
	X, H := w.Rows, w.Cols
	if X == 0 || H == 0 {
		return nil, fmt.Errorf("eval: MAT file %s: vishid is %d×%d; want a non-empty X×H matrix", path, X, H)
	}
	isVec := func(a Matrix, n int) bool { return (a.Rows == 1 && a.Cols == n) || (a.Cols == 1 && a.Rows == n) }
	if !isVec(vb, X) {
		return nil, fmt.Errorf("eval: MAT file %s: visbiases is %d×%d; want 1×%d to match vishid (%d×%d)", path, vb.Rows, vb.Cols, X, X, H)
	}
	if !isVec(hb, H) {
		return nil, fmt.Errorf("eval: MAT file %s: hidbiases is %d×%d; want 1×%d to match vishid (%d×%d)", path, hb.Rows, hb.Cols, H, X, H)
	}
	m := &Model{H: H, X: X, C: make([]float32, X*H), HiddenBias: make([]float32, H), VisibleBias: make([]float32, X)}
	for k, v := range w.Data {
		m.C[k] = float32(v)
	}
	for k, v := range hb.Data {
		m.HiddenBias[k] = float32(v)
	}
	for k, v := range vb.Data {
		m.VisibleBias[k] = float32(v)
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("eval: MAT file %s: %w", path, err)
	}
	return m, nil
}
