package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

// startSweepTask starts a sweep as a Slurm array task would: its shard
// from the environment given, with -shards 3.
func startSweepTask(t *testing.T, dir string, errb *syncBuffer, env []string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"sweep", "-shards", "3"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd
}

// TestSameShardTwiceIsRefused: two Slurm array tasks given the same shard
// index (the array submitted again, one task of it submitted alone) do
// not both run: the second is refused at once, saying which shard of
// which sweep is already running and by which process, while a task of
// another shard runs beside the first.
func TestSameShardTwiceIsRefused(t *testing.T) {
	dir := t.TempDir()
	sweep := []string{"-data", "bas", "-method", "ncg,dense", "-seed", "1-3", "-epochs", "1000000", "-likelihood", "none", "-out", "s", "-quiet"}
	errb := newSyncBuffer()
	// The first array, --array=0-2: its task 1.
	first := startSweepTask(t, dir, errb, []string{"SLURM_ARRAY_TASK_ID=1", "SLURM_ARRAY_TASK_MIN=0", "SLURM_ARRAY_TASK_COUNT=3"}, sweep...)
	// Its task 2: another shard, in the same directory.
	other := startSweepTask(t, dir, errb, []string{"SLURM_ARRAY_TASK_ID=2", "SLURM_ARRAY_TASK_MIN=0", "SLURM_ARRAY_TASK_COUNT=3"}, sweep...)
	// Runs 1 and 4 of the grid (method × seed, the seed fastest) are shard
	// 1's; run 2 is shard 2's.
	waitFor(t, filepath.Join(dir, "s", "bas-ncg-seed2", "config.json"), 30*time.Second)
	waitFor(t, filepath.Join(dir, "s", "bas-ncg-seed3", "config.json"), 30*time.Second)

	// sbatch --array=1 of the same script: Slurm sets these for its task.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dup := exec.CommandContext(ctx, binary, append([]string{"sweep", "-shards", "3"}, sweep...)...)
	dup.Dir = dir
	dup.Env = append(os.Environ(), "SLURM_ARRAY_TASK_ID=1", "SLURM_ARRAY_TASK_MIN=1", "SLURM_ARRAY_TASK_COUNT=1")
	out, err := dup.CombinedOutput()
	want := fmt.Sprintf("shard 1/3 of the sweep in s is already running: s is in use by process %d", first.Process.Pid)
	if dup.ProcessState == nil || dup.ProcessState.ExitCode() != 1 || !strings.Contains(string(out), want) {
		t.Errorf("a second task of shard 1: %v, %q; want exit 1 and %q", err, out, want)
	}
	for _, cmd := range []*exec.Cmd{first, other} {
		if cmd.ProcessState != nil {
			t.Fatalf("a first task stopped: %s", errb.String())
		}
		cmd.Process.Signal(os.Interrupt)
		if err := cmd.Wait(); cmd.ProcessState.ExitCode() != 130 {
			t.Errorf("Ctrl-C: %v, want exit 130; %s", err, errb.String())
		}
	}
}

// docSection returns docs/cli.md from the heading line on, up to the next
// heading of the same or a higher level.
func docSection(t *testing.T, heading string) string {
	t.Helper()
	b, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i := strings.Index(doc, "\n"+heading+"\n")
	if i < 0 {
		t.Fatalf("docs/cli.md has no %q", heading)
	}
	level := heading[:strings.IndexByte(heading, ' ')+1]
	rest := doc[i+1+len(heading):]
	for _, h := range []string{"\n# ", "\n## ", "\n### ", "\n#### "} {
		if len(h)-1 > len(level) {
			break
		}
		if j := strings.Index(rest, h); j >= 0 {
			rest = rest[:j]
		}
	}
	return rest
}

// fenced returns the bodies of the fenced blocks in text whose opening
// fence starts with open.
func fenced(text, open string) []string {
	var blocks []string
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], open) {
			continue
		}
		var body []string
		for i++; i < len(lines) && lines[i] != "```"; i++ {
			body = append(body, lines[i])
		}
		blocks = append(blocks, strings.Join(body, "\n"))
	}
	return blocks
}

// shardRuns returns the run indices that the sweep of args gives one task
// with the environment env, through the command's -dry-run -json.
func shardRuns(t *testing.T, dir string, env []string, args []string) []int {
	t.Helper()
	cmd := exec.Command(binary, append(append([]string{"sweep"}, args...), "-dry-run", "-json")...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("sweep %v -dry-run with %v: %v", args, env, err)
	}
	var runs []struct{ Index int }
	if err := json.Unmarshal(out, &runs); err != nil {
		t.Fatal(err)
	}
	idx := make([]int, len(runs))
	for i, r := range runs {
		idx[i] = r.Index
	}
	return idx
}

// coversOnce checks that the shards' runs are the sweep's, each once.
func coversOnce(t *testing.T, what string, shards [][]int, total int) {
	t.Helper()
	seen := map[int]int{}
	for _, s := range shards {
		if len(s) == 0 {
			t.Errorf("%s: a shard has no runs", what)
		}
		for _, i := range s {
			seen[i]++
		}
	}
	for i := 0; i < total; i++ {
		if seen[i] != 1 {
			t.Errorf("%s: run %d is in %d shards, want 1", what, i, seen[i])
		}
	}
	if len(seen) != total {
		t.Errorf("%s: %d runs in the shards, want the sweep's %d", what, len(seen), total)
	}
}

// recipeFlags checks a sweep command line with the command's own flag parser
// and returns its -shards and -out.
func recipeFlags(t *testing.T, what string, args []string) (shards int, out string) {
	t.Helper()
	s, _, err := parseSweepFlags(args, io.Discard)
	if err != nil {
		t.Fatalf("%s: %v: %v", what, args, err)
	}
	if *s.shard != "" {
		t.Errorf("%s: -shard %s: the shard must come from the scheduler", what, *s.shard)
	}
	return *s.shards, s.run.out
}

// TestClusterRecipes: docs/cli.md's Slurm script and Kubernetes Indexed Job
// run sweeps the command accepts, with as many shards as array tasks or
// completions, and each task or Pod, given the variables its scheduler
// sets, runs its own part: together every run of the sweep, once. A Slurm
// task submitted again alone runs the same shard as in the whole array.
// (.ci/slurm submits the Slurm block to a real cluster.)
func TestClusterRecipes(t *testing.T) {
	dir := t.TempDir()

	t.Run("slurm", func(t *testing.T) {
		sec := docSection(t, "#### Slurm")
		var recipe string
		for _, b := range fenced(sec, "```sh skip") {
			if strings.Contains(b, "sbatch --array=") {
				recipe = b
			}
		}
		if !strings.Contains(sec, ".ci/slurm submits this block") || recipe == "" {
			t.Fatal("docs/cli.md: no Slurm recipe block for .ci/slurm to submit")
		}
		var lo, hi int
		var line []string
		for _, l := range strings.Split(recipe, "\n") {
			if strings.HasPrefix(l, "sbatch --array=") {
				if _, err := fmt.Sscanf(l, "sbatch --array=%d-%d sweep.sbatch", &lo, &hi); err != nil {
					t.Fatalf("%q: want sbatch --array=A-B sweep.sbatch: %v", l, err)
				}
			}
			if rest, ok := strings.CutPrefix(l, "exec ./ncgbench sweep "); ok {
				if strings.ContainsAny(rest, `"'\$`) {
					t.Fatalf("%q: the test splits the command line at spaces", l)
				}
				line = strings.Fields(rest)
			}
		}
		for _, opt := range []string{"#SBATCH --requeue", "#SBATCH --open-mode=append"} {
			if !strings.Contains(recipe, "\n"+opt+"\n") {
				t.Errorf("the batch script lacks %s, which the recipe explains", opt)
			}
		}
		if line == nil {
			t.Fatal("the batch script has no line 'exec ./ncgbench sweep …'")
		}
		shards, _ := recipeFlags(t, "Slurm", line)
		if lo != 0 || hi-lo+1 != shards {
			t.Fatalf("--array=%d-%d with -shards %d: want the array 0 to shards-1", lo, hi, shards)
		}
		total := len(shardRuns(t, dir, nil, append(line, "-shards", "1")))
		var parts [][]int
		for id := lo; id <= hi; id++ {
			env := []string{fmt.Sprintf("SLURM_ARRAY_TASK_ID=%d", id), fmt.Sprintf("SLURM_ARRAY_TASK_MIN=%d", lo),
				fmt.Sprintf("SLURM_ARRAY_TASK_COUNT=%d", hi-lo+1)}
			parts = append(parts, shardRuns(t, dir, env, line))
			// sbatch --array=ID alone.
			alone := shardRuns(t, dir, []string{fmt.Sprintf("SLURM_ARRAY_TASK_ID=%d", id), fmt.Sprintf("SLURM_ARRAY_TASK_MIN=%d", id),
				"SLURM_ARRAY_TASK_COUNT=1"}, line)
			if fmt.Sprint(alone) != fmt.Sprint(parts[len(parts)-1]) {
				t.Errorf("task %d submitted alone runs %v, in the array %v", id, alone, parts[len(parts)-1])
			}
		}
		coversOnce(t, "Slurm", parts, total)
	})

	t.Run("kubernetes", func(t *testing.T) {
		blocks := fenced(docSection(t, "#### Kubernetes"), "```yaml")
		if len(blocks) != 1 {
			t.Fatalf("docs/cli.md's Kubernetes section has %d yaml blocks, want 1", len(blocks))
		}
		var job struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Spec       struct {
				CompletionMode   string          `json:"completionMode"`
				Completions      *int            `json:"completions"`
				Parallelism      *int            `json:"parallelism"`
				PodFailurePolicy json.RawMessage `json:"podFailurePolicy"`
				Template         struct {
					Spec struct {
						RestartPolicy string `json:"restartPolicy"`
						Containers    []struct {
							Command      []string `json:"command"`
							Args         []string `json:"args"`
							VolumeMounts []struct {
								MountPath string `json:"mountPath"`
							} `json:"volumeMounts"`
						} `json:"containers"`
					} `json:"spec"`
				} `json:"template"`
			} `json:"spec"`
		}
		if err := yaml.Unmarshal([]byte(blocks[0]), &job); err != nil {
			t.Fatalf("the Job manifest: %v", err)
		}
		spec := job.Spec
		if job.APIVersion != "batch/v1" || job.Kind != "Job" || spec.CompletionMode != "Indexed" {
			t.Errorf("apiVersion %q, kind %q, completionMode %q: want batch/v1, Job, Indexed", job.APIVersion, job.Kind, spec.CompletionMode)
		}
		if spec.PodFailurePolicy != nil && spec.Template.Spec.RestartPolicy != "Never" {
			t.Errorf("restartPolicy %q: a podFailurePolicy needs Never", spec.Template.Spec.RestartPolicy)
		}
		if len(spec.Template.Spec.Containers) != 1 || spec.Completions == nil {
			t.Fatalf("want one container and completions")
		}
		c := spec.Template.Spec.Containers[0]
		argv := append(append([]string{}, c.Command...), c.Args...)
		if len(argv) < 2 || argv[0] != "ncgbench" || argv[1] != "sweep" {
			t.Fatalf("the container runs %q, want ncgbench sweep …", argv)
		}
		line := argv[2:]
		shards, out := recipeFlags(t, "Kubernetes", line)
		if shards != *spec.Completions {
			t.Fatalf("-shards %d with completions %d: they must agree", shards, *spec.Completions)
		}
		if spec.Parallelism != nil && (*spec.Parallelism < 1 || *spec.Parallelism > shards) {
			t.Errorf("parallelism %d with %d shards", *spec.Parallelism, shards)
		}
		mounted := false
		for _, m := range c.VolumeMounts {
			mounted = mounted || strings.HasPrefix(out, strings.TrimSuffix(m.MountPath, "/")+"/")
		}
		if !mounted {
			t.Errorf("-out %s is on no volume the Pods share", out)
		}
		// -out is an absolute path of the Pod's; the dry runs need not write.
		local := append(append([]string{}, line...), "-out", "k8s-sweep")
		total := len(shardRuns(t, dir, nil, append(local, "-shards", "1")))
		var parts [][]int
		for i := 0; i < *spec.Completions; i++ {
			parts = append(parts, shardRuns(t, dir, []string{fmt.Sprintf("JOB_COMPLETION_INDEX=%d", i)}, local))
		}
		coversOnce(t, "Kubernetes", parts, total)
	})
}
