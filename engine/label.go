package engine

import (
	"encoding/json"
	"fmt"
)

// SetLabel attaches the caller's identification of the run, a JSON value
// (package experiment gives its whole run specification), to every
// checkpoint the Trainer writes. Resume restores it, so a caller can refuse
// to continue a checkpoint that belongs to another run.
func (t *Trainer) SetLabel(label json.RawMessage) error {
	if label != nil && !json.Valid(label) {
		return fmt.Errorf("checkpoint label is not valid JSON")
	}
	t.label = append(json.RawMessage(nil), label...)
	return nil
}

// Label returns the label of the run: SetLabel's, or the checkpoint's
// after Resume (nil if it had none).
func (t *Trainer) Label() json.RawMessage { return t.label }
