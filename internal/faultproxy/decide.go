package faultproxy

import (
	"net/http"
	"slices"
)

// Random returns a Decider that faults a share rate (0 to 1) of requests, each with one of
// faults chosen uniformly. The choice for request n depends only on seed and n, so a run is
// reproducible given the order of requests, and the Decider is safe for concurrent use.
// No faults, or rate not positive, means None for every request.
func Random(seed int64, rate float64, faults ...Fault) Decider {
	faults = slices.Clone(faults)
	return func(_ *http.Request, n int64) Fault {
		if len(faults) == 0 || rate <= 0 {
			return None
		}
		x := splitmix64(uint64(seed) ^ splitmix64(uint64(n)))
		if float64(x>>11)/(1<<53) >= rate {
			return None
		}
		return faults[splitmix64(x)%uint64(len(faults))]
	}
}

// splitmix64 is SplitMix64's output function: a bijective mix of x's bits.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// OnlyMethods returns d restricted to requests whose HTTP method is one of methods ("GET",
// "POST", ...): other requests get None without d being asked.
func OnlyMethods(d Decider, methods ...string) Decider {
	methods = slices.Clone(methods)
	return When(func(r *http.Request) bool { return slices.Contains(methods, r.Method) }, d)
}

// OnlyWatches returns d restricted to watch requests (?watch=true).
func OnlyWatches(d Decider) Decider { return When(isWatch, d) }

// Not returns d restricted to the requests for which match is false.
func Not(match func(*http.Request) bool, d Decider) Decider {
	return When(func(r *http.Request) bool { return !match(r) }, d)
}

// When returns d restricted to the requests for which match is true; others get None.
func When(match func(*http.Request) bool, d Decider) Decider {
	return func(r *http.Request, n int64) Fault {
		if d == nil || !match(r) {
			return None
		}
		return d(r, n)
	}
}

// IsWatch reports whether r is a watch request (?watch=true or ?watch=1).
func IsWatch(r *http.Request) bool { return isWatch(r) }

// Sequence returns a Decider giving the i-th request it is asked about faults[i], and None
// after the last. It counts its own calls (so it composes with When), and is safe for
// concurrent use, although concurrent requests then take the faults in no set order.
func Sequence(faults ...Fault) Decider {
	faults = slices.Clone(faults)
	ch := make(chan Fault, len(faults))
	for _, f := range faults {
		ch <- f
	}
	close(ch)
	return func(*http.Request, int64) Fault {
		if f, ok := <-ch; ok {
			return f
		}
		return None
	}
}
