package data

import (
	"bytes"
	"context"
	"crypto/md5"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ncg-rbm/ncg/internal/datatest"
)

// listFiles returns every file under dir, relative and slash-separated.
func listFiles(t *testing.T, dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			r, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(r))
		}
		return nil
	})
	return out
}

func TestFetchFromMirror(t *testing.T) {
	shared := datatest.Dir(t)
	datatest.File(t, "mushrooms/mushrooms")
	datatest.File(t, "mnist/"+MNISTTrainLabels)
	mux := http.NewServeMux()
	mux.Handle("/broken/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
	}))
	// The mirror serves the shared data directory without connect-4, so that
	// the test sees how a missing file is reported whatever that directory
	// holds.
	mux.Handle("/connect-4/", http.NotFoundHandler())
	mux.Handle("/", http.FileServer(http.Dir(shared)))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	dir := t.TempDir()
	var log bytes.Buffer
	if err := Fetch(context.Background(), "mushrooms", dir, FetchOptions{Mirror: srv.URL, Log: &log}); err != nil {
		t.Fatal(err)
	}
	// MNIST from the second base URL after the first fails.
	opts := FetchOptions{MNISTBaseURLs: []string{srv.URL + "/broken/", srv.URL + "/mnist/"}, Log: &log}
	if err := Fetch(context.Background(), "mnist", dir, opts); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "503") {
		t.Errorf("log does not mention the failed mirror:\n%s", log.String())
	}
	got := strings.Join(listFiles(t, dir), " ")
	want := "mnist/t10k-images-idx3-ubyte.gz mnist/t10k-labels-idx1-ubyte.gz mnist/train-images-idx3-ubyte.gz mnist/train-labels-idx1-ubyte.gz mushrooms/mushrooms"
	if got != want {
		t.Errorf("files %s\nwant %s", got, want)
	}
	for _, st := range Info(dir) {
		if st.Present && !st.Verified {
			t.Errorf("%s: %s", st.Path, st.Check)
		}
	}
	// A second fetch finds everything present and verified.
	log.Reset()
	if err := Fetch(context.Background(), "mushrooms", dir, FetchOptions{Mirror: "http://127.0.0.1:1", Log: &log}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "present, MD5 ok") {
		t.Errorf("log: %s", log.String())
	}
	// The mirror lacks connect-4: the error says where to put it by hand.
	err := Fetch(context.Background(), "connect-4", dir, FetchOptions{Mirror: srv.URL})
	if err == nil || !strings.Contains(err.Error(), "404") ||
		!strings.Contains(err.Error(), DefaultLIBSVMBaseURL+"multiclass/connect-4 → "+filepath.Join(dir, "connect-4", "connect-4")) {
		t.Errorf("err = %v", err)
	}
}

func TestFetchChecksumMismatch(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "1 1:1 2:1")
	}))
	defer srv.Close()
	dir := t.TempDir()
	err := Fetch(context.Background(), "mushrooms", dir, FetchOptions{Mirror: srv.URL})
	if err == nil || !strings.Contains(err.Error(), "MD5 mismatch") || !strings.Contains(err.Error(), "place them") {
		t.Fatalf("err = %v", err)
	}
	if f := listFiles(t, dir); len(f) != 0 {
		t.Errorf("left behind: %v", f)
	}
	// A file checked by its rows when its bytes differ: wrong shape, rejected.
	err = Fetch(context.Background(), "connect-4", dir, FetchOptions{LIBSVMBaseURL: srv.URL})
	if err == nil || !strings.Contains(err.Error(), "and 1×126, want 67557×126") {
		t.Fatalf("err = %v", err)
	}
	if f := listFiles(t, dir); len(f) != 0 {
		t.Errorf("left behind: %v", f)
	}
}

func TestFetchServerError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "boom", http.StatusInternalServerError)
	}))
	defer srv.Close()
	dir := t.TempDir()
	err := Fetch(context.Background(), "mnist", dir, FetchOptions{MNISTBaseURLs: []string{srv.URL + "/a", srv.URL + "/b/"}})
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	for _, want := range []string{
		"could not fetch 4 file(s) of mnist",
		srv.URL + "/a/train-images-idx3-ubyte.gz: HTTP 500",
		srv.URL + "/b/t10k-labels-idx1-ubyte.gz: HTTP 500",
		DefaultMNISTBaseURLs[0] + "train-images-idx3-ubyte.gz → " + filepath.Join(dir, "mnist", "train-images-idx3-ubyte.gz"),
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	if f := listFiles(t, dir); len(f) != 0 {
		t.Errorf("left behind: %v", f)
	}
	if err := Fetch(context.Background(), "cifar", dir, FetchOptions{}); err == nil {
		t.Error("unknown set accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Fetch(ctx, "mushrooms", dir, FetchOptions{Mirror: srv.URL}); err != context.Canceled {
		t.Errorf("cancelled: %v", err)
	}
}

// TestFetchConnect4 serves the shared connect-4 file respelt (trailing
// spaces, "+1" labels, two spaces between features): its bytes differ from
// the known copy, its rows do not, so Fetch accepts it by the rows' MD5 and
// Load then derives the paper's test split from it.
func TestFetchConnect4(t *testing.T) {
	datatest.File(t, "connect-4/connect-4")
	datatest.File(t, "connect-4/connect-4-train.data")
	real, err := os.ReadFile(filepath.Join(datatest.Dir(t), "connect-4", "connect-4"))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for _, line := range strings.Split(strings.TrimSuffix(string(real), "\n"), "\n") {
		f := strings.Fields(line)
		if f[0] == "1" {
			f[0] = "+1"
		}
		b.WriteString(strings.Join(f, "  "))
		b.WriteString(" \n")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/multiclass/connect-4" {
			http.NotFound(w, r)
			return
		}
		w.Write(b.Bytes())
	}))
	defer srv.Close()
	dir := t.TempDir()
	var log bytes.Buffer
	if err := Fetch(context.Background(), "connect-4", dir, FetchOptions{LIBSVMBaseURL: srv.URL + "/", Log: &log}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "rows the same (canonical rows MD5 ok, 67557×126)") {
		t.Error(log.String())
	}
	// With the paper's training split beside it, the test set is the paper's.
	train, err := os.ReadFile(filepath.Join(datatest.Dir(t), "connect-4", "connect-4-train.data"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "connect-4", "connect-4-train.data"), train, 0o644); err != nil {
		t.Fatal(err)
	}
	tr, te, err := Load("connect-4", Options{Dir: dir})
	if err != nil || tr.N != 16000 || te.N != 51557 || !strings.Contains(te.Source, "the paper's test split") {
		t.Errorf("%v %v %v", tr, te, err)
	}
}

// TestFetchConnect4Refused serves a file of the right shape with other rows:
// neither its bytes nor its rows match, and nothing is saved.
func TestFetchConnect4Refused(t *testing.T) {
	var b bytes.Buffer
	r := rand.New(rand.NewPCG(1, 1))
	for i := 0; i < 67557; i++ {
		b.WriteString(strconv.Itoa(r.IntN(3) - 1))
		for j := 1; j <= 126; j += 3 {
			b.WriteString(" " + strconv.Itoa(j+r.IntN(3)) + ":1")
		}
		b.WriteByte('\n')
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(b.Bytes())
	}))
	defer srv.Close()
	dir := t.TempDir()
	err := Fetch(context.Background(), "connect-4", dir, FetchOptions{LIBSVMBaseURL: srv.URL + "/"})
	if err == nil || !strings.Contains(err.Error(), "rows differ") {
		t.Errorf("err = %v", err)
	}
	if got := listFiles(t, dir); len(got) != 0 {
		t.Errorf("left behind: %v", got)
	}
}

// TestCanonicalLIBSVMMD5 compares the canonical MD5 with the MD5 of the
// canonical text written out by hand, for a file spelt otherwise.
func TestCanonicalLIBSVMMD5(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, []byte("+1 1:1  3:1 \n-1.0 2:1\n1 \n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := ReadLIBSVMFile(p, 3)
	if err != nil {
		t.Fatal(err)
	}
	got, err := CanonicalLIBSVMMD5(s)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("%x", md5.Sum([]byte("1 1:1 3:1\n-1 2:1\n1\n"))); got != want {
		t.Errorf("canonical MD5 %s, want %s", got, want)
	}
}
