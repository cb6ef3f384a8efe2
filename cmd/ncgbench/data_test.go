package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ncg-rbm/ncg/internal/datatest"
)

func runCmd(args ...string) (string, string, int) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return out.String(), errb.String(), code
}

func TestDataInfoEmptyDir(t *testing.T) {
	dir := t.TempDir()
	out, errs, code := runCmd("data", "info", "-data-dir", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"data directory " + dir + " (-data-dir)", "mnist/train-images-idx3-ubyte.gz", "missing",
		"ncgbench data fetch mushrooms", "mushrooms-train.data", "not downloadable",
		"\n  mushrooms: 21 groups, 112 units: cap-shape 6, cap-surface 4, cap-color 10, bruises? 2, odor 9, ", ", habitat 7\n",
		"\n  connect-4: 42 groups of 3 units (a1, a2, …, g6), 126 in all\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// A corrupt file is reported and makes the exit status 1.
	os.MkdirAll(filepath.Join(dir, "mushrooms"), 0o755)
	os.WriteFile(filepath.Join(dir, "mushrooms", "mushrooms"), []byte("1 1:1\n"), 0o644)
	out, errs, code = runCmd("data", "info", "-data-dir", dir)
	if code != 1 || !strings.Contains(out, "BAD") || !strings.Contains(out, "MD5 mismatch") || !strings.Contains(errs, "failed verification") {
		t.Errorf("exit %d\n%s\n%s", code, out, errs)
	}
}

func TestDataInfoShared(t *testing.T) {
	dir := datatest.Dir(t)
	out, errs, code := runCmd("data", "info", "-json", "-data-dir", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errs, out)
	}
	if !strings.Contains(out, `"verified": true`) || !strings.Contains(out, `"path": "mnist/t10k-labels-idx1-ubyte.gz"`) {
		t.Errorf("json output:\n%s", out)
	}
	out, errs, code = runCmd("data", "show", "mushrooms", "-data-dir", dir)
	if code != 0 || !strings.Contains(out, "mushrooms-train: 2000×112") || !strings.Contains(out, "mushrooms-test: 6124×112") {
		t.Errorf("show: exit %d\n%s\n%s", code, out, errs)
	}
}

// TestDataInfoJSONKeys: data info -json uses snake_case keys, as every
// other JSON output does, and gives each file's status.
func TestDataInfoJSONKeys(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "mushrooms"), 0o755)
	os.WriteFile(filepath.Join(dir, "mushrooms", "mushrooms"), []byte("1 1:1\n"), 0o644)
	out, errs, code := runCmd("data", "info", "-json", "-data-dir", dir)
	if code != 1 { // the corrupt file fails verification
		t.Fatalf("exit %d: %s\n%s", code, errs, out)
	}
	var v struct {
		Dir    string           `json:"dir"`
		Files  []map[string]any `json:"files"`
		Groups []map[string]any `json:"categorical_groups"`
	}
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if v.Dir != dir || len(v.Files) == 0 {
		t.Fatalf("dir %q, %d files:\n%s", v.Dir, len(v.Files), out)
	}
	snake := regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)
	// The groups of each built-in set: count, units, sizes and names.
	if len(v.Groups) != 2 {
		t.Fatalf("categorical_groups: %v", v.Groups)
	}
	for i, want := range []struct {
		set           string
		groups, units float64
		first, last   string
	}{{"mushrooms", 21, 112, "cap-shape", "habitat"}, {"connect-4", 42, 126, "a1", "g6"}} {
		g := v.Groups[i]
		sizes, _ := g["sizes"].([]any)
		names, _ := g["names"].([]any)
		sum := 0.0
		for _, n := range sizes {
			sum += n.(float64)
		}
		if g["set"] != want.set || g["groups"] != want.groups || g["units"] != want.units || len(sizes) != int(want.groups) ||
			sum != want.units || len(names) != len(sizes) || names[0] != want.first || names[len(names)-1] != want.last {
			t.Errorf("groups of %s: %v", want.set, g)
		}
		for k := range g {
			if !snake.MatchString(k) {
				t.Errorf("key %q is not snake_case", k)
			}
		}
	}
	for _, f := range v.Files {
		for k := range f {
			if !snake.MatchString(k) {
				t.Errorf("key %q is not snake_case", k)
			}
		}
		for _, k := range []string{"set", "path", "full_path", "present", "size", "verified", "ok", "check", "md5", "raw_md5", "downloadable"} {
			if _, ok := f[k]; !ok {
				t.Errorf("file %v lacks key %q", f["path"], k)
			}
		}
		if f["path"] == "mushrooms/mushrooms" {
			if f["present"] != true || f["ok"] != false || f["size"] != 6.0 || !strings.Contains(fmt.Sprint(f["check"]), "MD5 mismatch") {
				t.Errorf("corrupt file: %v", f)
			}
		}
	}
}

func TestDataUsage(t *testing.T) {
	for _, args := range [][]string{
		{"data"},
		{"data", "frob"},
		{"data", "fetch"},
		{"data", "fetch", "cifar"},
		{"data", "info", "extra"},
		{"data", "info", "-bogus"},
		{"data", "show"},
	} {
		_, errs, code := runCmd(args...)
		if code != 2 || !strings.Contains(errs, "ncgbench data:") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errs)
		}
	}
	out, _, code := runCmd("data", "fetch", "-h")
	if code != 0 || !strings.Contains(out, "-mirror") {
		t.Errorf("-h: exit %d\n%s", code, out)
	}
	out, _, code = runCmd("help")
	if code != 0 || !strings.Contains(out, "fetch or list data sets") {
		t.Errorf("help: %s", out)
	}
}

func TestDataFetchServerError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "nope", http.StatusInternalServerError)
	}))
	defer srv.Close()
	dir := t.TempDir()
	_, errs, code := runCmd("data", "fetch", "mushrooms", "-data-dir", dir, "-mirror", srv.URL)
	if code != 1 || !strings.Contains(errs, "HTTP 500") ||
		!strings.Contains(errs, "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/binary/mushrooms → "+filepath.Join(dir, "mushrooms", "mushrooms")) {
		t.Errorf("exit %d\n%s", code, errs)
	}
}

// TestDataFetchReportsProgressAndGivesUp: data fetch from a server that
// never answers, and from one that stops sending, says what it is
// waiting for while it waits and gives up after the timeouts (shortened
// here) with a message that says why.
func TestDataFetchReportsProgressAndGivesUp(t *testing.T) {
	saved := fetchTiming
	defer func() { fetchTiming = saved }()
	fetchTiming.answer, fetchTiming.stall, fetchTiming.every, fetchTiming.line = 300*time.Millisecond, 300*time.Millisecond, 50*time.Millisecond, 0
	release := make(chan struct{})
	defer close(release)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/stall/") {
			w.Header().Set("Content-Length", "1000")
			w.Write(make([]byte, 100))
			w.(http.Flusher).Flush()
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	for _, c := range []struct {
		mirror string
		want   []string
	}{
		{srv.URL, []string{"fetching " + srv.URL + "/mushrooms/mushrooms\n", "  no answer yet after ",
			"  failed: the server did not answer: no answer within 300ms\n"}},
		{srv.URL + "/stall", []string{"fetching " + srv.URL + "/stall/mushrooms/mushrooms\n", "  100 B of 1000 B (10%), ",
			"  failed: download stalled: nothing received for 300ms, after 100 bytes of 1000\n"}},
	} {
		start := time.Now()
		_, errs, code := runCmd("data", "fetch", "mushrooms", "-data-dir", t.TempDir(), "-mirror", c.mirror)
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("%s: gave up after %v", c.mirror, took)
		}
		if code != 1 || !strings.Contains(errs, "could not fetch 1 file(s) of mushrooms") {
			t.Errorf("%s: exit %d\n%s", c.mirror, code, errs)
		}
		for _, w := range c.want {
			if !strings.Contains(errs, w) {
				t.Errorf("%s: stderr lacks %q:\n%s", c.mirror, w, errs)
			}
		}
	}
}

func TestDataFetchMirror(t *testing.T) {
	shared := datatest.Dir(t)
	datatest.File(t, "mushrooms/mushrooms")
	srv := httptest.NewServer(http.FileServer(http.Dir(shared)))
	defer srv.Close()
	dir := t.TempDir()
	out, errs, code := runCmd("data", "fetch", "-data-dir", dir, "-mirror", srv.URL, "mushrooms")
	if code != 0 || !strings.Contains(out, "mushrooms: ok") || !strings.Contains(errs, "MD5 ok") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	out, _, code = runCmd("data", "info", "-data-dir", dir)
	if code != 0 || !strings.Contains(out, "mushrooms/mushrooms  ") {
		t.Errorf("info after fetch: exit %d\n%s", code, out)
	}
	// Without the split files, mushrooms loads as a seeded split of the LIBSVM file.
	out, errs, code = runCmd("data", "show", "-data-dir", dir, "-seed", "4", "mushrooms")
	if code != 0 || !strings.Contains(out, "mushrooms-train: 2000×112") || !strings.Contains(out, "PCG seed 4") {
		t.Errorf("show: exit %d\n%s\n%s", code, out, errs)
	}
}
