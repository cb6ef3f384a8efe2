package data

// SetMaxFeatures sets the largest feature index a LIBSVM file may use, for
// a test, and returns the function that restores the bound.
func SetMaxFeatures(n int) (restore func()) {
	prev := maxFeatures
	maxFeatures = n
	return func() { maxFeatures = prev }
}
