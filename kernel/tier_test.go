package kernel

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Tier selection: the test switch and NCG_KERNEL.

func TestUseTier(t *testing.T) {
	before := Tier()
	if _, err := useTier("nonsense"); err == nil {
		t.Error("useTier(nonsense) succeeded")
	}
	if Tier() != before {
		t.Errorf("Tier() = %s after a failed useTier, want %s", Tier(), before)
	}
	restore, err := useTier("generic")
	if err != nil {
		t.Fatal(err)
	}
	if Tier() != "generic" {
		t.Errorf("Tier() = %s after useTier(generic)", Tier())
	}
	restore()
	if Tier() != before {
		t.Errorf("Tier() = %s after restore, want %s", Tier(), before)
	}
	for _, name := range []string{"avx2", "avx512", "neon"} {
		supported := false
		for _, a := range Tiers() {
			supported = supported || a == name
		}
		restore, err := useTier(name)
		if (err == nil) != supported {
			t.Errorf("useTier(%s) error %v, supported %v", name, err, supported)
		}
		if supported && Tier() != name {
			t.Errorf("Tier() = %s after useTier(%s)", Tier(), name)
		}
		restore()
	}
}

// TestEnvVarChoice runs a child test binary with NCG_KERNEL set, as users do.
func TestEnvVarChoice(t *testing.T) {
	if os.Getenv("NCG_KERNEL_CHILD") != "" {
		return
	}
	for _, tc := range []struct{ env, want string }{{"generic", "generic"}, {"bogus", "unknown tier"}, {"neon-or-avx", "unknown tier"}} {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestEnvVarChoiceChild$", "-test.v")
		cmd.Env = append(os.Environ(), "NCG_KERNEL="+tc.env, "NCG_KERNEL_CHILD=1")
		out, err := cmd.CombinedOutput()
		if _, exited := err.(*exec.ExitError); err != nil && !exited {
			// Under qemu-user without binfmt the binary cannot start itself.
			t.Skipf("cannot run the test binary as a child process: %v", err)
		}
		if !strings.Contains(string(out), tc.want) {
			t.Errorf("NCG_KERNEL=%s: output lacks %q:\n%s", tc.env, tc.want, out)
		}
	}
}

func TestEnvVarChoiceChild(t *testing.T) {
	if os.Getenv("NCG_KERNEL_CHILD") == "" {
		t.Skip("run by TestEnvVarChoice")
	}
	// TestMain has already called Init and exited on an error.
	t.Logf("tier in use: %s", Tier())
}
