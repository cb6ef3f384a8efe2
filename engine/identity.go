package engine

import (
	"encoding/json"
	"fmt"
)

// SetIdentity attaches the caller's identity of the run, a JSON value
// (package experiment gives its whole run specification), to every
// checkpoint the Trainer writes. Resume restores it, so a caller can refuse
// to continue a checkpoint that belongs to another run.
func (t *Trainer) SetIdentity(id json.RawMessage) error {
	if id != nil && !json.Valid(id) {
		return fmt.Errorf("checkpoint identity is not valid JSON")
	}
	t.identity = append(json.RawMessage(nil), id...)
	return nil
}

// Identity returns the identity of the run: SetIdentity's, or the
// checkpoint's after Resume (nil if it had none).
func (t *Trainer) Identity() json.RawMessage { return t.identity }
