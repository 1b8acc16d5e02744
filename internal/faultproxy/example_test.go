package faultproxy_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/backupkit/backupkit/internal/faultproxy"
)

// A Random decider is a function of its seed and the request's number: the same run faults
// the same requests. Restricted to POSTs, it spares every other request.
func ExampleRandom() {
	d := faultproxy.OnlyMethods(faultproxy.Random(7, 0.5, faultproxy.Status503, faultproxy.CutBodyFIN), http.MethodPost)
	post := httptest.NewRequest(http.MethodPost, "/api/v1/namespaces/shop/configmaps", nil)
	get := httptest.NewRequest(http.MethodGet, "/api/v1/namespaces/shop/configmaps", nil)
	for n := range int64(6) {
		fmt.Printf("request %d: POST %s, GET %s\n", n, d(post, n), d(get, n))
	}
	// Output:
	// request 0: POST Status503, GET None
	// request 1: POST CutBodyFIN, GET None
	// request 2: POST Status503, GET None
	// request 3: POST None, GET None
	// request 4: POST CutBodyFIN, GET None
	// request 5: POST None, GET None
}
