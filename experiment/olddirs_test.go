package experiment

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/ncg-rbm/ncg/engine"
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

// TestOldStyleCheckpointResumes: a run stopped by a version that stored
// its Spec as written (a dense run with NCG's γ and p, SET's ε and ζ, the
// line width, in config.json and in the checkpoint) resumes under Normalize
// and ends with the bits of a run never stopped.
func TestOldStyleCheckpointResumes(t *testing.T) {
	spec, err := NewSpec(Settings{"data": "bas", "method": "dense", "epochs": 4, "likelihood": "none"})
	if err != nil {
		t.Fatal(err)
	}
	old := spec
	old.Engine.Gamma, old.Engine.P, old.Engine.Epsilon, old.Engine.Zeta, old.Engine.LineWidth = 0.5, 0.5, 11, 0.3, 8
	oldJSON, err := json.Marshal(old) // as written, not normalised
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	rd, tr := stoppedAfterEpoch2(t, spec, dir)
	if err := tr.SetIdentity(oldJSON); err != nil {
		t.Fatal(err)
	}
	if err := tr.SaveCheckpoint(rd.CheckpointPath()); err != nil {
		t.Fatal(err)
	}
	tr.Close()
	meta, _ := rd.Meta()
	if err := writeJSON(rd.ConfigPath(), struct {
		Spec json.RawMessage `json:"spec"`
		Meta Meta            `json:"meta"`
	}{oldJSON, meta}); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), spec, dir, Options{Workers: 1}); err != nil {
		t.Fatalf("resuming the old-style run: %v", err)
	}
	whole := filepath.Join(t.TempDir(), "whole")
	if _, err := Run(context.Background(), spec, whole, Options{Workers: 1}); err != nil {
		t.Fatal(err)
	}
	a, err1 := os.ReadFile(rd.ModelPath())
	b, err2 := os.ReadFile(RunDir(whole).ModelPath())
	if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
		t.Errorf("the resumed old-style run's model differs from a run never stopped (%v, %v)", err1, err2)
	}
}

// engineDataOf loads a Spec's training data as the engine takes it.
// stoppedAfterEpoch2 runs spec in dir until its second epoch's checkpoint
// and returns the run directory and the trainer resumed from it.
func stoppedAfterEpoch2(t *testing.T, spec Spec, dir string) (RunDir, *engine.Trainer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	_, err := Run(ctx, spec, dir, Options{CheckpointEvery: EveryEpoch, Workers: 1, Progress: func(e Event) {
		if d, ok := e.(EpochDone); ok && d.Metrics.Epoch == 2 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("stopping after epoch 2: %v", err)
	}
	rd := RunDir(dir)
	d, err := engineDataOf(spec)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := engine.Resume(rd.CheckpointPath(), d, 1)
	if err != nil {
		t.Fatal(err)
	}
	return rd, tr
}

func engineDataOf(s Spec) (*engine.Data, error) {
	train, _, err := Load(s, "")
	if err != nil {
		return nil, err
	}
	return engineData(s, train)
}

// TestOldPCDRunResumes: a PCD run stopped by a version that wrote the
// sampler as "pcd": true (in config.json and the checkpoint's label)
// resumes as the sampler pcd and ends with the bits of a run never
// stopped; finished, it is found finished.
func TestOldPCDRunResumes(t *testing.T) {
	spec, err := NewSpec(Settings{"data": "bas", "method": "dense", "sampler": "pcd", "epochs": 4, "likelihood": "none"})
	if err != nil {
		t.Fatal(err)
	}
	if spec.Engine.Sampler != engine.PersistentCD {
		t.Fatalf("sampler %q", spec.Engine.Sampler)
	}
	oldForm := func(s Spec) json.RawMessage {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(b, []byte(`"sampler":"pcd"`)) {
			t.Fatalf("no sampler pcd in %s", b)
		}
		return bytes.Replace(b, []byte(`"sampler":"pcd"`), []byte(`"pcd":true`), 1)
	}
	dir := filepath.Join(t.TempDir(), "run")
	rd, tr := stoppedAfterEpoch2(t, spec, dir)
	if err := tr.SetIdentity(oldForm(spec)); err != nil {
		t.Fatal(err)
	}
	if err := tr.SaveCheckpoint(rd.CheckpointPath()); err != nil {
		t.Fatal(err)
	}
	tr.Close()
	var cfg map[string]json.RawMessage
	if err := json.Unmarshal(mustRead(t, rd.ConfigPath()), &cfg); err != nil {
		t.Fatal(err)
	}
	cfg["spec"] = oldForm(spec)
	if err := writeJSON(rd.ConfigPath(), cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), spec, dir, Options{Workers: 1}); err != nil {
		t.Fatalf("resuming the run stored with pcd = true: %v", err)
	}
	whole := filepath.Join(t.TempDir(), "whole")
	if _, err := Run(context.Background(), spec, whole, Options{Workers: 1}); err != nil {
		t.Fatal(err)
	}
	a, b := mustRead(t, rd.ModelPath()), mustRead(t, RunDir(whole).ModelPath())
	if !bytes.Equal(a, b) {
		t.Error("the resumed run's model differs from a run never stopped")
	}
	// Finished, with result.json in the old form too.
	var res map[string]json.RawMessage
	if err := json.Unmarshal(mustRead(t, rd.ResultPath()), &res); err != nil {
		t.Fatal(err)
	}
	res["spec"] = oldForm(spec)
	if err := writeJSON(rd.ResultPath(), res); err != nil {
		t.Fatal(err)
	}
	if r, err := Run(context.Background(), spec, dir, Options{Workers: 1}); err != nil || !r.Skipped {
		t.Errorf("the finished run stored with pcd = true: %v, want it found finished", err)
	}
}
