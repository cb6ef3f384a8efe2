package engine

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"testing"

	"github.com/ncg-rbm/ncg/data"
)

// Temporary: prints a hash of the parameters after a few minibatches, to
// check that a restructuring is bit-identical to the previous commit.
func TestZZHash(t *testing.T) {
	dir := data.TestDir(t)
	train0, _, err := data.Load("mnist", data.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, method := range allMethods {
		for _, pcd := range []bool{false, true} {
			d, err := FromSet(train0, pcd) // classification mode with PCD
			if err != nil {
				t.Fatal(err)
			}
			cfg := paperNCG()
			cfg.Method, cfg.PCD = method, pcd
			cfg.Hidden = 100
			sub := *d
			sub.N = 1037
			sub.X = d.X[:sub.N*d.D]
			if sub.Labels != nil {
				sub.Labels = sub.Labels[:sub.N]
			}
			cfg.Epochs = 2
			m := train(t, cfg, &sub)
			h := sha256.New()
			for _, s := range [][]float32{m.W, m.A, m.AP, m.C, m.CH, m.B, m.V} {
				for _, v := range s {
					binary.Write(h, binary.LittleEndian, math.Float32bits(v))
				}
			}
			fmt.Printf("HASH %v pcd=%v %x\n", method, pcd, h.Sum(nil)[:8])
		}
	}
}
