package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// docFiles are the documents whose shell examples TestDocExamples runs,
// relative to the module root.
var docFiles = []string{"README.md", "docs/cli.md", "docs/library.md"}

// docBlock is one fenced shell block of a document.
type docBlock struct {
	file   string
	line   int    // of the opening fence
	skip   string // the reason given after "skip", or "" to run it
	script string
}

// shellBlocks returns the ```sh blocks of a Markdown file. Each must be
// marked: "```sh run" runs it, "```sh skip REASON" shows it only (a long
// run, a download); an unmarked sh block is an error, so that no example
// escapes the test by accident.
func shellBlocks(path, name string) ([]docBlock, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var blocks []docBlock
	var cur *docBlock
	var body strings.Builder
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case cur == nil && strings.HasPrefix(trimmed, "```sh"):
			info := strings.Fields(strings.TrimPrefix(trimmed, "```"))
			b := docBlock{file: name, line: n}
			switch {
			case len(info) >= 2 && info[1] == "run":
			case len(info) >= 3 && info[1] == "skip":
				b.skip = strings.Join(info[2:], " ")
			default:
				return nil, fmt.Errorf("%s:%d: mark the sh block \"sh run\" or \"sh skip REASON\"", name, n)
			}
			cur = &b
			body.Reset()
		case cur != nil && trimmed == "```":
			cur.script = body.String()
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			body.WriteString(line)
			body.WriteByte('\n')
		}
	}
	if cur != nil {
		return nil, fmt.Errorf("%s:%d: unterminated code block", name, cur.line)
	}
	return blocks, sc.Err()
}

// TestDocExamples runs every "sh run" block of the documents, in order, in
// a copy of the repository's files (tracked and not ignored, as a fresh
// clone would have them) with the data directory beside it at
// ../shared/data, as in the examples; a block fails on the first command
// that fails. Examples that train for long are marked skip in the documents.
func TestDocExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the documents' examples (about a minute); not in -short")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dataDir := os.Getenv("NCG_DATA")
	if dataDir == "" {
		dataDir = filepath.Join(root, "..", "shared", "data")
	}
	if _, err := os.Stat(dataDir); err != nil {
		if os.Getenv("NCG_REQUIRE_DATA") != "" {
			t.Fatalf("data directory: %v", err)
		}
		t.Skipf("the examples read ../shared/data: %v", err)
	}
	if dataDir, err = filepath.Abs(dataDir); err != nil {
		t.Fatal(err)
	}
	for _, name := range docFiles {
		blocks, err := shellBlocks(filepath.Join(root, name), name)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(strings.ReplaceAll(name, "/", "_"), func(t *testing.T) {
			top := t.TempDir()
			clone := filepath.Join(top, "ncg")
			copyRepo(t, root, clone)
			if err := os.MkdirAll(filepath.Join(top, "shared"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(dataDir, filepath.Join(top, "shared", "data")); err != nil {
				t.Fatal(err)
			}
			ran := 0
			for _, b := range blocks {
				if b.skip != "" {
					t.Logf("%s:%d skipped: %s", b.file, b.line, b.skip)
					continue
				}
				runBlock(t, clone, b)
				ran++
			}
			if ran == 0 {
				t.Errorf("%s has no runnable examples", name)
			}
		})
	}
}

// TestRunBlockKeepsTempFilesInTheTest: a block's temporary files (the
// examples' mktemp -d, go run's build directory) go to a directory of the
// test, removed with it, not to the system's temporary directory.
func TestRunBlockKeepsTempFilesInTheTest(t *testing.T) {
	sys := t.TempDir()
	t.Setenv("TMPDIR", sys)
	ok := t.Run("block", func(t *testing.T) {
		runBlock(t, t.TempDir(), docBlock{file: "x.md", line: 1, script: "d=$(mktemp -d)\necho run > \"$d/config.json\"\nmktemp >/dev/null\n"})
	})
	if !ok {
		t.Fatal("the block failed")
	}
	left, err := os.ReadDir(sys)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range left {
		t.Errorf("left in $TMPDIR: %s", e.Name())
	}
}

// runBlock runs one block with bash, stopping at the first failing command.
func runBlock(t *testing.T, dir string, b docBlock) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", b.script)
	cmd.Dir = dir
	// The examples name their data directory; their temporary files (mktemp,
	// go run's build) are removed with the test.
	cmd.Env = append(os.Environ(), "NCG_DATA=", "TMPDIR="+t.TempDir())
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Errorf("%s:%d: %v\n--- script\n%s--- output\n%s", b.file, b.line, err, b.script, out)
		return
	}
	t.Logf("%s:%d ran in %.1f s", b.file, b.line, time.Since(start).Seconds())
}

// copyRepo copies the repository's tracked and unignored files from root
// to dst.
func copyRepo(t *testing.T, root, dst string) {
	t.Helper()
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("git ls-files (the test copies the repository's files): %v", err)
	}
	for _, rel := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		src := filepath.Join(root, rel)
		st, err := os.Lstat(src)
		if err != nil || !st.Mode().IsRegular() {
			continue // deleted in the work tree, or not a file
		}
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		target := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(target, data, st.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDocsDescribeTheProjectAsItIs: the documents and the Go sources cite
// no document outside the repository ("SPEC §n") and number no work
// periods; the commit log keeps the project's history.
func TestDocsDescribeTheProjectAsItIs(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	bad := regexp.MustCompile(`SPEC §|\b[Ss]ession \d|\b[Ss]essions \d`)
	checked := 0
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && rel != "." || rel == "reproduction" || rel == "runs" || rel == "reports" {
				return filepath.SkipDir // reproduction/ holds generated tables and run records
			}
			return nil
		}
		// This file names the patterns.
		if rel == filepath.Join("cmd", "ncgbench", "docs_test.go") ||
			!(strings.HasSuffix(path, ".md") || strings.HasSuffix(path, ".go")) {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		checked++
		for i, line := range strings.Split(string(b), "\n") {
			if m := bad.FindString(line); m != "" {
				t.Errorf("%s:%d: %q: describe the project as it is, and cite the paper or docs/algorithm.md", rel, i+1, m)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Errorf("checked only %d files", checked)
	}
}

// TestCLIReferenceIsComplete: docs/cli.md has a section for every command
// and names every flag that a command's -h lists.
func TestCLIReferenceIsComplete(t *testing.T) {
	doc, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	flagLine := regexp.MustCompile(`^\s+-([a-z0-9-]+)`)
	inUsage := regexp.MustCompile(`\[-([a-z0-9-]+)`)
	for name := range commands {
		if !strings.Contains(text, "\n## "+name+"\n") {
			t.Errorf("docs/cli.md has no section \"## %s\"", name)
		}
		out, errb, _ := runCmd(name, "-h")
		n := 0
		for _, line := range strings.Split(out+errb, "\n") {
			var flags []string
			if m := flagLine.FindStringSubmatch(line); m != nil {
				flags = append(flags, m[1])
			}
			for _, m := range inUsage.FindAllStringSubmatch(line, -1) {
				flags = append(flags, m[1])
			}
			for _, f := range flags {
				n++
				if !strings.Contains(text, "`-"+f) {
					t.Errorf("docs/cli.md does not document %s -%s", name, f)
				}
			}
		}
		if n == 0 && name != "version" {
			t.Errorf("%s -h lists no flags", name)
		}
	}
}

// TestReadmeFirstScreen: README.md stays under 16,000 bytes (its speed
// prose lives in docs/benchmarks.md), and its first screen (the first
// 25 lines) gives the two commands a newcomer needs: the demo and the
// tests.
func TestReadmeFirstScreen(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(b) >= 16000 {
		t.Errorf("README.md has %d bytes, want under 16,000", len(b))
	}
	lines := strings.SplitN(string(b), "\n", 26)
	first := strings.Join(lines[:min(25, len(lines))], "\n")
	for _, cmd := range []string{"go run ./cmd/ncgbench train", "go test ./..."} {
		if !strings.Contains(first, "\n"+cmd) {
			t.Errorf("README.md's first 25 lines lack %q", cmd)
		}
	}
}
