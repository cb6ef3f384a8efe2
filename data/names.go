package data

// Canonical returns the name Load knows a built-in data set by ("connect4"
// is "connect-4"); ok is false for anything else (a file path).
func Canonical(name string) (canonical string, ok bool) {
	if name == "connect4" {
		name = "connect-4"
	}
	for _, n := range Names {
		if n == name {
			return n, true
		}
	}
	return name, false
}
