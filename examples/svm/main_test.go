package main

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/privopt/privopt/internal/shareddata"
)

// Section 4.2.2 on case14_ieee_3 against the paper's table: non-private
// 98.6%, output perturbation with the paper's σ 69.7%, program perturbation
// with η = 5% per constraint 91.4%, each reproduced within 2 points; the
// ordering non-private > program > output holds for the joint guarantee too.
func TestSVMOrdering(t *testing.T) {
	path := shareddata.Path(t, filepath.Join("svm-opf", "opf_feasibility_case14_ieee_3.json"))
	rows, info, err := run(context.Background(), path, 1000, 100, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(info)
	acc := map[string]float64{}
	for _, r := range rows {
		acc[r.name] = r.mean
		t.Logf("%-36s %.1f%% (sd %.1f%%)", r.name, 100*r.mean, 100*r.std)
	}
	np, out, prog := acc["non-private"], acc["output perturbation (paper σ)"], acc["program perturbation (joint η)"]
	ind := acc["program perturbation (η per row, paper)"]
	for _, c := range []struct {
		name       string
		got, paper float64
	}{{"non-private", np, paperNonPrivate}, {"output perturbation", out, paperOutput}, {"program perturbation, η per row", ind, paperProgram}} {
		if math.Abs(100*c.got-c.paper) > 2 {
			t.Errorf("%s: %.1f%%, paper %.1f%%: more than 2 points apart", c.name, 100*c.got, c.paper)
		}
	}
	if !(np > prog && prog > out+0.2) {
		t.Fatalf("ordering: non-private %v, program %v, output %v", np, prog, out)
	}
	// Per-row η (the paper's formulation) also sits between output
	// perturbation and the non-private fit; it is not more accurate than
	// the joint guarantee here (BENCHMARKS.md).
	if !(np > ind && ind > out+0.2) {
		t.Fatalf("per-row η: non-private %v, per-row %v, joint %v", np, ind, prog)
	}
}

// Section 4.2.1 (synthetic data, Laplace noise of scale 21.8, η = 5% per
// row) against the paper's 99.4%, 51.2% and 97.6%: non-private and program
// perturbation within 2 points; output perturbation near chance (the paper's
// data draw is not published: BENCHMARKS.md has the spread over draws).
func TestSVMSynthetic(t *testing.T) {
	rows, info, err := runSynthetic(context.Background(), 1000)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(info)
	acc := map[string]float64{}
	for _, r := range rows {
		acc[r.name] = 100 * r.mean
		t.Logf("%-36s %.1f%% (sd %.1f%%)", r.name, 100*r.mean, 100*r.std)
	}
	np, out, prog := acc["synthetic: non-private"], acc["synthetic: output perturbation"], acc["synthetic: program perturbation"]
	if math.Abs(np-paperSynthNonPrivate) > 2 || math.Abs(prog-paperSynthProgram) > 2 {
		t.Fatalf("non-private %.1f%% (paper %.1f%%), program %.1f%% (paper %.1f%%)", np, paperSynthNonPrivate, prog, paperSynthProgram)
	}
	if !(out < 65 && prog > out+30) {
		t.Fatalf("output perturbation %.1f%%, program %.1f%%", out, prog)
	}
}
