package engine

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ncg-rbm/ncg/kernel"
	"github.com/ncg-rbm/ncg/unit"
)

// The bits every configuration trains, recorded per kernel tier in
// testdata/bits.json: a change to the engine's structure must not change
// what any configuration learns. A deliberate change of the arithmetic
// re-records the table (go test ./engine -run TrainedBits -update-bits,
// on every tier: NCG_KERNEL=avx512, avx2, generic, and arm64 under qemu)
// and says why in its commit.

var updateBits = flag.Bool("update-bits", false, "record testdata/bits.json for this tier")

// bitsConfigs is every configuration the table covers, by name.
func bitsConfigs() map[string]Config {
	cs := map[string]Config{}
	for _, m := range allMethods {
		cs["binary-"+string(m)] = smallConfig(m)
	}
	sp := sparseConfigs()
	cs["binary-set-compressed"], cs["binary-random-compressed"], cs["binary-line-compressed"] = sp[0], sp[1], sp[2]
	pcd := smallConfig(NCG)
	pcd.Sampler = PersistentCD
	cs["binary-ncg-pcd"] = pcd
	for _, m := range []Method{NCG, Dense} {
		pt := smallConfig(m)
		pt.Sampler, pt.Temperatures, pt.MinBeta, pt.K = ParallelTempering, 4, 0.3, 2
		cs["binary-"+string(m)+"-pt"] = pt
	}
	mom := smallConfig(NCG)
	mom.Momentum, mom.MomentumStart, mom.MomentumEpochs, mom.L2, mom.L1 = 0.9, 0.5, 1, 1e-3, 1e-4
	cs["binary-ncg-momentum-decay"] = mom
	momSparse := sp[1]
	momSparse.Momentum, momSparse.L2 = 0.5, 1e-3
	cs["binary-random-compressed-momentum"] = momSparse
	sched := smallConfig(NCG)
	sched.LRSchedule, sched.LRFinal, sched.Epochs = Linear, 0.01, 3
	cs["binary-ncg-linear-lr"] = sched
	for _, m := range []Method{NCG, Dense} {
		c := smallConfig(m)
		c.Centre = true
		cs["binary-"+string(m)+"-centre"] = c
	}
	ctrPT := cs["binary-ncg-pt"]
	ctrPT.Centre = true
	cs["binary-ncg-pt-centre"] = ctrPT
	ctrSparse := sp[0]
	ctrSparse.Centre = true
	cs["binary-set-compressed-centre"] = ctrSparse
	for _, form := range []struct {
		name string
		cfg  Config
	}{{"", smallConfig(SET)}, {"-compressed", sp[0]}} {
		c := form.cfg
		c.SETProcedure, c.Init, c.InitScale, c.K = Mocanu, Normal, MocanuInitScale, MocanuK
		cs["binary-set-mocanu"+form.name] = c
	}
	for _, m := range []Method{Dense, NCG, Line} {
		for _, learn := range []bool{false, true} {
			name := "gaussian-" + string(m)
			if learn {
				name += "-learn-sigma"
			}
			cs[name] = gaussConfig(m, learn)
		}
	}
	thin := gaussConfig(NCG, false) // C pruned below SparseDensity: compressed chain products
	thin.P = 0.1
	cs["gaussian-ncg-thin"] = thin
	thin.LearnSigma = true
	cs["gaussian-ncg-thin-learn-sigma"] = thin
	for _, learn := range []bool{false, true} {
		suffix := map[bool]string{false: "", true: "-learn-sigma"}[learn]
		pcd := gaussConfig(NCG, learn)
		pcd.Sampler = PersistentCD
		cs["gaussian-ncg-pcd"+suffix] = pcd
		pt := gaussConfig(NCG, learn)
		pt.Sampler, pt.Temperatures, pt.MinBeta, pt.K = ParallelTempering, 3, 0.4, 2
		cs["gaussian-ncg-pt"+suffix] = pt
		ctr := gaussConfig(NCG, learn)
		ctr.Centre = true
		cs["gaussian-ncg-centre"+suffix] = ctr
		mom := gaussConfig(Dense, learn)
		mom.Momentum, mom.L2 = 0.5, 1e-3
		cs["gaussian-dense-momentum"+suffix] = mom
	}
	// Learned σ with the defaults' own step and floor; the entries above
	// keep σ's older step (that of the biases, no floor).
	for name, c := range cs {
		if c.LearnSigma {
			c.SigmaStep, c.MinSigma = 0, 0
			cs[name] = c
		}
	}
	for _, m := range []Method{Dense, NCG} {
		c := gaussConfig(m, true)
		c.SigmaStep, c.MinSigma = DefaultSigmaStep, 0.9 // a floor some units reach
		cs["gaussian-"+string(m)+"-learn-sigma-step-floor"] = c
	}
	for _, c := range catConfigs() {
		name := "categorical-" + strings.ReplaceAll(describeConfig(c), " ", ",")
		cs[name] = c
	}
	for name, c := range cs {
		c.Workers = 2
		cs[name] = c
	}
	return cs
}

// bitsData is the data of a configuration: labels for the classification
// case, real values for Gaussian units.
func bitsData(name string, cfg Config) *Data {
	switch {
	case cfg.Visible == unit.Gaussian:
		return gaussData(11, 137, 40)
	case cfg.Visible == unit.Categorical:
		return categoricalData(14, 137, catGroups, 0)
	case name == "binary-ncg-classify":
		return randomData(12, 137, 40, 3)
	}
	return randomData(13, 137, 40, 0)
}

// trainedBits trains cfg and returns the sha256 of its parameters and of
// every epoch's reconstruction error.
func trainedBits(t *testing.T, name string, cfg Config) string {
	tr, err := New(cfg, bitsData(name, cfg))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	h := sha256.New()
	err = tr.Train(context.Background(), Options{OnEpoch: func(r Record) error {
		return binary.Write(h, binary.LittleEndian, math.Float64bits(r.ReconError))
	}})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	m := tr.Model()
	for _, p := range [][]float32{m.W, m.A, m.AP, m.C(), m.HiddenBias, m.VisibleBias, m.LogVar, m.Sigma} {
		binary.Write(h, binary.LittleEndian, uint64(len(p)))
		binary.Write(h, binary.LittleEndian, p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TestTrainedBitsUnchanged trains every configuration of bitsConfigs and
// compares its parameters' digest with the one recorded for this tier.
func TestTrainedBitsUnchanged(t *testing.T) {
	cs := bitsConfigs()
	classify := smallConfig(NCG)
	classify.Workers = 2
	cs["binary-ncg-classify"] = classify
	path := filepath.Join("testdata", "bits.json")
	table := map[string]map[string]string{}
	if b, err := os.ReadFile(path); err == nil {
		if err := json.Unmarshal(b, &table); err != nil {
			t.Fatal(err)
		}
	} else if !*updateBits {
		t.Fatal(err)
	}
	tier := kernel.Tier()
	names := make([]string, 0, len(cs))
	for n := range cs {
		names = append(names, n)
	}
	sort.Strings(names)
	got := map[string]string{}
	for _, n := range names {
		got[n] = trainedBits(t, n, cs[n])
	}
	if *updateBits {
		table[tier] = got
		b, _ := json.MarshalIndent(table, "", "  ")
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, ok := table[tier]
	if !ok {
		t.Skipf("no bits recorded for tier %s", tier)
	}
	for _, n := range names {
		switch w, ok := want[n]; {
		case !ok:
			t.Errorf("%s: no bits recorded on tier %s (record them with -update-bits)", n, tier)
		case w != got[n]:
			t.Errorf("%s: trains other bits than recorded on tier %s", n, tier)
		}
	}
}
