package kernel

import (
	"encoding/binary"
	"errors"
	"math/bits"
)

// Lanes is the number of independent xoshiro128++ generators in a Stream.
// It is fixed (not the vector width of the tier) so that every tier draws
// the same numbers: AVX-512 steps the 16 lanes in one register, AVX2 in two,
// NEON in four and the generic code one at a time.
const Lanes = 16

// Stream is a reproducible source of uniform random numbers for one Gibbs
// chain: 16 lanes of xoshiro128++ (Blackman & Vigna 2018), each seeded by
// SplitMix64 from (seed, stream id, lane).
//
// Why this generator: xoshiro128++ uses only 32-bit adds, xors, shifts and
// rotates, so it vectorises on every tier with no multiplies; it passes
// BigCrush and PractRand in all bits (the ++ scrambler, unlike +, has no weak
// low bits); its 128-bit state per lane gives a period of 2^128−1. Streams
// for different (seed, id) are seeded independently rather than by jumps;
// with 2^128 states per lane an overlap between the few million streams of a
// sweep is vanishingly unlikely.
//
// Draws come in blocks of 16 uint32 (one per lane, lane order). A call that
// needs n numbers uses ⌈n/16⌉ blocks and discards the unused tail of the last
// one, so what a call draws depends only on the stream state and n, never on
// the tier or the goroutine that runs it. The uniform u in [0, 1) made from a
// draw r is (r >> 8)·2⁻²⁴: 24 bits, exact in float32.
type Stream struct {
	s [4][Lanes]uint32
}

// NewStream returns the stream keyed by (seed, id).
func NewStream(seed, id uint64) Stream {
	var st Stream
	x := mix64(mix64(seed) + id)
	for l := 0; l < Lanes; l++ {
		for w := 0; w < 4; w += 2 {
			x += 0x9e3779b97f4a7c15
			z := mix64(x)
			st.s[w][l] = uint32(z)
			st.s[w+1][l] = uint32(z >> 32)
		}
		if st.s[0][l]|st.s[1][l]|st.s[2][l]|st.s[3][l] == 0 {
			st.s[0][l] = 1 // the all-zero state is a fixed point
		}
	}
	return st
}

// mix64 is SplitMix64's output function.
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// next fills out with the next block of 16 draws (generic reference).
func (st *Stream) next(out *[Lanes]uint32) {
	s := &st.s
	for l := 0; l < Lanes; l++ {
		s0, s1, s2, s3 := s[0][l], s[1][l], s[2][l], s[3][l]
		out[l] = bits.RotateLeft32(s0+s3, 7) + s0
		t := s1 << 9
		s2 ^= s0
		s3 ^= s1
		s1 ^= s2
		s0 ^= s3
		s2 ^= t
		s3 = bits.RotateLeft32(s3, 11)
		s[0][l], s[1][l], s[2][l], s[3][l] = s0, s1, s2, s3
	}
}

// Uint32s fills dst with draws (⌈len(dst)/16⌉ blocks).
func (st *Stream) Uint32s(dst []uint32) {
	var blk [Lanes]uint32
	for i := 0; i < len(dst); i += Lanes {
		st.next(&blk)
		copy(dst[i:], blk[:])
	}
}

// Uniforms fills dst with uniforms in [0, 1) (⌈len(dst)/16⌉ blocks).
func (st *Stream) Uniforms(dst []float32) {
	var blk [Lanes]uint32
	for i := 0; i < len(dst); i += Lanes {
		st.next(&blk)
		for l := 0; l < Lanes && i+l < len(dst); l++ {
			dst[i+l] = uniform(blk[l])
		}
	}
}

func uniform(r uint32) float32 { return float32(r>>8) * (1.0 / (1 << 24)) }

// StreamStateSize is the length of a Stream's binary form.
const StreamStateSize = 4 * Lanes * 4

// MarshalBinary returns the stream state (little-endian), for checkpoints.
func (st *Stream) MarshalBinary() ([]byte, error) {
	b := make([]byte, 0, StreamStateSize)
	for w := range st.s {
		for _, v := range st.s[w] {
			b = binary.LittleEndian.AppendUint32(b, v)
		}
	}
	return b, nil
}

// UnmarshalBinary restores a state written by MarshalBinary.
func (st *Stream) UnmarshalBinary(b []byte) error {
	if len(b) != StreamStateSize {
		return errors.New("kernel: stream state has the wrong length")
	}
	var ns Stream
	for w := range ns.s {
		for l := range ns.s[w] {
			ns.s[w][l] = binary.LittleEndian.Uint32(b[(w*Lanes+l)*4:])
		}
	}
	for l := 0; l < Lanes; l++ {
		if ns.s[0][l]|ns.s[1][l]|ns.s[2][l]|ns.s[3][l] == 0 {
			return errors.New("kernel: stream state has an all-zero lane")
		}
	}
	*st = ns
	return nil
}
