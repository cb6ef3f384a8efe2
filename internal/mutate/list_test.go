package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseList(t *testing.T) {
	src := "# comment\n" +
		"name: a\nfile: x/y.go\npackage: ./x/\nrun: ^TestY$\nenv: K=v\nbreaks: what\n- one\n-\n- two\n+ three\n\n" +
		"name: b\nfile: z.go\npackage: ./\nbreaks: w\n- p\n+ q\n"
	ms, err := parseList(strings.NewReader(src), "list")
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 {
		t.Fatalf("%d mutations, want 2", len(ms))
	}
	a := ms[0]
	if a.Name != "a" || a.File != "x/y.go" || a.Package != "./x/" || a.Run != "^TestY$" || len(a.Env) != 1 || a.Env[0] != "K=v" ||
		a.Original != "one\n\ntwo" || a.Mutated != "three" || a.Line != 2 {
		t.Errorf("first entry %+v", a)
	}
	if got, err := a.apply("x one\n\ntwo y"); err != nil || got != "x three y" {
		t.Errorf("apply: %q, %v", got, err)
	}
	if _, err := a.apply("one\n\ntwo one\n\ntwo"); err == nil || !strings.Contains(err.Error(), "2 times") {
		t.Errorf("twice: %v", err)
	}
	if _, err := a.apply("nothing"); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("missing: %v", err)
	}
	for _, bad := range []string{
		"name: a\nfile: f\npackage: p\n- x\n+ y\n",                                                                 // no breaks
		"name: a\nfile: f\npackage: p\nbreaks: b\n+ y\n",                                                           // no original
		"name: a\nfile: f\npackage: p\nbreaks: b\n- x\n+ x\n",                                                      // no change
		"name: a\nfile: ../f\npackage: p\nbreaks: b\n- x\n+ y\n",                                                   // outside
		"name: a\nfile: f\npackage: p\nbreaks: b\n- x\nrun: r\n+ y\n",                                              // key after text
		"name: a\nfile: f\npackage: p\nbreaks: b\ncolour: red\n- x\n",                                              // unknown key
		"name: a\nfile: f\npackage: p\nbreaks: b\n- x\n+ y\n\nname: a\nfile: f\npackage: p\nbreaks: b\n- x\n+ z\n", // twice
	} {
		if _, err := parseList(strings.NewReader(bad), "list"); err == nil {
			t.Errorf("accepted:\n%s", bad)
		}
	}
}

// TestRepositoryList: the list CI runs parses, holds at least 25
// mutations, and each original text occurs exactly once in its file.
func TestRepositoryList(t *testing.T) {
	root := filepath.Join("..", "..")
	f, err := os.Open(filepath.Join(root, ".ci", "mutations.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ms, err := parseList(f, ".ci/mutations.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) < 25 {
		t.Errorf("%d mutations, want at least 25", len(ms))
	}
	for _, m := range ms {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(m.File)))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.apply(string(b)); err != nil {
			t.Error(err)
		}
	}
}
