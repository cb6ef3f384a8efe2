package kernel

// The amd64 kernels are generated with avo by the programs in _asm (a
// module of its own). Each line rewrites one tier's assembly and stubs.

//go:generate sh -c "cd _asm && go run ./avx512 -out ../kernel_avx512_amd64.s -stubs ../kernel_avx512_stubs_amd64.go -pkg kernel"
