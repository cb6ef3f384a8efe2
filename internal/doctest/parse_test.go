package doctest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestParseSnippets: every Go block needs a marker, continued blocks need
// a main block before them, and the markers are read as documented.
func TestParseSnippets(t *testing.T) {
	fence := "```"
	good := strings.Join([]string{
		"text",
		"<!-- go main -->",
		fence + "go",
		"x := 1",
		fence,
		"<!-- go main continued -->",
		fence + "go",
		"_ = x",
		fence,
		"1. step",
		"   <!-- go insert kernel/tier.go after type impl struct { -->",
		"   " + fence + "go",
		"   \trelu func(dst, src []float32)",
		"   " + fence,
		"<!-- go file kernel/_asm/avx2 -->",
		fence + "go",
		"func f() {}",
		fence,
	}, "\n")
	s, err := parseSnippets("d.md", good)
	if err != nil {
		t.Fatal(err)
	}
	want := []snippet{
		{file: "d.md", line: 3, mode: "main", code: "x := 1\n"},
		{file: "d.md", line: 7, mode: "continued", code: "_ = x\n"},
		{file: "d.md", line: 12, mode: "insert", target: "kernel/tier.go", after: "type impl struct {", code: "\trelu func(dst, src []float32)\n"},
		{file: "d.md", line: 16, mode: "file", target: "kernel/_asm/avx2", code: "func f() {}\n"},
	}
	if len(s) != len(want) {
		t.Fatalf("got %d snippets, want %d: %+v", len(s), len(want), s)
	}
	for i := range want {
		if s[i] != want[i] {
			t.Errorf("snippet %d: got %+v, want %+v", i, s[i], want[i])
		}
	}
	for name, doc := range map[string]string{
		"unmarked":         "text\n" + fence + "go\nx := 1\n" + fence + "\n",
		"continued alone":  "<!-- go main continued -->\n" + fence + "go\nx := 1\n" + fence + "\n",
		"unknown marker":   "<!-- go maybe -->\n" + fence + "go\nx := 1\n" + fence + "\n",
		"marker too early": "<!-- go main -->\n\n" + fence + "go\nx := 1\n" + fence + "\n",
		"unterminated":     "<!-- go main -->\n" + fence + "go\nx := 1\n",
	} {
		if _, err := parseSnippets("d.md", doc); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestBrokenSnippetsFail runs TestGoSnippets on documents whose snippets
// are wrong, one way each, and checks that it fails naming each one's line.
func TestBrokenSnippetsFail(t *testing.T) {
	if os.Getenv("NCG_DOCTEST_DOCS") != "" {
		t.Skip("inside the run it starts")
	}
	fence := "```"
	dir := t.TempDir()
	run := filepath.Join(dir, "run.md") // builds, fails when run
	if err := os.WriteFile(run, []byte("<!-- go main -->\n"+fence+"go\n_, _, err := data.Load(\"no-such-set\", data.Options{})\ncheck(err)\n"+fence+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	build := filepath.Join(dir, "build.md") // does not compile in package kernel
	if err := os.WriteFile(build, []byte("text\n\n<!-- go file kernel -->\n"+fence+"go\nfunc relu2() { cur.noSuchKernel() }\n"+fence+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestGoSnippets$", "-test.count", "1")
	cmd.Env = append(os.Environ(), "NCG_DOCTEST_DOCS="+run+string(filepath.ListSeparator)+build)
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("TestGoSnippets passed broken snippets:\n%s", out)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []struct {
		path string
		line int
	}{{run, 4}, {build, 5}} {
		if !namesLine(string(out), root, want.path, want.line) {
			t.Errorf("the output does not name %s:%d:\n%s", want.path, want.line, out)
		}
	}
}

// namesLine reports whether out has "PATH:LINE: " where PATH is path,
// absolute or relative to dir (go vet shortens a path to a relative one
// when that is shorter, as it is for a module under $TMPDIR).
func namesLine(out, dir, path string, line int) bool {
	re := regexp.MustCompile(`(\S*` + regexp.QuoteMeta(filepath.Base(path)) + fmt.Sprintf(`):%d: `, line))
	for _, m := range re.FindAllStringSubmatch(out, -1) {
		p := m[1]
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if filepath.Clean(p) == filepath.Clean(path) {
			return true
		}
	}
	return false
}
