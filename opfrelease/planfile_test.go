package opfrelease

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/privopt/privopt/chance"
	"github.com/privopt/privopt/grid"
	"github.com/privopt/privopt/noise"
	"github.com/privopt/privopt/query"
)

// savePlan round-trips a plan through its file.
func savePlan(t *testing.T, p *Plan) []byte {
	t.Helper()
	f, err := p.File()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// A saved plan reloads into the same plan — same public JSON, same
// released value for the same loads and seed — and an edited or foreign
// file is refused before any private value is read.
func TestPlanFileRoundTrip(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name   string
		mutate func(*Options)
	}{
		{"14_ieee", func(o *Options) {}},
		{"30_ieee", func(o *Options) { o.Mechanism, o.Delta, o.Method = query.AnalyticGaussian, 1e-5, chance.Bonferroni }},
		{"5_pjm", func(o *Options) { o.Security = &Security{PostFactor: 1.2} }},
	} {
		t.Run(c.name, func(t *testing.T) {
			net := loadNet(t, c.name)
			opt := DefaultOptions()
			opt.ChanceSeed = 5
			c.mutate(&opt)
			p, loads, err := ReferencePlan(ctx, net, opt, 0.1)
			if err != nil {
				t.Fatal(err)
			}
			file := savePlan(t, p)
			q, err := LoadPlan(ctx, bytes.NewReader(file), p.Public())
			if err != nil {
				t.Fatal(err)
			}
			a, _ := json.Marshal(p)
			b, _ := json.Marshal(q)
			if !bytes.Equal(a, b) {
				t.Fatalf("reloaded plan differs:\n%s\n%s", a, b)
			}
			if again := savePlan(t, q); !bytes.Equal(again, file) {
				t.Error("saving the reloaded plan gives another file")
			}
			r1, err := p.Release(ctx, loads, ReleaseOptions{Source: noise.NewSeededSource(3)})
			if err != nil {
				t.Fatal(err)
			}
			r2, err := q.Release(ctx, loads, ReleaseOptions{Source: noise.NewSeededSource(3)})
			if err != nil {
				t.Fatal(err)
			}
			if r1.ReleasedValue != r2.ReleasedValue {
				t.Errorf("released %v by the plan, %v by the reloaded plan", r1.ReleasedValue, r2.ReleasedValue)
			}
			// An edited sensitivity is refused and named.
			edited := bytes.Replace(file, []byte(`"epsilon": 1,`), []byte(`"epsilon": 2,`), 1)
			if bytes.Equal(edited, file) {
				t.Fatal("test file has no epsilon 1")
			}
			if _, err := LoadPlan(ctx, bytes.NewReader(edited), p.Public()); err == nil || !strings.Contains(err.Error(), "differs") {
				t.Errorf("edited ε: err %v", err)
			}
		})
	}
}

// The saved certificate is reused, not re-derived, and checked: a plan
// certified with the LMP bound reloads without the MILP (the file's inputs
// carry no LMPBound option), and a certificate whose bound is lowered is
// refused by its arithmetic check.
func TestPlanFileReusesCertificate(t *testing.T) {
	ctx := context.Background()
	net := case3Congested(t)
	c := net.Case
	pub, _, err := Split(net)
	if err != nil {
		t.Fatal(err)
	}
	opt := DefaultOptions()
	opt.Alpha, opt.ChanceSeed = 2, 9
	opt.Domain = &grid.LoadDomain{Lo: []float64{0, 0, 81}, Hi: []float64{0, 10, 99}}
	opt.LMPBound = &grid.LMPBoundOptions{}
	p, err := NewPlan(ctx, pub, opt)
	if err != nil {
		t.Fatal(err)
	}
	if p.Certificate == nil || p.Certificate.Method != MethodLMPBound {
		t.Fatalf("plan certificate %+v, want the LMP bound", p.Certificate)
	}
	f, err := p.File()
	if err != nil {
		t.Fatal(err)
	}
	if f.Certificate == nil || f.Certificate.Method != "lmp-bound" {
		t.Fatalf("file certificate %+v", f.Certificate)
	}
	q, err := f.Open(ctx, pub)
	if err != nil {
		t.Fatal(err)
	}
	if q.Sensitivity != p.Sensitivity || math.IsNaN(q.Sensitivity) {
		t.Fatalf("sensitivity %v reloaded as %v", p.Sensitivity, q.Sensitivity)
	}
	bad := *f.Certificate
	cc := *bad.Certificate
	cc.Bound, cc.PerMW = cc.Bound/2, cc.PerMW/2
	bad.Certificate, bad.Bound, bad.PerMW = &cc, cc.Bound, cc.PerMW
	g := *f
	g.Certificate = &bad
	if _, err := g.Open(ctx, pub); err == nil {
		t.Error("a halved certificate was accepted")
	}
	// Another network (a different line rating) is refused by its digest.
	c2 := *c
	c2.Branches = append([]grid.Branch(nil), c.Branches...)
	c2.Branches[0].X *= 2
	net2, err := grid.NewNetwork(&c2, grid.DCOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pub2, _, _ := Split(net2)
	if _, err := f.Open(ctx, pub2); err == nil || !strings.Contains(err.Error(), "digest") {
		t.Errorf("foreign network: err %v", err)
	}
}
