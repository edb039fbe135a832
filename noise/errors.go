package noise

import (
	"errors"
	"fmt"
)

// ErrInvalidParam is matched (errors.Is) by every *ParamError: a privacy
// parameter, sensitivity, loss or discretization setting that cannot be used.
var ErrInvalidParam = errors.New("noise: invalid parameter")

// ErrNotCertified is returned when an optimized distribution cannot be certified
// (ε,δ)-DP by the exact check even after repair; no distribution is returned then.
var ErrNotCertified = errors.New("noise: distribution could not be certified")

// ParamError reports an unusable parameter: its name, its value and why.
// It matches ErrInvalidParam under errors.Is.
type ParamError struct {
	Param  string // field name, e.g. "Epsilon"
	Value  any    // the offending value
	Reason string // e.g. "must be > 0 and finite"
}

// Error returns "noise: <param> is <value>, <reason>".
func (e *ParamError) Error() string {
	return fmt.Sprintf("noise: %s is %v, %s", e.Param, e.Value, e.Reason)
}

// Is reports whether target is ErrInvalidParam.
func (e *ParamError) Is(target error) bool { return target == ErrInvalidParam }

func paramErr(name string, v any, reason string) error {
	return &ParamError{Param: name, Value: v, Reason: reason}
}
