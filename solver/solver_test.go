package solver

import (
	"errors"
	"math"
	"testing"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/sparse"
)

func validProblem() *Problem {
	t := sparse.NewTriplets(3, 2, 4)
	t.Append(0, 0, 1)
	t.Append(1, 1, 1)
	t.Append(2, 0, -1)
	t.Append(2, 1, 2)
	p := sparse.NewTriplets(2, 2, 2)
	p.Append(0, 0, 2)
	p.Append(0, 1, 1)
	return &Problem{P: p.ToCSC(), Q: []float64{1, -1}, A: t.ToCSC(), B: []float64{1, 2, 0},
		Cones: []cone.Cone{cone.NewZero(1), cone.NewNonnegative(2)}}
}

func TestValidate(t *testing.T) {
	if err := validProblem().Validate(); err != nil {
		t.Fatalf("valid problem rejected: %v", err)
	}
	mutations := map[string]func(p *Problem){
		"nil A":            func(p *Problem) { p.A = nil },
		"short b":          func(p *Problem) { p.B = p.B[:2] },
		"NaN q":            func(p *Problem) { p.Q[0] = math.NaN() },
		"Inf b":            func(p *Problem) { p.B[1] = math.Inf(1) },
		"NaN r":            func(p *Problem) { p.R = math.NaN() },
		"cones too short":  func(p *Problem) { p.Cones = p.Cones[:1] },
		"bad SOC":          func(p *Problem) { p.Cones = []cone.Cone{cone.NewSecondOrder(0), cone.NewNonnegative(3)} },
		"P lower triangle": func(p *Problem) { p.P = p.P.Transpose() },
		"P wrong shape":    func(p *Problem) { p.P = sparse.NewCSC(3, 3) },
	}
	for name, mutate := range mutations {
		p := validProblem()
		mutate(p)
		err := p.Validate()
		if err == nil {
			t.Errorf("%s: accepted", name)
			continue
		}
		if !errors.Is(err, ErrInvalidProblem) {
			t.Errorf("%s: error %v does not wrap ErrInvalidProblem", name, err)
		}
	}
}

func TestStatusTable(t *testing.T) {
	for s := StatusUnknown; s <= NumericalError; s++ {
		name := s.String()
		back, err := ParseStatus(name)
		if err != nil || back != s {
			t.Errorf("ParseStatus(%q) = %v, %v", name, back, err)
		}
		if (s.Err() == nil) != s.OK() {
			t.Errorf("%v: Err() and OK() disagree", s)
		}
		var se *StatusError
		if !s.OK() && !errors.As(s.Err(), &se) {
			t.Errorf("%v: Err() is not a *StatusError", s)
		}
	}
	if !Optimal.OK() || !AlmostOptimal.OK() || PrimalInfeasible.OK() || TimeLimit.OK() {
		t.Error("OK() wrong")
	}
	if !TimeLimit.Early() || !Cancelled.Early() || Optimal.Early() {
		t.Error("Early() wrong")
	}
	if Status(99).String() != "Status(99)" {
		t.Error("out-of-range status name")
	}
	if _, err := ParseStatus("nope"); err == nil {
		t.Error("ParseStatus accepted an unknown name")
	}
}

func TestIsLinearConic(t *testing.T) {
	p := validProblem()
	if !p.IsLinearConic() {
		t.Error("LP/QP reported as conic")
	}
	p.Cones = append(p.Cones, cone.NewSecondOrder(3))
	if p.IsLinearConic() || !p.Kinds()[cone.SecondOrder] {
		t.Error("SOC not detected")
	}
}

func TestSettingsValidate(t *testing.T) {
	if err := (&Settings{}).Validate(); err != nil {
		t.Error(err)
	}
	for _, s := range []Settings{{TimeLimit: -1}, {MaxIterations: -1}, {Threads: -2}} {
		if err := s.Validate(); err == nil {
			t.Errorf("%+v accepted", s)
		}
	}
}
