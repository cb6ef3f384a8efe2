package data

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// File is one file of the data directory layout.
type File struct {
	Set  string // "mnist", "mushrooms", "connect-4" or "reference"
	Path string // relative to the data directory, slash-separated
	What string
	// source ("mnist" or "libsvm") and remote (path under the source's base
	// URL) say where to download the file; source is "" when it cannot be
	// downloaded (the paper's split files, the reference model).
	source, remote string
	MD5            string // MD5 of the file's bytes as published ("" if unknown)
	RawMD5         string // MD5 of its decompressed bytes ("" if unknown)
	// RowsMD5, for a LIBSVM file, is the MD5 of its rows in canonical form
	// (see [CanonicalLIBSVMMD5]): a copy whose bytes differ from the known
	// one (trailing spaces, "+1" labels, features out of order) but whose
	// rows and labels are the same, in the same order, verifies by it.
	RowsMD5 string
	// Rows and Features, when no checksum is known or a copy is checked by
	// RowsMD5, are checked by parsing the file (Format "libsvm" or "split").
	Rows, Features int
	Format         string
}

// Downloadable reports whether Fetch can download the file.
func (f File) Downloadable() bool { return f.source != "" }

// Default download locations.
var (
	// DefaultMNISTBaseURLs are tried in order.
	DefaultMNISTBaseURLs = []string{"https://ossci-datasets.s3.amazonaws.com/mnist/", "http://yann.lecun.com/exdb/mnist/"}
	DefaultLIBSVMBaseURL = "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/"
)

// Files lists every file of the data directory layout that the project
// knows. The MD5 checksums are those of the data README: the canonical
// MNIST .gz files (train images also by the MD5 of its decompressed bytes,
// so a locally re-compressed copy verifies) and the LIBSVM mushrooms file.
// LIBSVM publishes no checksum for connect-4: the MD5 is that of the copy
// in the shared data directory, rebuilt from the UCI data in LIBSVM's
// encoding, and any copy with the same rows in the same order verifies by
// RowsMD5 (67557 rows of 126 binary features).
func Files() []File {
	return []File{
		{Set: "mnist", Path: "mnist/" + MNISTTrainImages, What: "MNIST training images (IDX, 60000×28×28)",
			source: "mnist", remote: MNISTTrainImages, MD5: "f68b3c2dcbeaaa9fbdd348bbdeb94873", RawMD5: "6bbc9ace898e44ae57da46a324031adb"},
		{Set: "mnist", Path: "mnist/" + MNISTTrainLabels, What: "MNIST training labels (IDX, 60000)",
			source: "mnist", remote: MNISTTrainLabels, MD5: "d53e105ee54ea40749a09fcbcd1e9432"},
		{Set: "mnist", Path: "mnist/" + MNISTTestImages, What: "MNIST test images (IDX, 10000×28×28)",
			source: "mnist", remote: MNISTTestImages, MD5: "9fb629c4189551a2d022fa330f9573f3"},
		{Set: "mnist", Path: "mnist/" + MNISTTestLabels, What: "MNIST test labels (IDX, 10000)",
			source: "mnist", remote: MNISTTestLabels, MD5: "ec29112dd5afa0611ce80d1b7f02629c"},
		{Set: "mushrooms", Path: "mushrooms/mushrooms", What: "LIBSVM mushrooms (8124×112, labels 1/2)",
			source: "libsvm", remote: "binary/mushrooms", MD5: "2a52251de564d72e772b25211a84f5f8"},
		{Set: "mushrooms", Path: "mushrooms/mushrooms-train.data", What: "the paper's mushrooms train split (2000)",
			Rows: 2000, Features: 112, Format: FormatSplit},
		{Set: "mushrooms", Path: "mushrooms/mushrooms-test.data", What: "the paper's mushrooms test split (6124)",
			Rows: 6124, Features: 112, Format: FormatSplit},
		{Set: "connect-4", Path: "connect-4/connect-4", What: "LIBSVM connect-4 (67557×126, labels -1/0/1)",
			source: "libsvm", remote: "multiclass/connect-4", MD5: "b6bc927c4bded7cd74db4ab5e38cc996",
			RowsMD5: "b6bc927c4bded7cd74db4ab5e38cc996", Rows: 67557, Features: 126, Format: FormatLIBSVM},
		{Set: "connect-4", Path: "connect-4/connect-4-train.data", What: "the paper's connect-4 train split (16000)",
			Rows: 16000, Features: 126, Format: FormatSplit},
		{Set: "reference", Path: "reference/mnistvh_CD25.mat", What: "reference MNIST RBM (Salakhutdinov & Murray 2008)"},
	}
}

// FetchOptions configures [Fetch].
type FetchOptions struct {
	// Mirror, when set, replaces every canonical location: file F of the
	// layout (e.g. mnist/train-images-idx3-ubyte.gz) is fetched from
	// Mirror/F only. A data directory served over HTTP is such a mirror.
	Mirror string
	// MNISTBaseURLs and LIBSVMBaseURL replace the defaults when set.
	MNISTBaseURLs []string
	LIBSVMBaseURL string
	Client        *http.Client // nil means http.DefaultClient's settings
	Log           io.Writer    // a line per file: kept, downloaded; nil discards them
	Force         bool         // download even files already present and valid

	// Progress, when set, receives the progress of each download: when it
	// starts, every ProgressEvery while it waits for an answer or receives
	// data, and when it ends. Calls come one at a time, but not
	// necessarily from the goroutine that called Fetch.
	Progress      func(FetchProgress)
	ProgressEvery time.Duration // default DefaultProgressEvery

	// AnswerTimeout bounds the wait for a server's answer (its response
	// headers) and StallTimeout the time a download may go without
	// receiving a byte; 0 means DefaultAnswerTimeout and
	// DefaultStallTimeout. A download that keeps receiving data has no
	// time limit, however slow. On a timeout Fetch tries the file's next
	// location.
	AnswerTimeout, StallTimeout time.Duration
}

// MaxDownload bounds the size of one downloaded file.
const MaxDownload = 512 << 20

// URLs returns the locations Fetch tries for f, in order.
func (f File) URLs(o FetchOptions) []string {
	if !f.Downloadable() {
		return nil
	}
	if o.Mirror != "" {
		return []string{strings.TrimSuffix(o.Mirror, "/") + "/" + f.Path}
	}
	var bases []string
	switch f.source {
	case "mnist":
		bases = o.MNISTBaseURLs
		if bases == nil {
			bases = DefaultMNISTBaseURLs
		}
	case "libsvm":
		bases = []string{o.LIBSVMBaseURL}
		if o.LIBSVMBaseURL == "" {
			bases = []string{DefaultLIBSVMBaseURL}
		}
	}
	urls := make([]string, len(bases))
	for i, b := range bases {
		urls[i] = strings.TrimSuffix(b, "/") + "/" + f.remote
	}
	return urls
}

// FetchNames are the sets Fetch accepts ("all" fetches every one).
var FetchNames = []string{"mnist", "mushrooms", "connect-4"}

// Fetch downloads the downloadable files of set name ("mnist", "mushrooms",
// "connect-4" or "all") into dir, skipping files already present and valid
// unless opts.Force. Each file is verified (MD5, or parsed when no checksum
// is known) before it is moved into place: it is written to a temporary
// file in the same directory, synced and renamed, so a failed or corrupt
// download never leaves a file behind. If some files cannot be fetched the
// error says which URLs failed and where to place the files by hand.
//
// The paper's split files cannot be downloaded: for mushrooms Fetch gets
// the LIBSVM file, from which Load makes a seeded split when the split files
// are absent; likewise connect-4.
func Fetch(ctx context.Context, name, dir string, opts FetchOptions) error {
	name, _ = Canonical(name)
	var files []File
	for _, f := range Files() {
		if f.Downloadable() && (name == "all" || f.Set == name) {
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		return fmt.Errorf("data: cannot fetch %q (want one of %s, or all)", name, strings.Join(FetchNames, ", "))
	}
	log := opts.Log
	if log == nil {
		log = io.Discard
	}
	client := opts.Client
	if client == nil {
		client = &http.Client{}
	}
	var failed []File
	var errs []string
	var made []string // directories this call created, to remove if left empty
	defer func() {
		for i := len(made) - 1; i >= 0; i-- {
			_ = os.Remove(made[i]) // only succeeds on an empty directory
		}
	}()
	for _, f := range files {
		dst := filepath.Join(dir, filepath.FromSlash(f.Path))
		if !opts.Force {
			if _, err := os.Stat(dst); err == nil {
				st := Verify(dir, f)
				if st.OK {
					fmt.Fprintf(log, "%s: present, %s\n", dst, st.Check)
					continue
				}
				fmt.Fprintf(log, "%s: present but %s: downloading again\n", dst, st.Check)
			}
		}
		created, err := mkdirAll(filepath.Dir(dst))
		made = append(made, created...)
		if err != nil {
			return err
		}
		var ferrs []string
		ok := false
		for _, u := range f.URLs(opts) {
			if err := ctx.Err(); err != nil {
				return err
			}
			check, err := download(ctx, client, u, dst, f, &opts)
			if err != nil {
				var ue *url.Error // its message repeats the URL
				if errors.As(err, &ue) {
					err = ue.Err
				}
				ferrs = append(ferrs, fmt.Sprintf("%s: %v", u, err))
				if ctx.Err() != nil {
					return ctx.Err()
				}
				continue
			}
			if ferrs != nil {
				check += "; before it " + strings.Join(ferrs, "; ")
			}
			fmt.Fprintf(log, "%s ← %s (%s)\n", dst, u, check)
			ok = true
			break
		}
		if !ok {
			failed = append(failed, f)
			errs = append(errs, strings.Join(ferrs, "; "))
		}
	}
	if failed == nil {
		return nil
	}
	// One line per file: where to get it by hand, where to put it, and what
	// each source answered.
	var b strings.Builder
	fmt.Fprintf(&b, "data: could not fetch %d file(s) of %s; download them by hand and place them as follows (URL → path):", len(failed), name)
	for i, f := range failed {
		urls := f.URLs(FetchOptions{})
		fmt.Fprintf(&b, "\n  %s → %s (%s)", urls[0], filepath.Join(dir, filepath.FromSlash(f.Path)), errs[i])
	}
	return errors.New(b.String())
}

// mkdirAll is os.MkdirAll that returns the directories it created,
// outermost first.
func mkdirAll(dir string) ([]string, error) {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil || filepath.Dir(d) == d {
			break
		}
		missing = append([]string{d}, missing...)
	}
	return missing, os.MkdirAll(dir, 0o755)
}

// FileStatus is what [Info] and [Verify] found about a file.
type FileStatus struct {
	File
	FullPath string
	Present  bool
	Size     int64
	Verified bool   // a checksum or content check passed
	OK       bool   // present and no check failed
	Check    string // what was checked and the outcome, in words
}

// Info returns the status of every file of [Files] in dir, verifying those
// present.
func Info(dir string) []FileStatus {
	var out []FileStatus
	for _, f := range Files() {
		out = append(out, Verify(dir, f))
	}
	return out
}

// Verify checks one file of the layout in dir.
func Verify(dir string, f File) FileStatus {
	return verifyPath(filepath.Join(dir, filepath.FromSlash(f.Path)), f)
}

func verifyPath(path string, f File) FileStatus {
	st := FileStatus{File: f, FullPath: path}
	fi, err := os.Stat(path)
	if err != nil {
		st.Check = "missing"
		return st
	}
	st.Present, st.Size = true, fi.Size()
	if f.MD5 != "" || f.RawMD5 != "" {
		sum, err := md5File(path, false)
		if err != nil {
			st.Check = err.Error()
			return st
		}
		if sum == f.MD5 {
			st.Verified, st.OK, st.Check = true, true, "MD5 ok"
			return st
		}
		if f.RawMD5 != "" {
			raw, err := md5File(path, true)
			if err != nil {
				st.Check = "MD5 mismatch: " + err.Error()
				return st
			}
			if raw == f.RawMD5 {
				st.Verified, st.OK, st.Check = true, true, "MD5 of decompressed bytes ok"
				return st
			}
			sum = raw + " decompressed"
		}
		want := f.MD5
		if want == "" {
			want = f.RawMD5
		}
		if f.RowsMD5 != "" {
			return verifyRows(st, f, sum)
		}
		st.Check = fmt.Sprintf("MD5 mismatch: got %s, want %s", sum, want)
		return st
	}
	if f.Format != "" {
		var s *Set
		var err error
		switch f.Format {
		case FormatLIBSVM:
			s, err = ReadLIBSVMFile(path, f.Features)
		case FormatSplit:
			s, _, err = ReadSplitFile(path)
		}
		switch {
		case err != nil:
			st.Check = "unreadable: " + err.Error()
		case s.N != f.Rows || s.D != f.Features:
			st.Check = fmt.Sprintf("content check failed: %d×%d, want %d×%d", s.N, s.D, f.Rows, f.Features)
		default:
			st.Verified, st.OK, st.Check = true, true, fmt.Sprintf("no checksum known; content ok (%d×%d)", s.N, s.D)
		}
		return st
	}
	st.OK, st.Check = true, "no checksum known"
	return st
}

// verifyRows checks a LIBSVM file whose bytes did not match f.MD5 (their
// MD5 is sum) by the MD5 of its rows in canonical form.
func verifyRows(st FileStatus, f File, sum string) FileStatus {
	s, err := ReadLIBSVMFile(st.FullPath, f.Features)
	if err != nil {
		st.Check = fmt.Sprintf("MD5 mismatch (got %s, want %s) and unreadable: %v", sum, f.MD5, err)
		return st
	}
	if s.N != f.Rows || s.D != f.Features {
		st.Check = fmt.Sprintf("MD5 mismatch (got %s, want %s) and %d×%d, want %d×%d", sum, f.MD5, s.N, s.D, f.Rows, f.Features)
		return st
	}
	rows, err := CanonicalLIBSVMMD5(s)
	if err != nil {
		st.Check = err.Error()
		return st
	}
	if rows != f.RowsMD5 {
		st.Check = fmt.Sprintf("MD5 mismatch (got %s, want %s) and rows differ (canonical rows MD5 %s, want %s)", sum, f.MD5, rows, f.RowsMD5)
		return st
	}
	st.Verified, st.OK = true, true
	st.Check = fmt.Sprintf("bytes differ from the known copy, rows the same (canonical rows MD5 ok, %d×%d)", s.N, s.D)
	return st
}

// CanonicalLIBSVMMD5 returns the hex MD5 of s written as canonical LIBSVM
// text: per row, the label (its class name as a number in shortest form,
// "1" for "+1" or "1.0"), then " j:1" for every unit j (1-based) that is
// on, in increasing order, then "\n". Two LIBSVM files with the same rows
// and labels in the same order have the same canonical MD5 whatever their
// spacing, label spelling and feature order.
func CanonicalLIBSVMMD5(s *Set) (string, error) {
	if s.Labels == nil || len(s.ClassNames) != s.NumClasses {
		return "", fmt.Errorf("data: %s: canonical LIBSVM form needs labels with class names", s.Name)
	}
	names := make([]string, len(s.ClassNames))
	for k, n := range s.ClassNames {
		v, err := strconv.ParseFloat(n, 64)
		if err != nil {
			return "", fmt.Errorf("data: %s: label %q is not a number", s.Name, n)
		}
		names[k] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	h := md5.New()
	var line []byte
	for i := 0; i < s.N; i++ {
		line = append(line[:0], names[s.Labels[i]]...)
		for j, u := range s.Row(i) {
			if u != 0 {
				line = append(line, ' ')
				line = strconv.AppendInt(line, int64(j+1), 10)
				line = append(line, ":1"...)
			}
		}
		line = append(line, '\n')
		h.Write(line)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// md5File returns the hex MD5 of a file's bytes, or of its decompressed
// bytes if raw (a file that is not gzip is hashed as it is).
func md5File(path string, raw bool) (string, error) {
	h := md5.New()
	if raw {
		in, err := openInput(path)
		if err != nil {
			return "", err
		}
		defer in.close()
		if _, err := io.Copy(h, in.r); err != nil {
			return "", fmt.Errorf("%s: %w", path, err)
		}
	} else {
		f, err := os.Open(path)
		if err != nil {
			return "", err
		}
		defer f.Close()
		if _, err := io.Copy(h, f); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
