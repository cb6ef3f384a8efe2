// Package data reads, generates, splits and downloads the data sets used to
// train and evaluate RBMs: MNIST (IDX files, binarised or as grey levels),
// the LIBSVM "mushrooms" and "connect-4" sets, the paper's split files
// (*.data), generated bars-and-stripes, and dense matrices a user brings
// (.npy and CSV files), real-valued or integer-coded categorical columns.
//
// Every data set is a [Set]: N rows of D units stored row-major, either
// binary (bytes 0 or 1 in Set.X) or real-valued (float32 in Set.Real, X
// nil), plus optional class labels. Everything random (stochastic
// binarisation, shuffle-splits, sampled bars-and-stripes) is driven by a
// seed recorded in [Set.Source], so a run can be reproduced from its log.
//
// Real-valued data ([Options.Real]): MNIST and IDX images become grey
// levels scaled to [0, 1] (level/255) or standardised per pixel; .npy and
// CSV files are real-valued as read, or scaled to [0, 1] per column
// (min–max) or standardised. The statistics come from the training set
// only, in float64 in row order (population standard deviation); the test
// set is scaled with them. A unit constant on the training set gets
// offset = its value and scale 1. The [Scaling] is kept on both sets and
// maps values back to the input scale. Per-pixel standardisation of MNIST
// has heavy tails: pixels near the border are almost always 0, so values
// reach about 245 on the training set and 420 on the test set (67 pixels
// are constant; scaling to [0, 1] has no such tail).
//
// Categorical data ([Groups]): a set whose data units are categorical
// attributes in one-hot form has Set.Groups (which units form each
// attribute) and Set.Attributes (their names). Mushrooms and Connect-4 are
// LIBSVM's one-hot encodings of UCI data and have their groups built in
// ([BuiltinGroups]): every file of theirs is checked against them as it is
// read (a row with no unit or two units on in a group is an error naming
// the line and the group), and the sets made from them keep them. A .npy
// or CSV file of integer-coded categorical columns becomes such a set with
// [Options.Categorical]: each column a group of one unit per category,
// stated (0…K−1) or read from the training file.
//
// Readers accept plain or gzip-compressed input (detected from the magic
// bytes 1f 8b, never from the file name) and report bad input as an error
// naming the file and the line (text formats; CSV also the column) or byte
// offset (IDX and .npy; offsets count decompressed bytes). They never
// panic on bad input, and a header declaring more data than [MaxIDXBytes]
// bytes or [MaxRealValues] values is refused before anything is allocated.
// A gzip file is read to its end, whatever its format declares, so the
// CRC-32 and length in the trailer of each member are checked, and bytes
// after the last member are an error.
//
// Where data lives: see [Dir]. Tests find the shared data sets with the
// internal package datatest.
package data
