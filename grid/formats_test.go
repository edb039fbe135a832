package grid

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/privopt/privopt/internal/shareddata"
)

// dcCost solves the nominal DC-OPF (PowerModels DC model) of c.
func dcCost(t *testing.T, c *Case, dc DCOptions) float64 {
	t.Helper()
	n, err := NewNetwork(c, dc)
	if err != nil {
		t.Fatal(err)
	}
	s, err := n.SolveDCOPF(context.Background(), DCOPFOptions{})
	if err != nil || !s.Status.OK() {
		t.Fatalf("%s: %v %v", c.Name, err, s)
	}
	return s.Cost
}

var formatCases = []string{"pglib_opf_case5_pjm", "pglib_opf_case14_ieee", "pglib_opf_case30_ieee", "pglib_opf_case118_ieee", "pglib_opf_case300_ieee", "pglib_opf_case2383wp_k"}

// TestPMJSONRoundTrip writes PGLib cases as PowerModels JSON (per unit,
// radians, rescaled costs), reads them back through ReadCase and checks the
// DC-OPF cost against the MATPOWER original.
func TestPMJSONRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, name := range formatCases {
		orig, err := ReadCase(shareddata.Path(t, "pglib/"+name+".m"))
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name+".json")
		var buf bytes.Buffer
		if err := WritePMJSON(&buf, orig); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		back, err := ReadCase(path)
		if err != nil {
			t.Fatal(err)
		}
		want, got := dcCost(t, orig, PowerModelsDC()), dcCost(t, back, PowerModelsDC())
		if math.Abs(got-want) > 1e-7*want {
			t.Errorf("%s: JSON cost %.8g, MATPOWER %.8g", name, got, want)
		}
		if len(back.Buses) != len(orig.Buses) || len(back.Gens) != len(orig.Gens) || len(back.Branches) != len(orig.Branches) {
			t.Errorf("%s: sizes %d/%d/%d, want %d/%d/%d", name, len(back.Buses), len(back.Gens), len(back.Branches), len(orig.Buses), len(orig.Gens), len(orig.Branches))
		}
	}
}

// TestRAWRoundTrip writes PGLib cases as PSS/E RAW v33, reads them back
// through ReadCase, attaches the MATPOWER costs (RAW has none) and checks the
// DC-OPF cost against the MATPOWER original. RAW has no branch angle limits, so
// the original is also solved without them; for these cases they do not bind.
func TestRAWRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, name := range formatCases {
		orig, err := ReadCase(shareddata.Path(t, "pglib/"+name+".m"))
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name+".raw")
		var buf bytes.Buffer
		if err := WriteRAW(&buf, orig); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		back, err := ReadCase(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(back.Gens) != len(orig.Gens) {
			t.Fatalf("%s: %d generators, want %d", name, len(back.Gens), len(orig.Gens))
		}
		back.Costs = orig.Costs
		for _, dc := range []DCOptions{PowerModelsDC(), {}} {
			noAng := dc
			noAng.IgnoreAngleLimits = true
			want, got := dcCost(t, orig, dc), dcCost(t, back, noAng)
			if math.Abs(got-want) > 1e-7*want {
				t.Errorf("%s (%+v): RAW cost %.8g, MATPOWER %.8g", name, dc, got, want)
			}
		}
	}
}

// TestReaderErrors: malformed inputs give *FormatError with the section, the
// line and the value.
func TestReaderErrors(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		parse     func(string) error
		want      []string
	}{
		{"raw bad SBASE", "0, abc, 33\nt\nt\n", func(s string) error { _, err := ParseRAW(strings.NewReader(s)); return err }, []string{"header", "line 1", "abc"}},
		{"raw bad X", "0, 100, 33\nt\nt\n1,'A', 138, 3\n2,'B', 138, 1\n0 /\n0 /\n0 /\n0 /\n1, 2,'1', 0.01, x12, 0\n0 /\n0 /\nQ\n",
			func(s string) error { _, err := ParseRAW(strings.NewReader(s)); return err }, []string{"branch row 1", "line 10", "x12"}},
		{"raw missing bus", "0, 100, 33\nt\nt\n1,'A', 138, 3\n0 /\n7,'1', 1, 1, 1, 5, 1\n0 /\nQ\n",
			func(s string) error { _, err := ParseRAW(strings.NewReader(s)); return err }, []string{"load row 1", "line 6", "bus 7"}},
		{"json syntax", "{\n \"baseMVA\": 100,\n \"bus\": {\"1\": {\"bus_type\": 3,}}\n}", func(s string) error { _, err := ParsePMJSON(strings.NewReader(s)); return err }, []string{"json", "line 3"}},
		{"json bad bus ref", "{\n \"baseMVA\": 100,\n \"bus\": {\"1\": {\"bus_type\": 3}},\n \"load\": {\n  \"1\": {\"load_bus\": 9, \"pd\": 1}\n }\n}",
			func(s string) error { _, err := ParsePMJSON(strings.NewReader(s)); return err }, []string{"load", "line 5", "bus 9"}},
	} {
		err := tc.parse(tc.src)
		var fe *FormatError
		if !errors.As(err, &fe) || !errors.Is(err, ErrFormat) {
			t.Errorf("%s: error %v, want a *FormatError", tc.name, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not mention %q", tc.name, err, w)
			}
		}
	}
}

// FuzzRAW checks that the RAW reader never panics and that what it accepts
// validates.
func FuzzRAW(f *testing.F) {
	var buf bytes.Buffer
	if c, err := ReadCase("testdata/case3_congested.m"); err == nil && WriteRAW(&buf, c) == nil {
		f.Add(buf.String())
	}
	f.Add("0, 100, 33\nt\nt\n1,'A', 138, 3\n0 /\nQ\n")
	if b, err := os.ReadFile("testdata/case_3winding_v34.raw"); err == nil {
		f.Add(string(b))
	}
	f.Fuzz(func(t *testing.T, src string) {
		c, err := ParseRAW(strings.NewReader(src))
		if err != nil {
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("accepted case does not validate: %v", err)
		}
	})
}

// FuzzPMJSON checks that the PowerModels JSON reader never panics and that
// what it accepts validates.
func FuzzPMJSON(f *testing.F) {
	var buf bytes.Buffer
	if c, err := ReadCase("testdata/case3_congested.m"); err == nil && WritePMJSON(&buf, c) == nil {
		f.Add(buf.String())
	}
	f.Add(`{"baseMVA": 100, "bus": {"1": {"bus_type": 3}}}`)
	f.Fuzz(func(t *testing.T, src string) {
		c, err := ParsePMJSON(strings.NewReader(src))
		if err != nil {
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("accepted case does not validate: %v", err)
		}
	})
}

// rawToRev rewrites a revision-33 file of WriteRAW in the layout of revision
// 34 or 35: system-wide data and "@!" field-name lines, the branch's NAME and
// twelve ratings, the system switching device section, twelve ratings per
// transformer winding and, for 35 only, the generator's NREG and BASLOD fields
// (layouts as in the PSS/E 34 and 35 program operation manuals).
func rawToRev(t *testing.T, v33 string, rev int) string {
	t.Helper()
	lines := strings.Split(strings.TrimRight(v33, "\n"), "\n")
	var out []string
	section := 0 // 0 bus, 1 load, 2 shunt, 3 gen, 4 branch, 5 transformer, 6+ later
	xfRecord := 0
	for i, l := range lines {
		switch {
		case i == 0:
			out = append(out, strings.Replace(l, ", 33,", fmt.Sprintf(", %d,", rev), 1))
			continue
		case i == 1:
			out = append(out, l)
			continue
		case i == 2:
			out = append(out, l, "GENERAL, THRSHZ=0.0001, PQBRAK=0.7, BLOWUP=5.0", "0 / END OF SYSTEM-WIDE DATA, BEGIN BUS DATA",
				"@!   I,'NAME        ', BASKV, IDE,AREA,ZONE,OWNER, VM,        VA,    NVHI,   NVLO,   EVHI,   EVLO")
			continue
		}
		if strings.HasPrefix(l, "0 /") {
			out = append(out, l)
			if section == 4 {
				out = append(out, "0 / END OF SYSTEM SWITCHING DEVICE DATA, BEGIN TRANSFORMER DATA")
			}
			section++
			continue
		}
		f := strings.Split(l, ",")
		switch section {
		case 3: // generator (35 only): NREG after IREG (field 8), BASLOD after PB (field 18)
			if rev < 35 {
				break
			}
			g := append([]string{}, f[:8]...)
			g = append(g, " 0")
			g = append(g, f[8:18]...)
			g = append(g, " 0")
			g = append(g, f[18:]...)
			l = strings.Join(g, ",")
		case 4: // branch: NAME after B, RATE1..RATE12 instead of RATEA..RATEC
			b := append([]string{}, f[:6]...)
			b = append(b, "'LINE        '")
			b = append(b, f[6:9]...)
			for k := 0; k < 9; k++ {
				b = append(b, " 0")
			}
			b = append(b, f[9:]...)
			l = strings.Join(b, ",")
		case 5: // transformer winding record: RATE1-1..RATE1-12 instead of RATA1..RATC1
			if xfRecord%4 == 2 {
				w := append([]string{}, f[:6]...)
				for k := 0; k < 9; k++ {
					w = append(w, " 0")
				}
				w = append(w, f[6:]...)
				l = strings.Join(w, ",")
			}
			xfRecord++
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n") + "\n"
}

// TestRAWv34v35: the revision-34 and -35 layouts of the same cases give the
// same DC-OPF cost as the MATPOWER originals (118 and 300 have transformers).
func TestRAWv34v35(t *testing.T) {
	for _, name := range []string{"pglib_opf_case30_ieee", "pglib_opf_case118_ieee", "pglib_opf_case300_ieee"} {
		for _, rev := range []int{34, 35} {
			testRAWRev(t, name, rev)
		}
	}
}

func testRAWRev(t *testing.T, name string, rev int) {
	t.Helper()
	{
		orig, err := ReadCase(shareddata.Path(t, "pglib/"+name+".m"))
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := WriteRAW(&buf, orig); err != nil {
			t.Fatal(err)
		}
		back, err := ParseRAW(strings.NewReader(rawToRev(t, buf.String(), rev)))
		if err != nil {
			t.Fatal(err)
		}
		if len(back.Gens) != len(orig.Gens) || len(back.Branches) != len(orig.Branches) || len(back.Buses) != len(orig.Buses) {
			t.Fatalf("%s: sizes differ", name)
		}
		back.Costs = orig.Costs
		dc := PowerModelsDC()
		noAng := dc
		noAng.IgnoreAngleLimits = true
		if want, got := dcCost(t, orig, dc), dcCost(t, back, noAng); math.Abs(got-want) > 1e-7*want {
			t.Errorf("%s: RAW v%d cost %.8g, MATPOWER %.8g", name, rev, got, want)
		}
	}
}

// TestFormatsRoundTripFeatures round-trips the feature cases of testdata
// (piecewise-linear costs, taps, phase shifts, shunts, islands, out-of-service
// elements) through both formats under MATPOWER's DC model, where taps and
// shifts matter.
func TestFormatsRoundTripFeatures(t *testing.T) {
	for _, name := range []string{"case_features", "case_islands", "case3_congested", "case3_loop", "case2_merit"} {
		orig, err := ReadCase("testdata/" + name + ".m")
		if err != nil {
			t.Fatal(err)
		}
		want := dcCost(t, orig, DCOptions{IgnoreAngleLimits: true})
		var js, raw bytes.Buffer
		if err := WritePMJSON(&js, orig); err != nil {
			t.Fatal(err)
		}
		if err := WriteRAW(&raw, orig); err != nil {
			t.Fatal(err)
		}
		fromJSON, err := ParsePMJSON(&js)
		if err != nil {
			t.Fatalf("%s JSON: %v", name, err)
		}
		fromRAW, err := ParseRAW(&raw)
		if err != nil {
			t.Fatalf("%s RAW: %v", name, err)
		}
		fromRAW.Costs = orig.Costs
		for format, c := range map[string]*Case{"JSON": fromJSON, "RAW": fromRAW} {
			if got := dcCost(t, c, DCOptions{IgnoreAngleLimits: true}); math.Abs(got-want) > 1e-7*math.Max(1, math.Abs(want)) {
				t.Errorf("%s %s: cost %.10g, MATPOWER %.10g", name, format, got, want)
			}
		}
	}
}

// TestRAWThreeWinding reads a hand-written revision-34 file with a
// three-winding transformer (CZ = 2 on three different MVA bases, off-nominal
// winding ratios), a two-winding transformer, a system switching device, an
// out-of-service load and branch, system-wide data and "@!" lines, and its
// MATPOWER twin written by hand with the star equivalent computed
// independently (the arithmetic is in the .m file): same buses and the same
// DC-OPF cost under both DC models. The case is congested (the cost exceeds
// the merit-order cost 300·10 + 10·25 = 3,250 $/h), so the star reactances
// shape the answer.
func TestRAWThreeWinding(t *testing.T) {
	raw, err := ReadCase("testdata/case_3winding_v34.raw")
	if err != nil {
		t.Fatal(err)
	}
	twin, err := ReadCase("testdata/case_3winding.m")
	if err != nil {
		t.Fatal(err)
	}
	var star *Bus
	for i := range raw.Buses {
		if raw.Buses[i].ID == 8 {
			star = &raw.Buses[i]
		}
	}
	if star == nil || len(raw.Buses) != len(twin.Buses) {
		t.Fatalf("star bus 8 missing or %d buses, want %d", len(raw.Buses), len(twin.Buses))
	}
	windings := 0
	for _, br := range raw.Branches {
		if br.To == 8 {
			windings++
		}
	}
	if windings != 3 {
		t.Errorf("%d branches to the star bus, want 3", windings)
	}
	raw.Costs = twin.Costs
	for _, dc := range []DCOptions{PowerModelsDC(), {}} {
		dc.IgnoreAngleLimits = true
		want, got := dcCost(t, twin, dc), dcCost(t, raw, dc)
		if math.Abs(got-want) > 1e-7*want {
			t.Errorf("%+v: RAW cost %.8f, MATPOWER star %.8f", dc, got, want)
		}
		if !(want > 3250+1) {
			t.Errorf("%+v: cost %.4f: the case is not congested, the test would not see the reactances", dc, want)
		}
		t.Logf("%+v: cost %.6f $/h", dc, got)
	}
}
