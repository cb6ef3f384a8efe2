// Package gaussconst is the constant table of the Gaussian sampling
// kernel that both generators emit: PPND7's coefficients (Wichura, AS 241)
// and Cephes logf's, as float32 (Go rounds the decimal constants as package
// kernel's gaussian.go does), and the integer and bit patterns of the
// range reductions, one 32-bit pattern each.
package gaussconst

import "math"

// Const is one constant: its name and 32-bit pattern.
type Const struct {
	Name string
	Bits uint32
}

func f32(x float32) uint32 { return math.Float32bits(x) }

// Table lists the constants in the order the AVX-512 table lays them out.
var Table = []Const{
	{"moff", uint32(1 - 1<<24 + 1<<32)}, // int32 1 − 2²⁴
	{"two25", f32(0x1p-25)},
	{"c24", 1 << 24}, // int32
	{"const1", f32(0.180625)},
	{"a0", f32(3.3871327179e+00)}, {"a1", f32(5.0434271938e+01)}, {"a2", f32(1.5929113202e+02)}, {"a3", f32(5.9109374720e+01)},
	{"b1", f32(1.7895169469e+01)}, {"b2", f32(7.8757757664e+01)}, {"b3", f32(6.7187563600e+01)},
	{"c0", f32(1.4234372777e+00)}, {"c1", f32(2.7568153900e+00)}, {"c2", f32(1.3067284816e+00)}, {"c3", f32(1.7023821103e-01)},
	{"d1", f32(7.3700164250e-01)}, {"d2", f32(1.2021132975e-01)},
	{"split", f32(0.425)}, {"const2", f32(1.6)},
	{"one", f32(1)}, {"half", f32(0.5)},
	{"sign", 0x80000000}, {"abs", 0x7fffffff}, {"mant", 0x007fffff}, {"halfbits", 0x3f000000}, {"e126", 126},
	{"sqrth", f32(0.707106781186547524)},
	{"p0", f32(7.0376836292e-2)}, {"p1", f32(-1.1514610310e-1)}, {"p2", f32(1.1676998740e-1)},
	{"p3", f32(-1.2420140846e-1)}, {"p4", f32(1.4249322787e-1)}, {"p5", f32(-1.6668057665e-1)},
	{"p6", f32(2.0000714765e-1)}, {"p7", f32(-2.4999993993e-1)}, {"p8", f32(3.3333331174e-1)},
	{"loghi", f32(0.693359375)}, {"loglo", f32(-2.12194440e-4)},
}
