package main

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/privopt/privopt/grid"
	"github.com/privopt/privopt/internal/invariance"
	"github.com/privopt/privopt/internal/shareddata"
	"github.com/privopt/privopt/opfrelease"
)

// caseLoads reads a PGLib case (path relative to the shared data) and
// returns its network and demands times scale.
func caseLoads(t *testing.T, rel string, scale float64) (*grid.Network, []float64) {
	t.Helper()
	net, _, d := caseFile(t, shareddata.Path(t, rel))
	for i := range d {
		d[i] *= scale
	}
	return net, d
}

// caseFile reads a case file (PowerModels DC model) and splits it into the
// public network and the private demands.
func caseFile(t *testing.T, path string) (*grid.Network, *opfrelease.PublicNetwork, []float64) {
	t.Helper()
	c, err := grid.ReadCase(path)
	if err != nil {
		t.Fatal(err)
	}
	net, err := grid.NewNetwork(c, grid.PowerModelsDC())
	if err != nil {
		t.Fatal(err)
	}
	pub, l, err := opfrelease.Split(net)
	if err != nil {
		t.Fatal(err)
	}
	return net, pub, l.Values()
}

// The pair that used to switch certificates (14_ieee loads ×1.40049, bus 3
// +1 MW: the old band around the private loads moved the bound from 23.28 to
// 1000.01): through the CLI, 1,000 releases per side with cryptographic
// noise under one public plan. No threshold event separates the sides beyond
// e^ε (Clopper–Pearson at level 1 − 1e-7 per bound, 396 events: false-failure
// probability below 4e-5), and no event on the output grid does either (the
// grid is published in the plan, identical on both sides).
func TestOPFEmpiricalPrivacyLossCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("2,000 CLI releases; run without -short")
	}
	path := shareddata.Path(t, "pglib/pglib_opf_case14_ieee.m")
	net, ref := caseLoads(t, "pglib/pglib_opf_case14_ieee.m", 1)
	dom, _ := grid.ReferenceBand(ref, 0.5)
	dir := t.TempDir()
	dpath := filepath.Join(dir, "domain.csv")
	if err := invariance.WriteDomainCSV(dpath, net, dom); err != nil {
		t.Fatal(err)
	}
	const n = 1000
	a := append([]float64(nil), ref...)
	for i := range a {
		a[i] *= 1.40049
	}
	b := append([]float64(nil), a...)
	b[net.BusIndex[3]]++
	var sides [2][]float64
	var sens [2]float64
	for s, d := range [][]float64{a, b} {
		labels, cols := make([]string, n), make([][]float64, n)
		for k := range cols {
			labels[k], cols[k] = "r"+itoa(k), d
		}
		lpath := filepath.Join(dir, "loads"+itoa(s)+".csv")
		if err := invariance.WriteLoadsCSV(lpath, net, labels, cols); err != nil {
			t.Fatal(err)
		}
		// One public plan on both sides (the same uncertainty set), fresh
		// cryptographic noise for every release.
		code, out, errs := runCmd(t, "opf", "--case", path, "--domain", dpath, "--loads", lpath, "--query", "cost", "--chance-seed", "17", "--json")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		var o struct {
			Plan struct {
				Sensitivity float64 `json:"sensitivity"`
				Epsilon     float64 `json:"epsilon"`
			} `json:"plan"`
			Releases []struct {
				V float64 `json:"released_value"`
			} `json:"releases"`
		}
		if err := json.Unmarshal([]byte(out), &o); err != nil {
			t.Fatal(err)
		}
		sens[s] = o.Plan.Sensitivity
		for _, r := range o.Releases {
			sides[s] = append(sides[s], r.V)
		}
	}
	if sens[0] != sens[1] {
		t.Fatalf("the sensitivity differs between the sides: %v vs %v", sens[0], sens[1])
	}
	ex, lr := invariance.ThresholdExcess(sides[0], sides[1], 1.000002)
	t.Logf("certified sensitivity %.6g on both sides; threshold-event excess %.4f, log-ratio lower bound %.3f", sens[0], ex, lr)
	if ex > 0 {
		t.Errorf("a threshold event separates adjacent datasets: P[A] − e^ε P'[A] ≥ %v", ex)
	}
}

// The reconstruction attack of the issue: an adversary who knows every load
// but one (118_ieee, bus 59: 277 vs 278 MW) reads one release's text and
// JSON. Everything but the released value is byte-identical between the two
// candidates, so the output tells the adversary nothing beyond the noisy
// value (whose distribution the certified sensitivity covers).
func TestOPFReconstructionAttack(t *testing.T) {
	path := shareddata.Path(t, "pglib/pglib_opf_case118_ieee.m")
	net, ref := caseLoads(t, "pglib/pglib_opf_case118_ieee.m", 1)
	dom, _ := grid.ReferenceBand(ref, 0.1)
	dir := t.TempDir()
	dpath := filepath.Join(dir, "domain.csv")
	if err := invariance.WriteDomainCSV(dpath, net, dom); err != nil {
		t.Fatal(err)
	}
	var outs [2][2]string
	var vals [2][]string
	for s, mw := range []float64{277, 278} {
		d := append([]float64(nil), ref...)
		d[net.BusIndex[59]] = mw
		lpath := filepath.Join(dir, "loads"+itoa(s)+".csv")
		if err := invariance.WriteLoadsCSV(lpath, net, []string{"hour"}, [][]float64{d}); err != nil {
			t.Fatal(err)
		}
		for k, extra := range [][]string{{"--json"}, nil} {
			args := append([]string{"opf", "--case", path, "--domain", dpath, "--loads", lpath, "--query", "cost", "--seed", "3"}, extra...)
			code, out, errs := runCmd(t, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			outs[s][k] = out
		}
		var o struct {
			Releases []struct {
				V float64 `json:"released_value"`
				E float64 `json:"estimate"`
			} `json:"releases"`
		}
		if err := json.Unmarshal([]byte(outs[s][0]), &o); err != nil {
			t.Fatal(err)
		}
		vals[s] = []string{fmtG(o.Releases[0].V), fmtG(o.Releases[0].E)}
		for _, secret := range []string{"277.000000", "278.000000", "277 MW", "278 MW"} {
			if strings.Contains(outs[s][0], secret) || strings.Contains(outs[s][1], secret) {
				t.Errorf("the output names the private load %s", secret)
			}
		}
	}
	if d, err := invariance.DiffJSON([]byte(outs[0][0]), []byte(outs[1][0]), "released_value", "estimate"); err != nil || len(d) > 0 {
		t.Errorf("JSON differs beyond the released values: %v %v", d, err)
	}
	if d := invariance.DiffText(outs[0][1], outs[1][1], vals[0], vals[1]); len(d) > 0 {
		t.Errorf("text differs beyond the released values: %v", d)
	}
}

func fmtG(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

func itoa(i int) string { return strconv.Itoa(i) }
