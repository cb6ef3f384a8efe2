package data

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// storedGz compresses b with no compression: the deflate stream holds b's
// bytes as they are, so flipping one of them changes the content but not
// the stream's structure, and only the trailer's CRC-32 can catch it.
func storedGz(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := gzip.NewWriterLevel(&buf, gzip.NoCompression)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

// flipPayload flips the last bit of the byte of z (a stored gzip stream of
// plain) that holds plain[i].
func flipPayload(t *testing.T, z, plain []byte, i int) []byte {
	t.Helper()
	k := bytes.Index(z, plain)
	if k < 0 {
		t.Fatal("stored gzip stream does not hold its input verbatim")
	}
	out := bytes.Clone(z)
	out[k+i] ^= 1
	return out
}

// TestCompressedInputVerified: every reader of compressed input checks the
// whole gzip stream, its CRC-32 and length included, even when the format
// declares its size (IDX) and the reader could stop before the trailer,
// and refuses data after the stream. Each error names the file.
func TestCompressedInputVerified(t *testing.T) {
	idx := idxBytes([]uint32{3, 4}, []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	libsvm := []byte("1 1:1 3:1\n2 2:1\n1 4:1\n")
	split := []byte("Name: T\nSplit: train set\nNumber of examples: 2\nExample size: 3\n\n1 0 1\n0 1 1\n")
	readers := []struct {
		name  string
		plain []byte
		// flip is the index in plain of a byte whose changed value the
		// format still accepts
		flip int
		read func(path string) error
	}{
		{"idx", idx, len(idx) - 1, func(p string) error { _, err := ReadIDXFile(p); return err }},
		{"libsvm", libsvm, 0, func(p string) error { _, err := ReadLIBSVMFile(p, 0); return err }},
		{"split", split, len(split) - 2, func(p string) error { _, _, err := ReadSplitFile(p); return err }},
		{"load", idx, len(idx) - 1, func(p string) error { _, err := LoadFile(p, Options{}); return err }},
		{"md5", idx, len(idx) - 1, func(p string) error { _, err := md5File(p, true); return err }},
	}
	dir := t.TempDir()
	for _, r := range readers {
		z := storedGz(t, r.plain)
		multi := append(storedGz(t, r.plain[:5]), storedGz(t, r.plain[5:])...)
		cases := []struct {
			name string
			b    []byte
			want string // "" for success
		}{
			{"intact", z, ""},
			{"two members", multi, ""}, // gzip -c a b > c.gz is one file
			{"payload byte flipped", flipPayload(t, z, r.plain, r.flip), "checksum"},
			{"CRC changed", append(bytes.Clone(z[:len(z)-8]), z[len(z)-8]^0xff, z[len(z)-7], z[len(z)-6], z[len(z)-5], z[len(z)-4], z[len(z)-3], z[len(z)-2], z[len(z)-1]), "checksum"},
			{"length changed", append(bytes.Clone(z[:len(z)-4]), z[len(z)-4]+1, z[len(z)-3], z[len(z)-2], z[len(z)-1]), "checksum"},
			{"trailer cut", z[:len(z)-3], "truncated"},
			{"data after the stream", append(bytes.Clone(z), "junk after the end, long enough"...), "data after the end of the gzip stream"},
			{"a byte after the stream", append(bytes.Clone(z), 0), "data after the end of the gzip stream"},
		}
		for _, c := range cases {
			path := filepath.Join(dir, r.name+"-"+strings.ReplaceAll(c.name, " ", "-")+".gz")
			if err := os.WriteFile(path, c.b, 0o644); err != nil {
				t.Fatal(err)
			}
			err := r.read(path)
			switch {
			case c.want == "" && err != nil:
				t.Errorf("%s, %s: %v", r.name, c.name, err)
			case c.want != "" && err == nil:
				t.Errorf("%s, %s: read without error", r.name, c.name)
			case c.want != "" && (!strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path)):
				t.Errorf("%s, %s: err = %v, want %q and the file name", r.name, c.name, err, c.want)
			}
		}
	}
	// The readers of an io.Reader check the stream the same way.
	z := flipPayload(t, storedGz(t, idx), idx, len(idx)-1)
	if _, err := ReadIDX(bytes.NewReader(z), "x.idx.gz"); err == nil || !strings.Contains(err.Error(), "x.idx.gz") {
		t.Errorf("ReadIDX of a corrupt stream: %v", err)
	}
}
