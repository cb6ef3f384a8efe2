//go:build linux

package experiment

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// TestCgroupLimit: the memory limit of the process's cgroup is read from
// fake cgroup trees, v2 and v1, as a Slurm job, a Kubernetes pod and a
// container see them: the smallest limit of the cgroup and those above it
// (the job's, not the step's "max"), named by its file.
func TestCgroupLimit(t *testing.T) {
	const gib = 1 << 30
	for _, c := range []struct {
		name, cgroup, mountinfo string
		files                   map[string]string
		bytes                   uint64
		file                    string
	}{
		{"slurm job, cgroup v2", "0::/system.slice/slurmstepd.scope/job_12/step_0/user/task_0\n",
			"31 23 0:28 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n",
			map[string]string{
				"sys/fs/cgroup/system.slice/slurmstepd.scope/memory.max":                           "max\n",
				"sys/fs/cgroup/system.slice/slurmstepd.scope/job_12/memory.max":                    "1073741824\n",
				"sys/fs/cgroup/system.slice/slurmstepd.scope/job_12/step_0/memory.max":             "max\n",
				"sys/fs/cgroup/system.slice/slurmstepd.scope/job_12/step_0/user/task_0/memory.max": "max\n",
			}, gib, "/sys/fs/cgroup/system.slice/slurmstepd.scope/job_12/memory.max"},
		{"kubernetes pod, cgroup v1 beside an unified v2", "5:memory:/kubepods/pod1/c1\n4:cpu,cpuacct:/kubepods/pod1/c1\n0::/\n",
			"32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n" +
				"35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n" +
				"41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n",
			map[string]string{
				"sys/fs/cgroup/memory/memory.limit_in_bytes":                       "9223372036854771712\n",
				"sys/fs/cgroup/memory/kubepods/memory.limit_in_bytes":              "8589934592\n",
				"sys/fs/cgroup/memory/kubepods/pod1/memory.limit_in_bytes":         "536870912\n",
				"sys/fs/cgroup/memory/kubepods/pod1/c1/memory.limit_in_bytes":      "9223372036854771712\n",
				"sys/fs/cgroup/cpu,cpuacct/kubepods/pod1/c1/memory.limit_in_bytes": "1\n", // not the memory controller's
			}, gib / 2, "/sys/fs/cgroup/memory/kubepods/pod1/memory.limit_in_bytes"},
		{"container with a cgroup namespace, v2", "0::/\n",
			"1 0 0:28 / /sys/fs/cgroup ro - cgroup2 cgroup2 rw\n",
			map[string]string{"sys/fs/cgroup/memory.max": "268435456\n"}, gib / 4, "/sys/fs/cgroup/memory.max"},
		{"container without a cgroup namespace, v1", "9:memory:/docker/abc\n",
			"1 0 0:32 /docker/abc /sys/fs/cgroup/memory ro - cgroup cgroup rw,memory\n",
			map[string]string{"sys/fs/cgroup/memory/memory.limit_in_bytes": "2147483648\n"}, 2 * gib, "/sys/fs/cgroup/memory/memory.limit_in_bytes"},
		{"no limit", "0::/user.slice\n",
			"31 23 0:28 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n",
			map[string]string{"sys/fs/cgroup/user.slice/memory.max": "max\n"}, 0, ""},
	} {
		root := t.TempDir()
		files := map[string]string{"proc/self/cgroup": c.cgroup, "proc/self/mountinfo": c.mountinfo}
		for k, v := range c.files {
			files[k] = v
		}
		for name, text := range files {
			path := filepath.Join(root, name)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got := cgroupLimit(root)
		if got.Bytes != c.bytes || (c.file != "" && got.What != "the cgroup limit "+c.file) {
			t.Errorf("%s: %d bytes (%q), want %d from %s", c.name, got.Bytes, got.What, c.bytes, c.file)
		}
	}
}

// TestGoMemLimitIsALimit: GOMEMLIMIT (here set through
// debug.SetMemoryLimit, as the runtime does from the variable) is the
// limit when it is the smallest, and the refusal names it.
func TestGoMemLimitIsALimit(t *testing.T) {
	old := debug.SetMemoryLimit(100 << 20)
	defer debug.SetMemoryLimit(old)
	if l := smallest(ramLimit(), cgroupLimit("/"), addressSpaceLimit()); l.Bytes != 0 && l.Bytes <= 100<<20 {
		t.Skipf("this process may use %v, less than the test's GOMEMLIMIT", l)
	}
	if got := Memory(); got != (MemoryLimit{100 << 20, "GOMEMLIMIT"}) {
		t.Errorf("Memory() = %+v, want 100 MiB from GOMEMLIMIT", got)
	}
	err := CheckMemory("a task", []MemoryPart{{Setting: "hidden", Value: 1, Bytes: 200 << 20, What: "its matrices"}})
	if err == nil || !strings.Contains(err.Error(), "this process may use 100 MiB (GOMEMLIMIT)") {
		t.Errorf("CheckMemory of 200 MiB: %v, want a refusal naming GOMEMLIMIT", err)
	}
}

// TestAddressSpaceLimit: a process started under prlimit --as (RLIMIT_AS,
// as ulimit -v sets it) finds that limit.
func TestAddressSpaceLimit(t *testing.T) {
	if os.Getenv("NCG_TEST_MEMORY_CHILD") != "" {
		b, _ := json.Marshal(Memory())
		os.Stdout.Write(append([]byte("memory: "), b...))
		return
	}
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		t.Skip("no prlimit(1)")
	}
	const as = 2 << 30
	if l := smallest(ramLimit(), cgroupLimit("/"), goMemLimit()); l.Bytes != 0 && l.Bytes <= as {
		t.Skipf("this process may use %v, less than the test's address space", l)
	}
	cmd := exec.Command(prlimit, "--as=2147483648", os.Args[0], "-test.run", "^TestAddressSpaceLimit$", "-test.count", "1")
	cmd.Env = append(os.Environ(), "NCG_TEST_MEMORY_CHILD=1", "GOMEMLIMIT=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	_, after, _ := strings.Cut(string(out), "memory: ")
	var got MemoryLimit
	if err := json.NewDecoder(strings.NewReader(after)).Decode(&got); err != nil {
		t.Fatalf("%v in %q", err, out)
	}
	if got.Bytes != as || !strings.Contains(got.What, "RLIMIT_AS") {
		t.Errorf("under prlimit --as=%d: %+v, want that limit named RLIMIT_AS", as, got)
	}
}
