module github.com/ncg-rbm/ncg/kernel/_asm

go 1.26.8

require github.com/mmcloughlin/avo v0.6.0 // indirect
