package engine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"

	"github.com/ncg-rbm/ncg/kernel"
	"github.com/ncg-rbm/ncg/unit"
)

// A deep model's checkpoint, version 1 (little-endian):
//
//	"NCGSTACK"     magic
//	uint32         version
//	uint32 n, n bytes of JSON: stackHeader
//	per finished RBM: float32 W, A, [A′], hidden biases, visible
//	biases, [log σ² of Gaussian visible units]
//	in pre-training: uint32 n, n bytes: the RBM in training's checkpoint
//	(Trainer.SaveCheckpoint's format)
//	in joint training: float32 chain states of every layer, [velocities
//	of every matrix, then of every layer's biases], [the hidden layers'
//	offsets of centred training], then the chain streams
//	32 bytes       SHA-256 of everything before
//
// The data of an upper RBM in pre-training are not saved: they are the
// sample upperData draws again from the RBMs below and the seed.
const (
	stackMagic   = "NCGSTACK"
	stackVersion = 1
)

type stackHeader struct {
	Config StackConfig `json:"config"`
	D      int         `json:"d"`
	DataN  int         `json:"data_n"`
	// Layer is the RBM in pre-training (0-based), len(Layers) after it.
	Layer      int             `json:"layer"`
	JointEpoch int             `json:"joint_epoch"`
	JointBatch int             `json:"joint_batch"`
	JointRecon float64         `json:"joint_recon"`
	Tier       string          `json:"kernel_tier"`
	Identity   json.RawMessage `json:"label,omitempty"`
}

// modelArrays lists a finished RBM's float32 arrays in file order.
func modelArrays(m *Model) [][]float32 {
	a := [][]float32{m.W, m.A}
	if m.AP != nil {
		a = append(a, m.AP)
	}
	a = append(a, m.HiddenBias, m.VisibleBias)
	if m.LogVar != nil {
		a = append(a, m.LogVar)
	}
	return a
}

// SaveCheckpoint writes the stack's training state to path atomically.
func (t *StackTrainer) SaveCheckpoint(path string) error {
	b, err := t.encode()
	if err != nil {
		return err
	}
	return WriteFileAtomic(path, b)
}

func (t *StackTrainer) encode() ([]byte, error) {
	h := stackHeader{Config: t.cfg, D: t.data.D, DataN: t.data.N, Layer: t.layer, Tier: kernel.Tier(), Identity: t.identity}
	if j := t.joint; j != nil {
		h.JointEpoch, h.JointBatch, h.JointRecon = j.epoch, j.batch, j.reconSum
	}
	hdr, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	buf.WriteString(stackMagic)
	_ = binary.Write(&buf, binary.LittleEndian, uint32(stackVersion))
	_ = binary.Write(&buf, binary.LittleEndian, uint32(len(hdr)))
	buf.Write(hdr)
	for _, m := range t.rbms[:t.layer] {
		for _, a := range modelArrays(m) {
			_ = binary.Write(&buf, binary.LittleEndian, a)
		}
	}
	if t.cur != nil {
		b, err := t.cur.encodeCheckpoint()
		if err != nil {
			return nil, err
		}
		_ = binary.Write(&buf, binary.LittleEndian, uint32(len(b)))
		buf.Write(b)
	}
	if j := t.joint; j != nil {
		for _, a := range j.state() {
			_ = binary.Write(&buf, binary.LittleEndian, a)
		}
		for i := range j.streams {
			b, _ := j.streams[i].MarshalBinary()
			buf.Write(b)
		}
	}
	sum := sha256.Sum256(buf.Bytes())
	return append(buf.Bytes(), sum[:]...), nil
}

// state lists joint training's float32 state beyond the models, in file
// order.
func (j *dbmJoint) state() [][]float32 {
	a := slices.Clone(j.s)
	for _, v := range j.vel {
		if v != nil {
			a = append(a, v)
		}
	}
	for _, v := range j.velB {
		if v != nil {
			a = append(a, v)
		}
	}
	if j.ctr != nil {
		a = append(a, j.ctr.lambda[1:]...)
	}
	return a
}

// ResumeStack reads a checkpoint written by StackTrainer.SaveCheckpoint
// and returns a trainer that continues the run on d, which must be the
// run's data; workers overrides the saved worker count (it never changes
// results).
func ResumeStack(path string, d *Data, workers int) (*StackTrainer, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	t, err := decodeStack(b, d, workers)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	return t, nil
}

// StackCheckpointConfig returns the configuration a deep model's
// checkpoint was written with, without reading its state (a caller
// checks it against the run it means to continue).
func StackCheckpointConfig(path string) (StackConfig, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return StackConfig{}, err
	}
	h, _, err := stackHead(b)
	if err != nil {
		return StackConfig{}, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	return h.Config, nil
}

// stackHead checks a stack checkpoint's frame and returns its header and
// the reader positioned after it.
func stackHead(b []byte) (stackHeader, *bytes.Reader, error) {
	var h stackHeader
	if len(b) < len(stackMagic)+8+sha256.Size || string(b[:len(stackMagic)]) != stackMagic {
		if len(b) >= len(ckptMagic) && string(b[:len(ckptMagic)]) == ckptMagic {
			return h, nil, errors.New("an RBM's checkpoint, not a deep model's")
		}
		return h, nil, errors.New("not a deep model's checkpoint (bad magic or too short)")
	}
	body, sum := b[:len(b)-sha256.Size], b[len(b)-sha256.Size:]
	if want := sha256.Sum256(body); !bytes.Equal(want[:], sum) {
		return h, nil, errors.New("checksum mismatch: the file is truncated or corrupt")
	}
	r := bytes.NewReader(body[len(stackMagic):])
	var ver, n uint32
	_ = binary.Read(r, binary.LittleEndian, &ver)
	if ver != stackVersion {
		return h, nil, fmt.Errorf("version %d, this build reads version %d", ver, stackVersion)
	}
	if err := binary.Read(r, binary.LittleEndian, &n); err != nil || int(n) > r.Len() {
		return h, nil, errors.New("bad header length")
	}
	hb := make([]byte, n)
	_, _ = io.ReadFull(r, hb)
	if err := json.Unmarshal(hb, &h); err != nil {
		return h, nil, fmt.Errorf("header: %w", err)
	}
	return h, r, nil
}

func decodeStack(b []byte, d *Data, workers int) (*StackTrainer, error) {
	h, r, err := stackHead(b)
	if err != nil {
		return nil, err
	}
	cfg := h.Config
	cfg.Workers = workers
	if err := d.Validate(); err != nil {
		return nil, err
	}
	if h.D != d.D || h.DataN != d.N || d.Classes != 0 {
		return nil, fmt.Errorf("saved for data of %d rows × %d units, given %d × %d", h.DataN, h.D, d.N, d.D)
	}
	if err := cfg.Validate(d.D); err != nil {
		return nil, err
	}
	if err := cfg.Layers[0].checkData(d); err != nil {
		return nil, err
	}
	L := len(cfg.Layers)
	if h.Layer < 0 || h.Layer > L || h.JointEpoch < 0 || h.JointBatch < 0 || math.IsNaN(h.JointRecon) || h.JointRecon < 0 {
		return nil, errors.New("header has an impossible position")
	}
	t := &StackTrainer{cfg: cfg, data: d, layer: h.Layer, identity: h.Identity, below: d}
	sizes := cfg.Sizes(d.D)
	for l := 0; l < h.Layer; l++ {
		lc := cfg.LayerConfig(l)
		m := newModel(sizes[l], sizes[l], sizes[l+1], lc.Method == NCG)
		if l == 0 {
			m.Visible = lc.Visible
			unitsOf(lc.Visible).initModel(m, d)
		}
		if err := readArrays(r, modelArrays(m)); err != nil {
			return nil, fmt.Errorf("layer %d: %w", l+1, err)
		}
		if m.LogVar != nil {
			m.refreshSigma(nil, 0, m.X)
		}
		m.refreshC()
		t.rbms = append(t.rbms, m)
	}
	if h.Layer < L {
		// The data of the RBM in training, drawn again from those below.
		for l := 1; l <= h.Layer; l++ {
			factor := float32(1)
			if cfg.Kind == DBM {
				factor = 2
			}
			nd, err := upperData(context.Background(), t.rbms[l-1], t.below, factor, cfg.Seed, l, workers)
			if err != nil {
				return nil, err
			}
			t.below = nd
		}
		var n uint32
		if err := binary.Read(r, binary.LittleEndian, &n); err != nil || int(n) > r.Len() {
			return nil, errors.New("truncated layer checkpoint")
		}
		lb := make([]byte, n)
		_, _ = io.ReadFull(r, lb)
		cur, err := decodeCheckpoint(lb, t.below)
		if err != nil {
			return nil, fmt.Errorf("layer %d: %w", h.Layer+1, err)
		}
		want := cfg.LayerConfig(h.Layer)
		want.Workers = 0
		if got := cur.cfg; got != want {
			return nil, fmt.Errorf("layer %d: its checkpoint's settings are not the stack's", h.Layer+1)
		}
		cur.cfg.Workers = workers
		t.cur = cur
		t.rbms = append(t.rbms, cur.m)
	} else if cfg.Kind == DBM {
		t.joint = newDBMJoint(cfg, d, t.rbms)
		j := t.joint
		j.epoch, j.batch, j.reconSum = h.JointEpoch, h.JointBatch, h.JointRecon
		if err := readArrays(r, j.state()); err != nil {
			return nil, err
		}
		sb := make([]byte, kernel.StreamStateSize)
		for i := range j.streams {
			if _, err := io.ReadFull(r, sb); err != nil {
				return nil, errors.New("truncated chain streams")
			}
			if err := j.streams[i].UnmarshalBinary(sb); err != nil {
				return nil, err
			}
		}
		if err := j.checkStates(); err != nil {
			return nil, err
		}
	}
	if r.Len() != 0 {
		return nil, fmt.Errorf("%d unexpected bytes after the state", r.Len())
	}
	return t, nil
}

// readArrays fills arrays from r, refusing NaN and Inf.
func readArrays(r io.Reader, arrays [][]float32) error {
	for _, a := range arrays {
		if err := binary.Read(r, binary.LittleEndian, a); err != nil {
			return errors.New("truncated parameter arrays")
		}
		for _, v := range a {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return errors.New("a saved parameter is NaN or Inf")
			}
		}
	}
	return nil
}

// checkStates refuses chain states that are not states of their layers
// (0 or 1 but for Gaussian visible units).
func (j *dbmJoint) checkStates() error {
	for l, s := range j.s {
		if l == 0 && j.vis == unit.Gaussian {
			continue
		}
		for _, v := range s {
			if v != 0 && v != 1 {
				return fmt.Errorf("a chain state of layer %d is %v, not 0 or 1", l, v)
			}
		}
	}
	return nil
}
