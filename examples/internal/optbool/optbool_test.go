package optbool

import (
	"flag"
	"io"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestValue(t *testing.T) {
	yes, no := true, false
	for _, tc := range []struct {
		args    []string
		want    *bool
		wantErr bool
	}{
		{nil, nil, false},
		{[]string{"-x"}, &yes, false},
		{[]string{"-x=true"}, &yes, false},
		{[]string{"-x=false"}, &no, false},
		{[]string{"-x=0"}, &no, false},
		{[]string{"-x=maybe"}, nil, true},
	} {
		var v Value
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.Var(&v, "x", "")
		err := fs.Parse(tc.args)
		if tc.wantErr {
			require.ErrorContains(t, err, `not true or false: "maybe"`)
			continue
		}
		require.NoError(t, err, tc.args)
		require.Equal(t, tc.want, v.V, tc.args)
		if tc.want == nil {
			require.Empty(t, v.String())
		} else {
			require.Equal(t, strconv.FormatBool(*tc.want), v.String())
		}
	}
}
