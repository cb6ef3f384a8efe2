package experiment

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestRecordedRunsStillMatch: every finished run recorded in
// reproduction/runs, whatever version wrote its config.json, is found
// finished by Run with the Spec it stored (not refused as another
// configuration), and NewSpec of the settings it uses, given by name as
// flags give them, is the same run: its directory is shared with
// ncgbench train of those flags.
func TestRecordedRunsStillMatch(t *testing.T) {
	root := filepath.Join("..", "reproduction", "runs")
	n := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() || !RunDir(path).IsRun() {
			return err
		}
		if RunDir(path).State() != StateFinished {
			return filepath.SkipDir
		}
		n++
		stored, err := RunDir(path).Spec()
		if err != nil {
			t.Fatal(err)
		}
		// A copy of its config.json and result.json.
		dir := filepath.Join(t.TempDir(), "run")
		os.Mkdir(dir, 0o755)
		for _, f := range []string{RunDir(path).ConfigPath(), RunDir(path).ResultPath()} {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		res, err := Run(context.Background(), stored, dir, Options{})
		if err != nil || !res.Skipped {
			t.Errorf("%s: Run with its own Spec: %v (skipped %v), want it found finished", path, err, res != nil && res.Skipped)
			return filepath.SkipDir
		}
		given := Settings{}
		norm := stored.Normalize()
		for _, st := range settings {
			if st.Uses == nil || st.Uses(norm) {
				given[st.Name] = st.Value(norm)
			}
		}
		spec, err := NewSpec(given)
		if err != nil {
			t.Errorf("%s: NewSpec of its settings: %v", path, err)
			return filepath.SkipDir
		}
		if err := spec.foreign(path, mustIdentity(t, stored)); err != nil {
			t.Errorf("%s: %v", path, err)
		}
		return filepath.SkipDir
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 600 {
		t.Errorf("%d finished runs under %s, want the 600 or more recorded", n, root)
	}
}
