package kernel

import (
	"math"
	"testing"
)

// TestUpdateNCGThreshold pins the threshold and the clipping of the NCG
// update on every tier, generic included: A = 1 exactly when the new A′ is
// at least γ (A′ = γ is present, the next float32 below is absent), and A′
// is clipped to [0, 1]. The expected values follow from the update's
// definition: with g = 0 the weights and A′ stay put.
func TestUpdateNCGThreshold(t *testing.T) {
	const gamma = float32(0.375)
	below, above := math.Nextafter32(gamma, 0), math.Nextafter32(gamma, 1)
	forEachTier(t, withGeneric, func(im *impl) {
		for _, n := range []int{1, 7, 16, 33, 100} {
			w, ap, a, c, g := make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n)
			wantAP, wantA := make([]float32, n), make([]float32, n)
			for k := range w {
				w[k] = 0.5
				switch k % 5 {
				case 0: // exactly γ: present
					ap[k], wantAP[k], wantA[k] = gamma, gamma, 1
				case 1: // just below γ: absent
					ap[k], wantAP[k], wantA[k] = below, below, 0
				case 2:
					ap[k], wantAP[k], wantA[k] = above, above, 1
				case 3: // pushed above 1: clipped to 1
					ap[k], g[k], wantAP[k], wantA[k] = 0.9, 1, 1, 1
				case 4: // pushed below 0: clipped to 0
					ap[k], g[k], wantAP[k], wantA[k] = 0.1, -1, 0, 0
				}
				a[k] = 1 - wantA[k]
			}
			// alpha 0: W stays; alphaA·g·w = ±1 moves the clipped ones.
			im.updateNCG(w, ap, a, c, g, 0, 2, gamma)
			for k := range w {
				if ap[k] != wantAP[k] || a[k] != wantA[k] || c[k] != 0.5*wantA[k] || g[k] != 0 {
					t.Fatalf("%s n=%d: element %d: A′ = %v, A = %v, C = %v, g = %v; want A′ = %v, A = %v, C = %v, g = 0",
						im.name, n, k, ap[k], a[k], c[k], g[k], wantAP[k], wantA[k], 0.5*wantA[k])
				}
			}
		}
	})
}
