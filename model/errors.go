package model

import (
	"errors"
	"fmt"
)

// Sentinel errors. Every error the package returns wraps one of them (test with
// errors.Is) and names the operation, the field or constraint and the offending
// values, e.g.
//
//	model: dimension mismatch: Add: lengths 3 and 4 differ (only length-1 expressions broadcast)
var (
	// ErrDimension: lengths or shapes of operands do not fit, or an index is out
	// of range.
	ErrDimension = errors.New("model: dimension mismatch")
	// ErrNonConvex: a quadratic objective term is not convex (Q not positive
	// semidefinite, negative scale, or a quadratic maximized).
	ErrNonConvex = errors.New("model: non-convex")
	// ErrEmptyModel: the model has no variables.
	ErrEmptyModel = errors.New("model: empty model")
	// ErrNotFinite: a coefficient, constant, bound or scale is NaN or infinite
	// where a finite value is required.
	ErrNotFinite = errors.New("model: value not finite")
	// ErrInvalidName: a variable or constraint name is used twice in one model.
	ErrInvalidName = errors.New("model: invalid name")
	// ErrModelMismatch: an expression mixes variables of two different models, or
	// is used in a model it does not belong to.
	ErrModelMismatch = errors.New("model: expression belongs to another model")
	// ErrInvalidArgument: any other inadmissible argument (negative size, lower
	// bound above upper bound, invalid cone, invalid options).
	ErrInvalidArgument = errors.New("model: invalid argument")
	// ErrUnsupported: the chosen backend cannot solve the model's cones.
	ErrUnsupported = errors.New("model: unsupported by the solver")
)

// errf returns an error wrapping sentinel with a formatted detail message.
func errf(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w: %s", sentinel, fmt.Sprintf(format, args...))
}
