package kerneltier_test

import (
	"testing"

	"github.com/ncg-rbm/ncg/internal/kerneltier"
	"github.com/ncg-rbm/ncg/kernel"
)

// TestRegistered: package kernel installs its switches when it
// initialises, Use changes the tier kernel reports and restore puts the
// previous one back; an unknown tier is refused and changes nothing.
func TestRegistered(t *testing.T) {
	before := kernel.Tier()
	restore, err := kerneltier.Use("generic")
	if err != nil {
		t.Fatal(err)
	}
	if kernel.Tier() != "generic" {
		t.Errorf("Tier() = %s under Use(generic)", kernel.Tier())
	}
	restore()
	if kernel.Tier() != before {
		t.Errorf("Tier() = %s after restore, want %s", kernel.Tier(), before)
	}
	if _, err := kerneltier.Use("nonsense"); err == nil || kernel.Tier() != before {
		t.Errorf("Use(nonsense): error %v, tier %s (want an error and %s)", err, kernel.Tier(), before)
	}
	kerneltier.ForceRowSums()()
}
