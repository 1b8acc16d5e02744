package layout

// ComparePaths compares the concatenation of a's parts with b's, byte-wise, without building
// either: a path held in pieces (a directory, a name, ItemExt) against another. Empty parts
// are skipped.
func ComparePaths[S string | []byte](a, b []S) int {
	i, j := 0, 0
	var s, t S
	if len(a) > 0 {
		s = a[0]
	}
	if len(b) > 0 {
		t = b[0]
	}
	for {
		for len(s) == 0 && i < len(a)-1 {
			i++
			s = a[i]
		}
		for len(t) == 0 && j < len(b)-1 {
			j++
			t = b[j]
		}
		if len(s) == 0 || len(t) == 0 {
			switch {
			case len(s) == len(t):
				return 0
			case len(s) == 0:
				return -1 // the one with bytes left is the longer
			}
			return 1
		}
		n := min(len(s), len(t))
		// Comparisons of converted strings: no copy is made of a []byte's bytes.
		if x, y := s[:n], t[:n]; string(x) != string(y) {
			if string(x) < string(y) {
				return -1
			}
			return 1
		}
		s, t = s[n:], t[n:]
	}
}
