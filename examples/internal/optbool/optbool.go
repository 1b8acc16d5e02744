// Package optbool is a boolean command-line flag that can be left unset, as Velero's
// --include-cluster-resources: true, false, or not given.
package optbool

import (
	"fmt"
	"strconv"
)

// Value is a flag.Value whose V is nil until the flag is given.
type Value struct{ V *bool }

// String is the value as given, "" when unset.
func (o *Value) String() string {
	if o == nil || o.V == nil {
		return ""
	}
	return strconv.FormatBool(*o.V)
}

// Set parses s as strconv.ParseBool does.
func (o *Value) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return fmt.Errorf("not true or false: %q", s)
	}
	o.V = &b
	return nil
}

// IsBoolFlag lets the flag be given alone, meaning true.
func (o *Value) IsBoolFlag() bool { return true }
