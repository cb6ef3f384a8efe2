package engine

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/ncg-rbm/ncg/kernel"
)

// Checkpoint format, version 1 (little-endian):
//
//	"NCGCKPT\x00"  magic
//	uint32         version
//	uint32 n, n bytes of JSON: checkpointHeader
//	float32 arrays W, A, [A′], B, V, [z = log σ²], [persistent chains],
//	[velocities of W, B, V, [z]], [hidden offsets λ], then the chain streams
//	32 bytes       SHA-256 of everything before
//
// Everything a run needs to continue bit-identically is here: parameters,
// connection strength, Gaussian units' log σ² (the configuration says the
// units' type), a centred run's hidden offsets, chain streams, persistent chains (PCD's, or PT's at every
// temperature), momentum's velocities, position. C and its
// copy are recomputed (C = W⊙A exactly as the update computes it). The
// parameters are written as raw float32, never as text, which would round
// them (docs/algorithm.md, "Where the authors' code differs").
const (
	ckptMagic   = "NCGCKPT\x00"
	ckptVersion = 1
)

type checkpointHeader struct {
	Config  Config `json:"config"`
	X, D, H int
	Classes int
	DataN   int `json:"data_n"`
	Epoch   int `json:"epoch"`
	Batch   int `json:"batch"`
	// The current epoch's summed reconstruction error and seconds over its
	// first Batch minibatches. Checkpoints written before these fields
	// existed lack them; a run resumed from one mid-epoch reports that
	// epoch's reconstruction error over the minibatches it ran itself.
	EpochRecon   *float64 `json:"epoch_recon,omitempty"`
	EpochSeconds float64  `json:"epoch_seconds,omitempty"`
	PCDInit      bool     `json:"pcd_init"`
	Tier         string   `json:"kernel_tier"` // informational: results are exact only within a tier
	// Identity is the caller's identity of the run (SetIdentity), kept
	// verbatim under the key "label" so a resume can check it belongs to
	// the run it continues.
	Identity json.RawMessage `json:"label,omitempty"`
}

// SaveCheckpoint writes the run's state to path atomically (a temporary
// file in the same directory, fsync, rename).
func (t *Trainer) SaveCheckpoint(path string) error {
	b, err := t.encodeCheckpoint()
	if err != nil {
		return err
	}
	return WriteFileAtomic(path, b)
}

// encodeCheckpoint returns the checkpoint file's bytes.
func (t *Trainer) encodeCheckpoint() ([]byte, error) {
	if t.broken {
		return nil, errBroken
	}
	t.flush()
	hdr, err := json.Marshal(checkpointHeader{Config: t.cfg, X: t.m.X, D: t.m.DataUnits, H: t.m.H, Classes: t.data.Classes,
		DataN: t.data.N, Epoch: t.epoch, Batch: t.batch, EpochRecon: &t.epochRecon, EpochSeconds: t.epochSeconds,
		PCDInit: t.pcdInit, Tier: kernel.Tier(), Identity: t.identity})
	if err != nil {
		return nil, err
	}
	var state bytes.Buffer
	for _, a := range t.arrays() {
		_ = binary.Write(&state, binary.LittleEndian, a)
	}
	for i := range t.streams {
		b, _ := t.streams[i].MarshalBinary()
		state.Write(b)
	}
	return frameCheckpoint(hdr, state.Bytes()), nil
}

// frameCheckpoint lays out a checkpoint file: magic, version, the header's
// length and JSON, the state, and the SHA-256 of all that.
func frameCheckpoint(hdr, state []byte) []byte {
	var buf bytes.Buffer
	buf.WriteString(ckptMagic)
	_ = binary.Write(&buf, binary.LittleEndian, uint32(ckptVersion))
	_ = binary.Write(&buf, binary.LittleEndian, uint32(len(hdr)))
	buf.Write(hdr)
	buf.Write(state)
	sum := sha256.Sum256(buf.Bytes())
	return append(buf.Bytes(), sum[:]...)
}

// arrays lists the float32 state in file order.
func (t *Trainer) arrays() [][]float32 {
	a := [][]float32{t.m.W, t.m.A}
	if t.m.AP != nil {
		a = append(a, t.m.AP)
	}
	a = append(a, t.m.HiddenBias, t.m.VisibleBias)
	a = append(a, t.vis.params(t)...)
	if t.pcd != nil {
		a = append(a, t.pcd)
	}
	if t.velW != nil {
		a = append(a, t.velW, t.velB, t.velV)
	}
	a = append(a, t.vis.velocities(t)...)
	if t.ctr != nil {
		a = append(a, t.ctr.lambda)
	}
	return a
}

// Resume reads a checkpoint written by SaveCheckpoint and returns a
// trainer that continues the run on d, which must be the run's data.
// workers overrides the saved worker count (it never changes results).
func Resume(path string, d *Data, workers int) (*Trainer, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	t, err := decodeCheckpoint(b, d)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	t.cfg.Workers = workers
	return t, nil
}

func decodeCheckpoint(b []byte, d *Data) (*Trainer, error) {
	if len(b) < len(ckptMagic)+8+sha256.Size || string(b[:len(ckptMagic)]) != ckptMagic {
		return nil, errors.New("not a checkpoint (bad magic or too short)")
	}
	body, sum := b[:len(b)-sha256.Size], b[len(b)-sha256.Size:]
	if want := sha256.Sum256(body); !bytes.Equal(want[:], sum) {
		return nil, errors.New("checksum mismatch: the file is truncated or corrupt")
	}
	r := bytes.NewReader(body[len(ckptMagic):])
	var ver, n uint32
	if err := binary.Read(r, binary.LittleEndian, &ver); err != nil {
		return nil, err
	}
	if ver != ckptVersion {
		return nil, fmt.Errorf("version %d, this build reads version %d", ver, ckptVersion)
	}
	if err := binary.Read(r, binary.LittleEndian, &n); err != nil || int(n) > r.Len() {
		return nil, errors.New("bad header length")
	}
	hb := make([]byte, n)
	_, _ = io.ReadFull(r, hb)
	var h checkpointHeader
	if err := json.Unmarshal(hb, &h); err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	if err := d.Validate(); err != nil {
		return nil, err
	}
	if h.D != d.D || h.Classes != d.Classes || h.DataN != d.N {
		return nil, fmt.Errorf("saved for data of %d rows × %d units (%d classes), given %d × %d (%d classes)", h.DataN, h.D, h.Classes, d.N, d.D, d.Classes)
	}
	if err := h.Config.Validate(d.D); err != nil {
		return nil, err
	}
	if err := h.Config.checkData(d); err != nil {
		return nil, err
	}
	if h.X != d.D+d.Classes || h.H != h.Config.Hidden {
		return nil, errors.New("header shape disagrees with its configuration")
	}
	if h.Epoch < 0 || h.Batch < 0 || h.EpochSeconds < 0 || math.IsNaN(h.EpochSeconds) ||
		(h.EpochRecon != nil && (*h.EpochRecon < 0 || math.IsNaN(*h.EpochRecon) || math.IsInf(*h.EpochRecon, 0))) {
		return nil, errors.New("header has a negative or non-finite position or epoch total")
	}
	t := &Trainer{cfg: h.Config, data: d, m: newModel(h.X, h.D, h.H, h.Config.Method == NCG), epoch: h.Epoch, batch: h.Batch, pcdInit: h.PCDInit,
		epochSeconds: h.EpochSeconds, identity: h.Identity}
	if h.EpochRecon != nil {
		t.epochRecon = *h.EpochRecon
	} else {
		t.reconFrom = h.Batch
	}
	t.setUnits()
	t.alloc()
	for _, a := range t.arrays() {
		if err := binary.Read(r, binary.LittleEndian, a); err != nil {
			return nil, errors.New("truncated parameter arrays")
		}
		for _, v := range a {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return nil, errors.New("a saved parameter is NaN or Inf")
			}
		}
	}
	sb := make([]byte, kernel.StreamStateSize)
	for i := range t.streams {
		if _, err := io.ReadFull(r, sb); err != nil {
			return nil, errors.New("truncated chain streams")
		}
		if err := t.streams[i].UnmarshalBinary(sb); err != nil {
			return nil, err
		}
	}
	if r.Len() != 0 {
		return nil, fmt.Errorf("%d unexpected bytes after the state", r.Len())
	}
	t.m.refreshC()
	t.vis.refresh(t)
	return t, nil
}

// WriteFileAtomic writes data to path through a temporary file in the same
// directory, synced and renamed, so a reader sees the old file or the new
// one, never a part.
func WriteFileAtomic(path string, data []byte) error {
	return WriteAtomic(path, func(w io.Writer) error { _, err := w.Write(data); return err })
}

// WriteAtomic is WriteFileAtomic for a writer function.
func WriteAtomic(path string, write func(io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, tempPattern(filepath.Base(path)))
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err = write(f); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = f.Chmod(0o644); err != nil { // CreateTemp makes it private (0600)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return err
	}
	if d, derr := os.Open(dir); derr == nil { // make the rename durable
		_ = d.Sync()
		d.Close()
	}
	return nil
}
