package policies_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	goyaml "sigs.k8s.io/yaml/goyaml.v3"

	"github.com/backupkit/backupkit/restore/policies"
)

// Whatever Read accepts round-trips: its Spec, written back as YAML, parses again, to a
// Spec written the same (an empty list and none are one), and resolves without a panic.
// Seeds in testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	f.Add([]byte(validPolicies))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := policies.Read(data)
		if err != nil {
			require.ErrorIs(t, err, policies.ErrInvalid)
			return
		}
		spec := p.Spec()
		out, err := goyaml.Marshal(spec)
		require.NoError(t, err)
		again, err := policies.Parse(out)
		require.NoError(t, err, "%s", out)
		back, err := goyaml.Marshal(again.Spec())
		require.NoError(t, err)
		require.Equal(t, string(out), string(back))
		r, err := p.Resolve(resolveFake)
		if err == nil {
			r.Select(obj(pods, "Pod", "prod-web", "a", nil))
		}
	})
}
