package versionselect_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/backupkit/backupkit/versionselect"
)

// lineErrors returns every *LineError in err, in order.
func lineErrors(t *testing.T, err error) []*versionselect.LineError {
	t.Helper()
	if err == nil {
		return nil
	}
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else {
		errs = []error{err}
	}
	out := make([]*versionselect.LineError, 0, len(errs))
	for _, e := range errs {
		var le *versionselect.LineError
		require.True(t, errors.As(e, &le), "not a *LineError: %v", e)
		out = append(out, le)
	}
	return out
}

func TestParsePriorities(t *testing.T) {
	type bad struct {
		line   int
		reason error
	}
	tests := []struct {
		name string
		text string
		want versionselect.Priorities
		bad  []bad
	}{
		{name: "empty", text: "", want: versionselect.Priorities{}},
		{name: "blank lines and comments only", text: "\n  \n# all commented\n\t# more\n", want: versionselect.Priorities{}},
		{
			name: "velero's documented example",
			text: "rockbands.music.example.io=v2beta1,v2beta2\norchestras.music.example.io=v2,v3alpha1\nsubscriptions.operators.coreos.com=v2,v1\n",
			want: versionselect.Priorities{
				"rockbands.music.example.io":         {"v2beta1", "v2beta2"},
				"orchestras.music.example.io":        {"v2", "v3alpha1"},
				"subscriptions.operators.coreos.com": {"v2", "v1"},
			},
		},
		{name: "core group is a bare resource", text: "pods=v1", want: versionselect.Priorities{"pods": {"v1"}}},
		{
			name: "spaces, tabs, CRLF and unicode spaces are insignificant",
			text: " rockbands.music.example.io = v2beta1 ,\tv2beta2 \r\n\u00a0pods\u2003=\u3000v1\r\n",
			want: versionselect.Priorities{"rockbands.music.example.io": {"v2beta1", "v2beta2"}, "pods": {"v1"}},
		},
		{
			name: "comments after values",
			text: "pods=v1 # core\n# deployments.apps=v1\njobs.batch=v1,#v2\n",
			want: versionselect.Priorities{"pods": {"v1"}, "jobs.batch": {"v1"}},
		},
		{
			name: "empty and duplicate versions dropped, first kept",
			text: "pods=,v2,,v1,v2,v1,",
			want: versionselect.Priorities{"pods": {"v2", "v1"}},
		},
		{
			name: "no equals",
			text: "pods=v1\nrockbands.music.example.io v1\njobs.batch=v1",
			want: versionselect.Priorities{"pods": {"v1"}, "jobs.batch": {"v1"}},
			bad:  []bad{{2, versionselect.ErrMissingEquals}},
		},
		{
			name: "two equals",
			text: "pods=v1=v2",
			want: versionselect.Priorities{},
			bad:  []bad{{1, versionselect.ErrMultipleEquals}},
		},
		{
			name: "empty resource",
			text: "\n=v1",
			want: versionselect.Priorities{},
			bad:  []bad{{2, versionselect.ErrEmptyResource}},
		},
		{
			name: "no version left",
			text: "pods=\njobs.batch= , ,\ncronjobs.batch=v1",
			want: versionselect.Priorities{"cronjobs.batch": {"v1"}},
			bad:  []bad{{1, versionselect.ErrNoVersions}, {2, versionselect.ErrNoVersions}},
		},
		{
			name: "repeated key: later line bad, first stays",
			text: "pods=v1\npods=v2\npods = v3",
			want: versionselect.Priorities{"pods": {"v1"}},
			bad:  []bad{{2, versionselect.ErrDuplicateKey}, {3, versionselect.ErrDuplicateKey}},
		},
		{
			name: "every bad line reported once, in order, valid lines kept",
			text: "a\nb=v1\n=\nc==v1\nb=v2\nd=,",
			want: versionselect.Priorities{"b": {"v1"}},
			bad: []bad{
				{1, versionselect.ErrMissingEquals},
				{3, versionselect.ErrEmptyResource},
				{4, versionselect.ErrMultipleEquals},
				{5, versionselect.ErrDuplicateKey},
				{6, versionselect.ErrNoVersions},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := versionselect.ParsePriorities(tt.text)
			require.Equal(t, tt.want, got)
			les := lineErrors(t, err)
			require.Len(t, les, len(tt.bad), "errors: %v", err)
			for i, b := range tt.bad {
				require.Equal(t, b.line, les[i].Line)
				require.ErrorIs(t, les[i], b.reason)
				require.ErrorIs(t, err, b.reason)
			}
		})
	}
}

func TestLineErrorMessage(t *testing.T) {
	_, err := versionselect.ParsePriorities("pods=v1\n  rockbands.music.example.io v1 # no equals\n")
	require.EqualError(t, err, `versionselect: priorities line 2 "rockbands.music.example.io v1": no '=' between resource and versions`)
}
