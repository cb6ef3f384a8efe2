package data

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/sbinet/npyio/npy"
	"gonum.org/v1/gonum/mat"
)

// npyBytes makes a version-1 .npy file: magic, version, header length, the
// header dict padded with spaces and a newline to a multiple of 16 bytes,
// then data.
func npyBytes(dict string, data []byte) []byte {
	h := dict
	for (10+len(h)+1)%16 != 0 {
		h += " "
	}
	h += "\n"
	b := append([]byte("\x93NUMPY\x01\x00"), byte(len(h)), byte(len(h)>>8))
	return append(append(b, h...), data...)
}

func TestReadNPY(t *testing.T) {
	// A 2×2 array of little-endian float64, written out by hand:
	// 1.5 = 0x3ff8000000000000, −2 = 0xc000000000000000,
	// 0.25 = 0x3fd0000000000000, 3 = 0x4008000000000000.
	f8 := []byte{
		0, 0, 0, 0, 0, 0, 0xf8, 0x3f, 0, 0, 0, 0, 0, 0, 0, 0xc0,
		0, 0, 0, 0, 0, 0, 0xd0, 0x3f, 0, 0, 0, 0, 0, 0, 0x08, 0x40,
	}
	good := npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }", f8)
	// Header: 10 bytes, the 60-byte dict, 9 spaces and a newline (70 = 0x46).
	if len(good) != 80+32 || !bytes.HasPrefix(good, []byte("\x93NUMPY\x01\x00\x46\x00{'descr'")) {
		t.Fatalf("hand-made file: %d bytes %q", len(good), good[:20])
	}
	for _, b := range [][]byte{good, gz(good)} {
		s, err := ReadNPY(bytes.NewReader(b), "a.npy")
		if err != nil {
			t.Fatal(err)
		}
		if s.N != 2 || s.D != 2 || !slices.Equal(s.Real, []float32{1.5, -2, 0.25, 3}) || s.Validate() != nil ||
			!strings.Contains(s.Source, ".npy a.npy (2×2 <f8)") {
			t.Errorf("%+v", s)
		}
	}
	// The same values in Fortran order (column by column), big-endian
	// float32: 1.5 = 0x3fc00000, 0.25 = 0x3e800000, −2 = 0xc0000000, 3 = 0x40400000.
	f4 := []byte{0x3f, 0xc0, 0, 0, 0x3e, 0x80, 0, 0, 0xc0, 0, 0, 0, 0x40, 0x40, 0, 0}
	s, err := ReadNPY(bytes.NewReader(npyBytes(`{"shape":(2,2,),"fortran_order":True,"descr":">f4"}`, f4)), "b.npy")
	if err != nil || !slices.Equal(s.Real, []float32{1.5, -2, 0.25, 3}) {
		t.Errorf("Fortran big-endian f4: %v %v", s, err)
	}
	// Integers: uint8 and little-endian int16 (−1 = 0xffff).
	s, err = ReadNPY(bytes.NewReader(npyBytes("{'descr': '|u1', 'fortran_order': False, 'shape': (1, 3), }", []byte{0, 7, 255})), "u.npy")
	if err != nil || !slices.Equal(s.Real, []float32{0, 7, 255}) {
		t.Errorf("u1: %v %v", s, err)
	}
	s, err = ReadNPY(bytes.NewReader(npyBytes("{'descr': '<i2', 'fortran_order': False, 'shape': (1, 2), }", []byte{0xff, 0xff, 2, 1})), "i.npy")
	if err != nil || !slices.Equal(s.Real, []float32{-1, 258}) {
		t.Errorf("i2: %v %v", s, err)
	}
	// Bool: the bytes 0 and 1; any other byte is a damaged file, named by
	// its offset (80 bytes of header, then the third element).
	b1 := "{'descr': '|b1', 'fortran_order': False, 'shape': (1, 3), }"
	if s, err := ReadNPY(bytes.NewReader(npyBytes(b1, []byte{1, 0, 1})), "b.npy"); err != nil || !slices.Equal(s.Real, []float32{1, 0, 1}) {
		t.Errorf("b1: %v %v", s, err)
	}
	if len(npyBytes(b1, nil)) != 80 {
		t.Fatalf("bool header: %d bytes, want 80", len(npyBytes(b1, nil)))
	}
	if _, err := ReadNPY(bytes.NewReader(npyBytes(b1, []byte{1, 0, 255})), "b.npy"); err == nil ||
		!strings.Contains(err.Error(), "b.npy: byte offset 82: byte 255 in a bool array") {
		t.Errorf("bool byte 255: %v", err)
	}
	// Version 2 (a 4-byte header length).
	v2 := append([]byte("\x93NUMPY\x02\x00\x3e\x00\x00\x00"), "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1), }\n  "...)
	v2 = append(v2, 0, 0, 0, 0, 0, 0, 0xf8, 0x3f)
	if s, err := ReadNPY(bytes.NewReader(v2), "v2.npy"); err != nil || !slices.Equal(s.Real, []float32{1.5}) {
		t.Errorf("version 2: %v %v", s, err)
	}
	// A file written by npyio (another implementation of the format).
	var buf bytes.Buffer
	m := mat.NewDense(3, 2, []float64{0.1, 2, -3, 4e-5, 5, 6})
	if err := npy.Write(&buf, m); err != nil {
		t.Fatal(err)
	}
	if s, err := ReadNPY(&buf, "npyio.npy"); err != nil || !slices.Equal(s.Real, []float32{0.1, 2, -3, 4e-5, 5, 6}) {
		t.Errorf("npyio's file: %v %v", s, err)
	}

	hdr := func(dict string) []byte { return npyBytes(dict, nil) }
	bad := []struct {
		name string
		b    []byte
		want string
	}{
		{"empty", nil, "byte offset 0: empty file"},
		{"magic", []byte("\x93NUMPZ\x01\x00"), "byte offset 0: bad .npy magic"},
		{"short", []byte("\x93NUM"), "byte offset 4: truncated .npy header"},
		{"version", []byte("\x93NUMPY\x04\x00\x00\x00"), "byte offset 6: unsupported .npy version 4.0"},
		{"long header", []byte("\x93NUMPY\x02\x00\xff\xff\xff\xff"), "byte offset 8: .npy header of 4294967295 bytes"},
		{"short header", []byte("\x93NUMPY\x01\x00\x40\x00{'descr'"), "byte offset 18: truncated .npy header (64 bytes declared)"},
		{"no dict", hdr("[1, 2]"), "byte offset 10: .npy header: at header byte 0: want '{'"},
		{"missing key", hdr("{'descr': '<f8', 'shape': (1, 1)}"), "no 'fortran_order'"},
		{"extra key", hdr("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1), 'x': 1}"), "unexpected key \"x\""},
		{"repeated key", hdr("{'descr': '<f8', 'descr': '<f8'}"), "key \"descr\" repeated"},
		{"order", hdr("{'descr': '<f8', 'fortran_order': 0, 'shape': (1, 1)}"), "fortran_order: want True or False"},
		{"string", hdr("{'descr: '<f8'}"), "want ':' after"},
		{"unterminated", hdr("{'descr': '<f8"), "unterminated string"},
		{"shape", hdr("{'descr': '<f8', 'fortran_order': False, 'shape': (1, -1)}"), "shape: want non-negative integers"},
		{"shape tuple", hdr("{'descr': '<f8', 'fortran_order': False, 'shape': [1, 1]}"), "shape: want a tuple"},
		{"after dict", hdr("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1)} x"), "unexpected bytes after the dict"},
		{"structured", hdr("{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (1, 1)}"), "structured arrays are not supported"},
		{"complex", hdr("{'descr': '<c16', 'fortran_order': False, 'shape': (1, 1)}"), "dtype \"<c16\" not supported"},
		{"native", hdr("{'descr': '=f8', 'fortran_order': False, 'shape': (1, 1)}"), "dtype \"=f8\" not supported"},
		{"1-D", hdr("{'descr': '<f8', 'fortran_order': False, 'shape': (4,)}"), "shape [4]: want a 2-D array"},
		{"3-D", hdr("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2, 3)}"), "shape [1 2 3]: want a 2-D array"},
		{"no rows", hdr("{'descr': '<f8', 'fortran_order': False, 'shape': (0, 3)}"), "want at least one row"},
		{"huge", hdr("{'descr': '<f8', 'fortran_order': False, 'shape': (100000000000, 100000000000)}"), "holds more than 268435456 values"},
		{"just too big", hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (268435457, 1)}"), "holds more than"},
		{"truncated", npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }", f8[:20]),
			"byte offset 100: truncated: shape [2 2] of <f8 declares 32 data bytes, file ends after 20"},
		{"trailing", append(slices.Clone(good), 0), "byte offset 112: unexpected data after the 32 bytes"},
		{"NaN", npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2), }", []byte{0, 0, 0, 0, 0, 0, 0xf8, 0x3f, 1, 0, 0, 0, 0, 0, 0xf8, 0x7f}),
			"byte offset 88: value NaN is not finite"},
		{"float32 overflow", npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1), }", []byte{0, 0, 0, 0, 0, 0, 0xf0, 0x6f}), // 2⁷⁶⁸
			"row 0 unit 0: value 1.552518092300709e+231 is out of float32 range"},
	}
	for _, c := range bad {
		_, err := ReadNPY(bytes.NewReader(c.b), "x.npy")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "x.npy: ") {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
	// A size hint that covers the data is used; one that does not (a
	// reader without Len) grows the buffer as data arrives.
	if s, err := ReadNPY(struct{ *bytes.Reader }{bytes.NewReader(good)}, "a.npy"); err != nil || s.N != 2 {
		t.Errorf("without a size: %v %v", s, err)
	}
}
