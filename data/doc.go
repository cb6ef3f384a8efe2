// Package data reads, generates, splits and downloads the binary data sets
// used to train and evaluate RBMs: MNIST (IDX files, binarised), the LIBSVM
// "mushrooms" and "connect-4" sets, the paper's split files (*.data) and
// generated bars-and-stripes.
//
// Every data set is a [Set]: N rows of D bytes, each 0 or 1, stored
// row-major, plus optional class labels. Everything random (stochastic
// binarisation, shuffle-splits, sampled bars-and-stripes) is driven by a
// seed recorded in [Set.Source], so a run can be reproduced from its log.
//
// Readers accept plain or gzip-compressed input (detected from the magic
// bytes 1f 8b, never from the file name) and report bad input as an error
// naming the file and the line (text formats) or byte offset (IDX; offsets
// count decompressed bytes). They never panic on bad input. A gzip file is
// read to its end, whatever its format declares, so the CRC-32 and length
// in the trailer of each member are checked, and bytes after the last
// member are an error.
//
// Where data lives: see [Dir]. Tests find the shared data sets with the
// internal package datatest.
package data
