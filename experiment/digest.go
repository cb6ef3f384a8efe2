package experiment

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"math"
	"os"
	"path/filepath"

	"github.com/ncg-rbm/ncg/data"
)

// DataDigest is what a run directory records of the data its run trains
// on (config.json's data_digest): the SHA-256 of the training set and of
// the test set as loaded. A digest is of the rows, not of the files: two
// paths to the same bytes (relative and absolute, a symbolic link, a
// copy) have one digest, and so has a built-in set whatever its files
// (the paper's split files or a seeded split of the LIBSVM file differ,
// and so do their digests). It covers each set's shape, its values
// (binary bytes, or real values with the scaling that made them), its
// labels and categorical groups; not its name or where it came from.
type DataDigest struct {
	Train string `json:"train"`
	Test  string `json:"test,omitempty"`
}

// digestOf is the digest of a run's training and test sets (test may be
// nil).
func digestOf(train, test *data.Set) *DataDigest {
	d := &DataDigest{Train: setDigest(train)}
	if test != nil {
		d.Test = setDigest(test)
	}
	return d
}

// setDigest is "sha256:" and the hex SHA-256 of the set's content in a
// fixed little-endian encoding.
func setDigest(s *data.Set) string {
	h := sha256.New()
	w := digestWriter{h: h}
	w.ints(1, s.N, s.D, s.LabelUnits, s.NumClasses, len(s.Labels), len(s.Groups)) // 1: the encoding's version
	w.ints(s.Groups...)
	if s.IsReal() {
		w.ints(1)
		for _, v := range s.Real {
			w.u32(math.Float32bits(v))
		}
		if c := s.Scaling; c != nil { // not From, which names the file
			w.ints(len(c.Offset), len(c.Scale))
			w.h.Write([]byte(c.Mode))
			for _, v := range append(append([]float64(nil), c.Offset...), c.Scale...) {
				w.u64(math.Float64bits(v))
			}
		}
	} else {
		w.ints(0)
		w.flush()
		h.Write(s.X)
	}
	for _, l := range s.Labels {
		w.u32(uint32(l))
	}
	w.flush()
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// digestWriter buffers little-endian numbers for a hash.
type digestWriter struct {
	h   hash.Hash
	buf []byte
}

func (w *digestWriter) u32(v uint32) {
	w.buf = binary.LittleEndian.AppendUint32(w.buf, v)
	if len(w.buf) >= 1<<16 {
		w.flush()
	}
}

func (w *digestWriter) u64(v uint64) {
	w.buf = binary.LittleEndian.AppendUint64(w.buf, v)
	if len(w.buf) >= 1<<16 {
		w.flush()
	}
}

func (w *digestWriter) ints(vs ...int) {
	for _, v := range vs {
		w.u64(uint64(v))
	}
}

func (w *digestWriter) flush() {
	w.h.Write(w.buf)
	w.buf = w.buf[:0]
}

// checkDigest refuses (a *ConfigError naming the data's flag and file)
// data whose digest (ours) differs from the one recorded by the run in
// dir, if any: the run would go on, or be measured, on other rows than it
// trained on. A run directory of a version that recorded none is not
// refused.
func (s Spec) checkDigest(dir RunDir, recorded, ours *DataDigest) error {
	if recorded == nil {
		return nil
	}
	flag, file, now, then := "data", s.Data, ours.Train, recorded.Train
	if now == then {
		if s.TestData != "" {
			flag, file = "test-data", s.TestData
		}
		now, then = ours.Test, recorded.Test
	}
	if now == then {
		return nil
	}
	what := file
	if _, named := namedData(file); named {
		what = file + " (its files in the data directory)"
	}
	return &ConfigError{fmt.Errorf("-%s %s: the rows differ from those the run in %s trained on (its config.json records %s, these are %s); give the run its own data, or another -out to start a run on these",
		flag, what, dir, short(then), short(now))}
}

// short abbreviates a digest for messages.
func short(d string) string {
	if len(d) > 19 {
		return d[:19] + "…"
	}
	if d == "" {
		return "none"
	}
	return d
}

// alignDataPaths sets theirs' data file paths (a stored Spec's) to ours
// where they name the same data: the same file (os.SameFile), or any file
// when sameRows says the rows were checked to be the run's (by digest).
// Their paths are then no difference between the two Specs: a run given
// its data by a relative path, then an absolute one, is the same run.
func alignDataPaths(theirs *Spec, ours Spec, sameRows bool) {
	for _, p := range []struct{ t, o *string }{{&theirs.Data, &ours.Data}, {&theirs.TestData, &ours.TestData}} {
		if *p.t == *p.o || *p.t == "" || *p.o == "" {
			continue
		}
		if _, named := namedData(*p.t); named {
			continue
		}
		if _, named := namedData(*p.o); named {
			continue
		}
		if sameRows || sameFile(*p.t, *p.o) {
			*p.t = *p.o
		}
	}
}

// sameFile reports whether two paths name one file.
func sameFile(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	if errA != nil || errB != nil {
		if errors.Is(errA, os.ErrNotExist) || errors.Is(errB, os.ErrNotExist) {
			ca, e1 := filepath.Abs(a)
			cb, e2 := filepath.Abs(b)
			return e1 == nil && e2 == nil && ca == cb
		}
		return false
	}
	return os.SameFile(sa, sb)
}

// CheckData refuses (a *ConfigError naming the flag and the file) train
// and test, loaded for s, when s names the data of the run in d (the same
// data set or file, format, data seed and scaling; the same test file)
// and their rows differ from those the run recorded: a file changed since
// the run trained on it. Data other than the run's are the caller's
// choice, and a run that recorded no digest is not refused.
func (d RunDir) CheckData(s Spec, train, test *data.Set) error {
	rs, err := d.Spec()
	if err != nil {
		return err
	}
	recorded, err := d.Digest()
	if err != nil || recorded == nil {
		return err
	}
	alignDataPaths(&rs, s, false)
	a, b := rs.Normalize(), s.Normalize()
	if a.Data != b.Data || a.Format != b.Format || a.DataSeed != b.DataSeed || a.Real != b.Real {
		return nil
	}
	ours := &DataDigest{Train: setDigest(train), Test: recorded.Test}
	if test != nil && a.TestData == b.TestData {
		ours.Test = setDigest(test)
	}
	return s.checkDigest(d, recorded, ours)
}
