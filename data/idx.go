package data

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// IDX is the content of an IDX file of unsigned bytes (the MNIST format):
// Dims[0] items, each of Dims[1]·Dims[2]·… bytes, in Data.
type IDX struct {
	Dims []int
	Data []uint8
}

// ItemSize is the number of bytes per item: the product of Dims[1:].
func (x *IDX) ItemSize() int {
	n := 1
	for _, d := range x.Dims[1:] {
		n *= d
	}
	return n
}

// MaxIDXBytes bounds the data size an IDX header may declare, so that a
// corrupt header cannot make a reader allocate without limit.
const MaxIDXBytes = 1 << 32

// MaxLabels is the most classes a split file may declare: each class is a
// label unit of a classifier, and a header's count is allocated (its class
// names) before the examples are read.
const MaxLabels = 1 << 16

// ReadIDX reads an IDX file of unsigned bytes (type code 0x08), plain or
// gzip-compressed, from r. name is used in error messages, which give the
// byte offset (of the decompressed stream) where the problem is.
func ReadIDX(r io.Reader, name string) (*IDX, error) {
	in, err := sniff(r, name, lenOf(r))
	if err != nil {
		return nil, err
	}
	return readIDX(in)
}

// ReadIDXFile reads an IDX file of unsigned bytes, plain or gzip.
func ReadIDXFile(path string) (*IDX, error) {
	in, err := openInput(path)
	if err != nil {
		return nil, err
	}
	defer in.close()
	return readIDX(in)
}

func readIDX(in *input) (*IDX, error) {
	name := in.name
	var h [4]byte
	if n, err := io.ReadFull(in.r, h[:]); err != nil {
		if n == 0 && err == io.EOF {
			return nil, fmt.Errorf("%s: byte offset 0: empty file, want an IDX header", name)
		}
		return nil, fmt.Errorf("%s: byte offset %d: truncated IDX header: %w", name, n, unwrapEOF(err))
	}
	if h[0] != 0 || h[1] != 0 {
		return nil, fmt.Errorf("%s: byte offset 0: bad IDX magic % x (want 00 00 08 <dims>)", name, h[:])
	}
	if h[2] != 0x08 {
		return nil, fmt.Errorf("%s: byte offset 2: unsupported IDX element type 0x%02x (only unsigned bytes, 0x08)", name, h[2])
	}
	nd := int(h[3])
	if nd < 1 || nd > 8 {
		return nil, fmt.Errorf("%s: byte offset 3: IDX with %d dimensions (want 1 to 8)", name, nd)
	}
	dimb := make([]byte, 4*nd)
	if n, err := io.ReadFull(in.r, dimb); err != nil {
		return nil, fmt.Errorf("%s: byte offset %d: truncated IDX header (%d dimensions): %w", name, 4+n, nd, unwrapEOF(err))
	}
	dims := make([]int, nd)
	total := int64(1)
	for i := range dims {
		d := binary.BigEndian.Uint32(dimb[4*i:])
		if d == 0 {
			return nil, fmt.Errorf("%s: byte offset %d: IDX dimension %d is 0", name, 4+4*i, i)
		}
		dims[i] = int(d)
		if total > MaxIDXBytes/int64(d) {
			return nil, fmt.Errorf("%s: byte offset %d: IDX dimensions %v declare more than %d bytes", name, 4+4*i, dims[:i+1], int64(MaxIDXBytes))
		}
		total *= int64(d)
	}
	hdr := int64(4 + 4*nd)
	avail := int64(-1)
	if in.size >= 0 {
		avail = in.size - hdr
	}
	data, err := readN(in.r, total, avail)
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: byte offset %d: truncated: header %v declares %d data bytes, file ends after %d",
				name, hdr+int64(len(data)), dims, total, len(data))
		}
		return nil, fmt.Errorf("%s: byte offset %d: %w", name, hdr+int64(len(data)), err)
	}
	// Read on to the end, so that a compressed file's checksum is checked
	// and nothing after the declared data goes unnoticed.
	var one [1]byte
	n, err := io.ReadFull(in.r, one[:])
	if n > 0 {
		return nil, fmt.Errorf("%s: byte offset %d: unexpected data after the %d bytes declared by header %v", name, hdr+total, total, dims)
	}
	if err != io.EOF {
		return nil, fmt.Errorf("%s: byte offset %d: %w", name, hdr+total, err)
	}
	return &IDX{Dims: dims, Data: data}, nil
}

// readN reads exactly n bytes. avail, if ≥ 0, is how many bytes r is expected
// to hold: when it covers n the buffer is allocated once; otherwise it grows
// as data arrives, so a header that lies about the size cannot force a huge
// allocation. On a short read it returns the bytes read and the error.
func readN(r io.Reader, n, avail int64) ([]byte, error) {
	if avail >= n {
		buf := make([]byte, n)
		k, err := io.ReadFull(r, buf)
		return buf[:k], err
	}
	c := min(n, 1<<20)
	buf := make([]byte, 0, c)
	for int64(len(buf)) < n {
		if len(buf) == cap(buf) {
			nb := make([]byte, len(buf), min(n, 2*int64(cap(buf))))
			copy(nb, buf)
			buf = nb
		}
		k, err := io.ReadFull(r, buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+k]
		if err != nil {
			return buf, err
		}
	}
	return buf, nil
}

func unwrapEOF(err error) error {
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		return errors.New("unexpected end of file")
	}
	return err
}

// IDXLabels converts a one-dimensional IDX file to labels. Classes are
// 0..max label; their names are the decimal values.
func IDXLabels(x *IDX, name string) (labels []int32, numClasses int, names []string, err error) {
	if len(x.Dims) != 1 {
		return nil, 0, nil, fmt.Errorf("%s: labels file has dimensions %v, want one dimension", name, x.Dims)
	}
	labels = make([]int32, len(x.Data))
	mx := 0
	for i, v := range x.Data {
		labels[i] = int32(v)
		mx = max(mx, int(v))
	}
	names = make([]string, mx+1)
	for k := range names {
		names[k] = strconv.Itoa(k)
	}
	return labels, mx + 1, names, nil
}
