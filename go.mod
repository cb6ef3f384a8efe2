module github.com/ncg-rbm/ncg

go 1.26.8

require github.com/klauspost/cpuid/v2 v2.4.2

require (
	github.com/campoy/embedmd v1.0.0 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	github.com/sbinet/npyio v0.6.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/sys v0.41.0 // indirect
	gonum.org/v1/gonum v0.17.0 // indirect
)
