package engine

import (
	"fmt"

	"github.com/ncg-rbm/ncg/data"
)

// FromSet views a data set as training data (no copy): its bytes, or its
// real values for a real-valued set (which Gaussian visible units train
// on). With classify, the set's labels drive one-hot label units appended
// by the engine; the set must not carry label units of its own already.
func FromSet(s *data.Set, classify bool) (*Data, error) {
	if s.LabelUnits != 0 {
		return nil, fmt.Errorf("data %s already has %d label units; give the engine the set without them", s.Name, s.LabelUnits)
	}
	d := &Data{N: s.N, D: s.D, X: s.X, Real: s.Real, Groups: s.Groups}
	if classify {
		if s.Labels == nil || s.NumClasses <= 0 {
			return nil, fmt.Errorf("data %s has no labels: classification needs them", s.Name)
		}
		d.Labels, d.Classes = s.Labels, s.NumClasses
	}
	return d, d.Validate()
}
