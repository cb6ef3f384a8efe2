// Package doctest compiles and runs the Go snippets of README.md and
// docs/*.md, as TestDocExamples in cmd/ncgbench runs their shell examples.
package doctest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ncg-rbm/ncg/internal/datatest"
)

// A Go block of a document is marked by an HTML comment on the line just
// before its fence, which says what the block is:
//
//	<!-- go main -->            the body of func main: ctx (a context) and
//	                            check(err) (stops the program on an error)
//	                            are in scope; the packages it names are
//	                            imported
//	<!-- go main continued -->  more of the body of the previous main block
//	<!-- go program -->         a whole program, package main
//	<!-- go file DIR -->        declarations added to the package in DIR
//	<!-- go insert FILE after PREFIX -->
//	                            lines inserted into FILE after its first line
//	                            that starts with PREFIX (spaces trimmed)
//
// main blocks and programs are built and run, each in a fresh directory
// with ../shared/data beside it; file and insert blocks are type-checked
// with the package and its tests (go vet), all of a document's at once.
// An unmarked Go block is an error, so that no snippet escapes the test.
type snippet struct {
	file   string // document, relative to the module root
	line   int    // of the opening fence
	mode   string // "main", "continued", "program", "file", "insert"
	target string // DIR of file, FILE of insert
	after  string // PREFIX of insert
	code   string // without the fence's indentation
}

var marker = regexp.MustCompile(`^<!--\s*go\s+(.*?)\s*-->$`)

// parseSnippets returns the Go blocks of the Markdown text of doc.
func parseSnippets(doc, text string) ([]snippet, error) {
	var out []snippet
	var cur *snippet
	var indent string
	var body strings.Builder
	prev := ""
	sc := bufio.NewScanner(strings.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if cur != nil {
			if trimmed == "```" {
				cur.code = body.String()
				out = append(out, *cur)
				cur = nil
			} else {
				body.WriteString(strings.TrimPrefix(line, indent))
				body.WriteByte('\n')
			}
			continue
		}
		if trimmed == "```go" || strings.HasPrefix(trimmed, "```go ") {
			s := snippet{file: doc, line: n}
			m := marker.FindStringSubmatch(prev)
			if m == nil {
				return nil, fmt.Errorf("%s:%d: put a marker such as <!-- go main --> on the line before the Go block (see internal/doctest)", doc, n)
			}
			f := strings.Fields(m[1])
			switch {
			case len(f) == 1 && (f[0] == "main" || f[0] == "program"):
				s.mode = f[0]
			case len(f) == 2 && f[0] == "main" && f[1] == "continued":
				s.mode = "continued"
				if len(out) == 0 || (out[len(out)-1].mode != "main" && out[len(out)-1].mode != "continued") {
					return nil, fmt.Errorf("%s:%d: \"go main continued\" follows no main block", doc, n)
				}
			case len(f) == 2 && f[0] == "file":
				s.mode, s.target = "file", f[1]
			case len(f) >= 4 && f[0] == "insert" && f[2] == "after":
				s.mode, s.target = "insert", f[1]
				s.after = strings.TrimSpace(strings.SplitN(m[1], " after ", 2)[1])
			default:
				return nil, fmt.Errorf("%s:%d: unknown marker %q", doc, n, prev)
			}
			cur = &s
			indent = line[:len(line)-len(strings.TrimLeft(line, " \t"))]
			body.Reset()
			continue
		}
		prev = trimmed
	}
	if cur != nil {
		return nil, fmt.Errorf("%s:%d: unterminated code block", doc, cur.line)
	}
	return out, sc.Err()
}

// documents returns README.md and docs/*.md, relative to root.
func documents(t *testing.T, root string) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := []string{"README.md"}
	for _, d := range docs {
		rel, _ := filepath.Rel(root, d)
		out = append(out, filepath.ToSlash(rel))
	}
	return out
}

// TestGoSnippets compiles every Go block of README.md and docs/*.md and
// runs the programs among them.
func TestGoSnippets(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	docs := documents(t, root)
	if only := os.Getenv("NCG_DOCTEST_DOCS"); only != "" {
		docs = filepath.SplitList(only) // TestBrokenSnippetsFail's documents
	}
	var all []snippet
	for _, doc := range docs {
		path := doc
		if !filepath.IsAbs(path) {
			path = filepath.Join(root, doc)
		}
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		s, err := parseSnippets(doc, string(text))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, s...)
	}
	if len(all) == 0 {
		t.Fatal("no Go snippets found")
	}
	checkSnippets(t, root, all)
}

// checkSnippets builds and runs the programs among snips and type-checks
// the additions to packages, reporting each failure with its document and
// line.
func checkSnippets(t *testing.T, root string, snips []snippet) {
	tmp := t.TempDir()
	progs := programs(snips)
	if len(progs) > 0 {
		t.Run("programs", func(t *testing.T) { runPrograms(t, root, tmp, progs) })
	}
	adds := map[string][]snippet{} // by document
	var docs []string
	for _, s := range snips {
		if s.mode == "file" || s.mode == "insert" {
			if adds[s.file] == nil {
				docs = append(docs, s.file)
			}
			adds[s.file] = append(adds[s.file], s)
		}
	}
	for i, doc := range docs {
		t.Run("packages/"+strings.ReplaceAll(doc, "/", "_"), func(t *testing.T) {
			vetAdditions(t, root, filepath.Join(tmp, "pkg"+strconv.Itoa(i)), adds[doc])
		})
	}
}

// program is one main program: a whole-program block, or a main block with
// the blocks that continue it.
type program struct {
	name  string // doc:line of its first block
	first snippet
	src   string
}

// stdImports are the packages a main block may name without importing
// them, by their name.
var stdImports = map[string]string{
	"context": "context", "errors": "errors", "fmt": "fmt", "log": "log", "math": "math",
	"os": "os", "filepath": "path/filepath", "runtime": "runtime", "time": "time",
	"data": "github.com/ncg-rbm/ncg/data", "engine": "github.com/ncg-rbm/ncg/engine",
	"eval": "github.com/ncg-rbm/ncg/eval", "experiment": "github.com/ncg-rbm/ncg/experiment",
	"kernel": "github.com/ncg-rbm/ncg/kernel", "report": "github.com/ncg-rbm/ncg/report",
	"bench": "github.com/ncg-rbm/ncg/bench", "unit": "github.com/ncg-rbm/ncg/unit",
}

// checkFunc ends the program of a main block: check stops it on an error,
// naming the document's line.
const checkFunc = `}

//line doctest-wrapper.go:1
func check(err error) {
	if err != nil {
		_, file, line, _ := runtime.Caller(1)
		log.Fatalf("%s:%d: %v", file, line, err)
	}
}
`

func programs(snips []snippet) []program {
	var out []program
	var body strings.Builder
	var first *snippet
	flush := func() {
		if first == nil {
			return
		}
		code := body.String()
		used := map[string]bool{"context": true, "log": true, "runtime": true}
		for name := range stdImports {
			if regexp.MustCompile(`(^|[^\w.])` + name + `\.`).MatchString(stripComments(code)) {
				used[name] = true
			}
		}
		var names []string
		for name := range used {
			names = append(names, name)
		}
		sort.Strings(names)
		var src strings.Builder
		src.WriteString("package main\n\nimport (\n")
		for _, name := range names {
			fmt.Fprintf(&src, "\t%q\n", stdImports[name])
		}
		src.WriteString(")\n\nfunc main() {\n\tctx := context.Background()\n\t_ = ctx\n")
		src.WriteString(code)
		src.WriteString(checkFunc)
		out = append(out, program{name: fmt.Sprintf("%s:%d", first.file, first.line), first: *first, src: src.String()})
		first = nil
		body.Reset()
	}
	for i := range snips {
		s := snips[i]
		switch s.mode {
		case "main":
			flush()
			first = &snips[i]
			fallthrough
		case "continued":
			// Compile errors and panics point into the document.
			fmt.Fprintf(&body, "//line %s:%d\n%s", s.file, s.line+1, s.code)
		case "program":
			flush()
			out = append(out, program{name: fmt.Sprintf("%s:%d", s.file, s.line), first: s,
				src: lineDirective(s.code, s.file, s.line+1)})
		}
	}
	flush()
	return out
}

// lineDirective puts a //line comment after a program's package clause so
// that errors name the document's lines (the clause stays the first line).
func lineDirective(code, file string, line int) string {
	lines := strings.SplitAfter(code, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "package ") {
			return strings.Join(lines[:i+1], "") + fmt.Sprintf("//line %s:%d\n", file, line+i+1) + strings.Join(lines[i+1:], "")
		}
	}
	return code
}

var (
	stringRE  = regexp.MustCompile(`"(\\.|[^"\\])*"|` + "`[^`]*`")
	commentRE = regexp.MustCompile(`//.*`)
)

// stripComments removes the string literals and comments of code, roughly
// (enough to find the identifiers it names).
func stripComments(code string) string {
	return commentRE.ReplaceAllString(stringRE.ReplaceAllString(code, `""`), "")
}

// goEnv is the environment of the go commands: the module cache only, no
// network.
func goEnv() []string {
	return append(os.Environ(), "GOPROXY=off", "GOTOOLCHAIN=local")
}

// runPrograms builds the programs as packages that exist only in an
// overlay (under internal/doctest/snippets of the module, so that they
// import the module's packages as they are), then runs each.
func runPrograms(t *testing.T, root, tmp string, progs []program) {
	overlay := map[string]string{}
	var pkgs []string
	for i, p := range progs {
		src := filepath.Join(tmp, "src", fmt.Sprintf("p%d.go", i))
		if err := os.MkdirAll(filepath.Dir(src), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(src, []byte(p.src), 0o644); err != nil {
			t.Fatal(err)
		}
		dir := fmt.Sprintf("internal/doctest/snippets/p%d", i)
		overlay[filepath.Join(root, dir, "main.go")] = src
		pkgs = append(pkgs, "./"+dir)
	}
	ov := writeOverlay(t, tmp, "programs", overlay)
	bin := filepath.Join(tmp, "bin") + string(filepath.Separator)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", append([]string{"build", "-overlay", ov, "-o", bin}, pkgs...)...)
	cmd.Dir, cmd.Env = root, goEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build of the snippets: %v\n%s", err, out)
	}
	dataDir := os.Getenv("NCG_DATA")
	if dataDir == "" {
		dataDir = filepath.Join(root, "..", "shared", "data")
	}
	if abs, err := filepath.Abs(dataDir); err == nil {
		dataDir = abs
	}
	for i, p := range progs {
		t.Run(strings.NewReplacer("/", "_", ":", "_").Replace(p.name), func(t *testing.T) {
			if readsData(p.src) {
				datatest.Dir(t) // skips (fails in CI) without the data sets, as every test that reads them
			}
			top := filepath.Join(tmp, fmt.Sprintf("run%d", i))
			work := filepath.Join(top, "work")
			if err := os.MkdirAll(filepath.Join(top, "shared"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(work, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(dataDir, filepath.Join(top, "shared", "data")); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, filepath.Join(bin, fmt.Sprintf("p%d", i)))
			cmd.Dir = work
			cmd.Env = append(os.Environ(), "NCG_DATA=") // snippets name their data directory
			start := time.Now()
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Errorf("%s: %v\n--- program\n%s--- output\n%s", p.name, err, p.src, out)
				return
			}
			t.Logf("%s ran in %.1f s:\n%s", p.name, time.Since(start).Seconds(), out)
		})
	}
}

// readsData reports whether a program's code (its comments aside) names
// the shared data directory.
func readsData(src string) bool {
	for _, line := range strings.Split(src, "\n") {
		code, _, _ := strings.Cut(line, "//")
		if strings.Contains(code, "../shared/data") {
			return true
		}
	}
	return false
}

func writeOverlay(t *testing.T, dir, name string, replace map[string]string) string {
	t.Helper()
	b, err := json.Marshal(map[string]map[string]string{"Replace": replace})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name+"-overlay.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// vetAdditions type-checks the packages that snips add to or edit, with
// their tests, through an overlay; the files on disk stay as they are.
func vetAdditions(t *testing.T, root, tmp string, snips []snippet) {
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	edited := map[string]string{} // absolute path → new content
	type key struct{ mod, pkg string }
	pkgs := map[key]bool{}
	for i, s := range snips {
		var path string
		switch s.mode {
		case "file":
			dir := filepath.Join(root, filepath.FromSlash(s.target))
			name, imports, err := packageOf(dir)
			if err != nil {
				t.Fatalf("%s:%d: %v", s.file, s.line, err)
			}
			path = filepath.Join(dir, fmt.Sprintf("zz_doc_snippet_%d.go", i))
			edited[path] = fileFor(name, imports, s)
		case "insert":
			path = filepath.Join(root, filepath.FromSlash(s.target))
			old, ok := edited[path]
			if !ok {
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%s:%d: %v", s.file, s.line, err)
				}
				old = string(b)
			}
			lines := strings.SplitAfter(old, "\n")
			at := -1
			for j, l := range lines {
				if strings.HasPrefix(strings.TrimSpace(l), s.after) {
					at = j
					break
				}
			}
			if at < 0 {
				t.Fatalf("%s:%d: %s has no line starting with %q", s.file, s.line, s.target, s.after)
			}
			ins := fmt.Sprintf("//line %s:%d\n%s//line %s:%d\n", s.file, s.line+1, s.code, filepath.Base(path), at+2)
			edited[path] = strings.Join(lines[:at+1], "") + ins + strings.Join(lines[at+1:], "")
		}
		mod, err := moduleOf(filepath.Dir(path))
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(mod, filepath.Dir(path))
		pkgs[key{mod, "./" + filepath.ToSlash(rel)}] = true
	}
	replace := map[string]string{}
	n := 0
	for path, content := range edited {
		src := filepath.Join(tmp, fmt.Sprintf("f%d.go", n))
		n++
		if err := os.WriteFile(src, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		replace[path] = src
	}
	ov := writeOverlay(t, tmp, "packages", replace)
	byMod := map[string][]string{}
	for k := range pkgs {
		byMod[k.mod] = append(byMod[k.mod], k.pkg)
	}
	for mod, list := range byMod {
		sort.Strings(list)
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		cmd := exec.CommandContext(ctx, "go", append([]string{"vet", "-overlay", ov}, list...)...)
		cmd.Dir, cmd.Env = mod, goEnv()
		out, err := cmd.CombinedOutput()
		cancel()
		if err != nil && mod != root && os.Getenv("CI") == "" && strings.Contains(string(out), "GOPROXY=off") {
			// A module of its own (the avo generators) whose requirements
			// are not in the module cache: CI has them.
			t.Logf("go vet in %s skipped, its modules are not in the module cache:\n%s", mod, out)
			continue
		}
		if err != nil {
			t.Errorf("go vet %s in %s with the snippets of %s: %v\n%s", strings.Join(list, " "), mod, snips[0].file, err, out)
		}
	}
}

// moduleOf returns the directory of the go.mod that governs dir.
func moduleOf(dir string) (string, error) {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod above %s", dir)
		}
	}
}

var (
	packageRE = regexp.MustCompile(`(?m)^package (\w+)`)
	importRE  = regexp.MustCompile(`(?m)^\s*(\w+|\.|_)?\s*("[^"]+")\s*$`)
)

// packageOf returns the name of the package in dir and the imports of its
// non-test files (name or "" → path).
func packageOf(dir string) (string, map[string]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return "", nil, err
	}
	name := ""
	imports := map[string]string{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			return "", nil, err
		}
		text := string(b)
		if m := packageRE.FindStringSubmatch(text); m != nil {
			name = m[1]
		}
		if i := strings.Index(text, "\nimport ("); i >= 0 {
			block := text[i:]
			block = block[:strings.Index(block, "\n)")]
			for _, m := range importRE.FindAllStringSubmatch(block, -1) {
				path, _ := strconv.Unquote(m[2])
				id := m[1]
				if id == "" {
					id = path[strings.LastIndex(path, "/")+1:]
				}
				if id == "." {
					id = ". " + path
				}
				imports[id] = path
			}
		} else if m := regexp.MustCompile(`(?m)^import (\w+ )?("[^"]+")`).FindStringSubmatch(text); m != nil {
			path, _ := strconv.Unquote(m[2])
			imports[path[strings.LastIndex(path, "/")+1:]] = path
		}
	}
	if name == "" {
		return "", nil, fmt.Errorf("no Go package in %s", dir)
	}
	return name, imports, nil
}

var unqualified = regexp.MustCompile(`(^|[^\w.])[A-Z]\w*`)

// fileFor is a Go file of package name holding the declarations of s, with
// the package's imports that s names (its dot imports if s names an
// unqualified exported identifier not declared in s).
func fileFor(name string, imports map[string]string, s snippet) string {
	code := stripComments(s.code)
	var lines []string
	for id, path := range imports {
		switch {
		case strings.HasPrefix(id, ". "):
			if unqualified.MatchString(code) {
				lines = append(lines, fmt.Sprintf("\t. %q", path))
			}
		case regexp.MustCompile(`(^|[^\w.])` + regexp.QuoteMeta(id) + `\.`).MatchString(code):
			if id == path[strings.LastIndex(path, "/")+1:] {
				lines = append(lines, fmt.Sprintf("\t%q", path))
			} else {
				lines = append(lines, fmt.Sprintf("\t%s %q", id, path))
			}
		}
	}
	sort.Strings(lines)
	var b strings.Builder
	fmt.Fprintf(&b, "package %s\n\n", name)
	if len(lines) > 0 {
		fmt.Fprintf(&b, "import (\n%s\n)\n\n", strings.Join(lines, "\n"))
	}
	fmt.Fprintf(&b, "//line %s:%d\n%s", s.file, s.line+1, s.code)
	return b.String()
}
