package data

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// gzipMagic is the first two bytes of every gzip stream.
var gzipMagic = [2]byte{0x1f, 0x8b}

// input is an opened, possibly decompressed, data source.
type input struct {
	r    io.Reader // decompressed bytes
	name string    // file name for error messages
	gz   bool      // the source was gzip-compressed
	// size is the number of decompressed bytes if known (a plain file's or
	// in-memory reader's length, or a gzip trailer's ISIZE when the
	// compressed size is known), else −1. It is only a hint for allocation.
	size  int64
	close func() error
}

// sniff wraps r, decompressing it if it starts with the gzip magic.
// size is r's length if known, else −1.
func sniff(r io.Reader, name string, size int64) (*input, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	head, err := br.Peek(2)
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	in := &input{r: br, name: name, size: size, close: func() error { return nil }}
	if len(head) == 2 && head[0] == gzipMagic[0] && head[1] == gzipMagic[1] {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%s: gzip header: %w", name, err)
		}
		zr.Multistream(false)
		in.r = &gzipStream{zr: zr, br: br}
		in.gz = true
		in.size = -1
	}
	return in, nil
}

// gzipStream decompresses a whole gzip file: one member or several in a
// row (as "gzip -c a b" writes them), each checked against the CRC-32 and
// length of its trailer, and nothing after the last. It reports io.EOF only
// at the end of a stream so checked. Its errors do not name the file: the
// readers add the name and the place.
type gzipStream struct {
	zr  *gzip.Reader
	br  *bufio.Reader // the compressed bytes, positioned after the member read so far
	err error         // sticky
}

func (g *gzipStream) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	for {
		n, err := g.zr.Read(p)
		if err == nil {
			return n, nil
		}
		if err != io.EOF { // the member is corrupt or cut short
			switch {
			case err == io.ErrUnexpectedEOF:
				err = fmt.Errorf("decompressing: gzip stream truncated: %w", err)
			case errors.Is(err, gzip.ErrChecksum):
				err = fmt.Errorf("decompressing: the content does not match the gzip trailer's checksum and length (the file is corrupt): %w", err)
			default:
				err = fmt.Errorf("decompressing: %w", err)
			}
			g.err = err
			return n, err
		}
		// The member ended and its trailer matched: end of file, another
		// member, or data that does not belong to the stream.
		head, perr := g.br.Peek(2)
		switch {
		case len(head) == 0 && perr == io.EOF:
			g.err = io.EOF
		case len(head) == 2 && head[0] == gzipMagic[0] && head[1] == gzipMagic[1]:
			if rerr := g.zr.Reset(g.br); rerr != nil {
				g.err = fmt.Errorf("decompressing: gzip header of a further member: %w", rerr)
			} else {
				g.zr.Multistream(false)
			}
		case perr != nil && perr != io.EOF:
			g.err = fmt.Errorf("decompressing: %w", perr)
		default:
			g.err = errors.New("unexpected data after the end of the gzip stream")
		}
		if g.err != nil || n > 0 {
			return n, g.err
		}
	}
}

// lenOf returns the remaining length of in-memory readers, else −1.
func lenOf(r io.Reader) int64 {
	if l, ok := r.(interface{ Len() int }); ok {
		return int64(l.Len())
	}
	return -1
}

// openInput opens path for reading, decompressing gzip. The caller must
// call in.close.
func openInput(path string) (*input, error) {
	f, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	size := int64(-1)
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		size = st.Size()
	}
	isize := int64(-1)
	if size >= 20 { // gzip trailer: CRC32, ISIZE (uncompressed size mod 2³²)
		var t [4]byte
		if _, err := f.ReadAt(t[:], size-4); err == nil {
			isize = int64(binary.LittleEndian.Uint32(t[:]))
		}
	}
	in, err := sniff(f, path, size)
	if err != nil {
		f.Close()
		return nil, err
	}
	if in.gz {
		in.size = isize
	}
	in.close = f.Close
	return in, nil
}

// openRegular opens path for reading, refusing anything but a regular
// file (or a link to one): a FIFO without a writer blocks open(2) for
// ever, a device or a FIFO can block a read, and a data file is read more
// than once (its format is detected, then it is read). It opens without
// blocking, so that a FIFO is refused at once rather than waited on.
func openRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = NotRegularError(path, st.Mode())
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// NotRegularError is the error of a data path that names something other
// than a regular file (of mode m): a directory, a FIFO, a device or a
// socket.
func NotRegularError(path string, m fs.FileMode) error {
	what := "not a regular file"
	switch {
	case m.IsDir():
		what = "a directory"
	case m&fs.ModeNamedPipe != 0:
		what = "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		what = "a socket"
	case m&fs.ModeDevice != 0:
		what = "a device"
	}
	return fmt.Errorf("%s is %s, not a regular file: data are read from regular files", path, what)
}
