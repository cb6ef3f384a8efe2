package eval

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// binOrder is a byte order that can also append.
type binOrder interface {
	binary.ByteOrder
	binary.AppendByteOrder
}

// matVar is a variable for the test writer: a column-major double array.
type matVar struct {
	name  string
	dims  []int32
	data  []float64
	class uint32 // 0: double
	typ   uint32 // storage type of the real part (0: miDOUBLE)
}

// element returns a data element with tag, padded to 8 bytes; small ones
// (≤ 4 bytes) use the small data element format when small is set.
func element(bo binOrder, typ uint32, data []byte, small bool) []byte {
	var b []byte
	if small && len(data) <= 4 {
		b = bo.AppendUint32(b, uint32(len(data))<<16|typ)
		b = append(b, data...)
		return append(b, make([]byte, 4-len(data))...)
	}
	b = bo.AppendUint32(b, typ)
	b = bo.AppendUint32(b, uint32(len(data)))
	b = append(b, data...)
	for len(b)%8 != 0 {
		b = append(b, 0)
	}
	return b
}

// writeMAT builds a MAT v5 file.
func writeMAT(bo binOrder, compress bool, vars ...matVar) []byte {
	hdr := make([]byte, 128)
	copy(hdr, "MATLAB 5.0 MAT-file, test")
	for k := 25; k < 116; k++ {
		hdr[k] = ' '
	}
	bo.PutUint16(hdr[124:], 0x0100)
	if bo == binOrder(binary.LittleEndian) {
		copy(hdr[126:], "IM")
	} else {
		copy(hdr[126:], "MI")
	}
	out := hdr
	for _, v := range vars {
		class := v.class
		if class == 0 {
			class = mxDOUBLE
		}
		typ := v.typ
		if typ == 0 {
			typ = miDOUBLE
		}
		var body []byte
		body = append(body, element(bo, miUINT32, bo.AppendUint32(bo.AppendUint32(nil, class), 0), false)...)
		var dims []byte
		for _, d := range v.dims {
			dims = bo.AppendUint32(dims, uint32(d))
		}
		body = append(body, element(bo, miINT32, dims, false)...)
		body = append(body, element(bo, miINT8, []byte(v.name), true)...)
		var re []byte
		for _, x := range v.data {
			switch typ {
			case miDOUBLE:
				re = bo.AppendUint64(re, math.Float64bits(x))
			case miSINGLE:
				re = bo.AppendUint32(re, math.Float32bits(float32(x)))
			case miUINT8:
				re = append(re, uint8(x))
			case miINT16:
				re = bo.AppendUint16(re, uint16(int16(x)))
			}
		}
		body = append(body, element(bo, typ, re, true)...)
		mat := element(bo, miMATRIX, body, false)
		if compress {
			var z bytes.Buffer
			zw := zlib.NewWriter(&z)
			zw.Write(mat)
			zw.Close()
			mat = bo.AppendUint32(bo.AppendUint32(nil, miCOMPRESSED), uint32(z.Len()))
			mat = append(mat, z.Bytes()...)
		}
		out = append(out, mat...)
	}
	return out
}

func TestParseMATRoundTrip(t *testing.T) {
	// A is 2×3 column-major: rows (1 2 3), (4 5 6).
	a := matVar{name: "A", dims: []int32{2, 3}, data: []float64{1, 4, 2, 5, 3, 6}}
	s := matVar{name: "scalar", dims: []int32{1, 1}, data: []float64{-2.5}, class: 7, typ: miSINGLE}
	u := matVar{name: "bytes", dims: []int32{1, 3}, data: []float64{0, 7, 255}, class: 9, typ: miUINT8}
	i16 := matVar{name: "i16", dims: []int32{1, 2}, data: []float64{-300, 2}, class: 10, typ: miINT16}
	e := matVar{name: "empty", dims: []int32{0, 0}}
	c3 := matVar{name: "cube", dims: []int32{2, 1, 2}, data: []float64{1, 2, 3, 4}}
	str := matVar{name: "text", dims: []int32{1, 2}, data: []float64{65, 66}, class: 4, typ: miUINT8}
	for _, bo := range []binOrder{binary.LittleEndian, binary.BigEndian} {
		for _, z := range []bool{false, true} {
			vars, err := ParseMAT(writeMAT(bo, z, a, s, u, i16, e, c3, str))
			if err != nil {
				t.Fatalf("%v compressed=%v: %v", bo, z, err)
			}
			A := vars["A"]
			if A.Rows != 2 || A.Cols != 3 || A.At(0, 2) != 3 || A.At(1, 0) != 4 {
				t.Errorf("%v compressed=%v: A = %+v", bo, z, A)
			}
			if v := vars["scalar"]; v.Rows != 1 || v.Data[0] != -2.5 {
				t.Errorf("scalar = %+v", v)
			}
			if v := vars["bytes"]; v.Data[2] != 255 {
				t.Errorf("bytes = %+v", v)
			}
			if v := vars["i16"]; v.Data[0] != -300 {
				t.Errorf("i16 = %+v", v)
			}
			if v, ok := vars["empty"]; !ok || v.Rows != 0 || len(v.Data) != 0 {
				t.Errorf("empty = %+v %v", v, ok)
			}
			if v := vars["cube"]; v.Rows != 2 || v.Cols != 2 || v.At(1, 1) != 4 || v.At(0, 1) != 3 {
				t.Errorf("cube = %+v", v)
			}
			if _, ok := vars["text"]; ok {
				t.Error("char array was read as numeric")
			}
		}
	}
}

func TestReadMATErrors(t *testing.T) {
	dir := t.TempDir()
	good := writeMAT(binary.LittleEndian, false, matVar{name: "A", dims: []int32{2, 2}, data: []float64{1, 2, 3, 4}})
	cases := map[string]struct {
		b    []byte
		want string
	}{
		"short":     {good[:100], "shorter than the 128-byte"},
		"endian":    {append(append([]byte{}, good[:126]...), append([]byte("XX"), good[128:]...)...), "endian"},
		"truncated": {good[:len(good)-9], "claims"},
		"v73":       {append([]byte("MATLAB 7.3 MAT-file"), make([]byte, 200)...), "HDF5"},
		"dup": {writeMAT(binary.LittleEndian, false, matVar{name: "A", dims: []int32{1, 1}, data: []float64{1}},
			matVar{name: "A", dims: []int32{1, 1}, data: []float64{2}}), "twice"},
		"count": {writeMAT(binary.LittleEndian, false, matVar{name: "A", dims: []int32{3, 3}, data: []float64{1, 2}}), "want 9 values"},
	}
	for name, c := range cases {
		p := filepath.Join(dir, name+".mat")
		if err := os.WriteFile(p, c.b, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadMAT(p)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %v; want one naming the file and containing %q", name, err, c.want)
		}
	}
	if _, err := ReadMAT(filepath.Join(dir, "missing.mat")); err == nil {
		t.Error("missing file accepted")
	}
	// A model file with a wrongly shaped bias.
	p := filepath.Join(dir, "model.mat")
	os.WriteFile(p, writeMAT(binary.LittleEndian, true,
		matVar{name: "vishid", dims: []int32{3, 2}, data: make([]float64, 6)},
		matVar{name: "visbiases", dims: []int32{1, 2}, data: make([]float64, 2)},
		matVar{name: "hidbiases", dims: []int32{1, 2}, data: make([]float64, 2)}), 0o644)
	if _, err := LoadMATModel(p); err == nil || !strings.Contains(err.Error(), "visbiases is 1×2") {
		t.Errorf("bad bias shape: %v", err)
	}
}

func TestLoadMATModel(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "rbm.mat")
	// vishid 3×2 column-major: rows (1 2), (3 4), (5 6).
	os.WriteFile(p, writeMAT(binary.LittleEndian, true,
		matVar{name: "vishid", dims: []int32{3, 2}, data: []float64{1, 3, 5, 2, 4, 6}},
		matVar{name: "visbiases", dims: []int32{1, 3}, data: []float64{0.1, 0.2, 0.3}},
		matVar{name: "hidbiases", dims: []int32{2, 1}, data: []float64{-1, -2}}), 0o644)
	m, err := LoadMATModel(p)
	if err != nil {
		t.Fatal(err)
	}
	if m.X != 3 || m.H != 2 || m.C[1*2+0] != 3 || m.C[2*2+1] != 6 || m.HiddenBias[1] != -2 || m.VisibleBias[2] != 0.3 {
		t.Errorf("model %+v", m)
	}
}

// TestReadMATReference reads the published CD-25 model.
func TestReadMATReference(t *testing.T) {
	m := loadCD25(t)
	if m.X != 784 || m.H != 500 {
		t.Fatalf("CD-25 model is %d×%d, want 784×500", m.X, m.H)
	}
	var s float64
	for _, v := range m.C {
		s += math.Abs(float64(v))
	}
	if s == 0 {
		t.Error("all weights zero")
	}
}

func FuzzReadMAT(f *testing.F) {
	f.Add(writeMAT(binary.LittleEndian, false, matVar{name: "A", dims: []int32{2, 2}, data: []float64{1, 2, 3, 4}}))
	f.Add(writeMAT(binary.BigEndian, true, matVar{name: "b", dims: []int32{1, 3}, data: []float64{1, 2, 3}, class: 9, typ: miUINT8}))
	f.Fuzz(func(t *testing.T, b []byte) {
		vars, err := ParseMAT(b)
		if err != nil {
			return
		}
		for name, v := range vars {
			if v.Rows*v.Cols != len(v.Data) {
				t.Fatalf("%s: %d×%d with %d values", name, v.Rows, v.Cols, len(v.Data))
			}
		}
	})
}
