package grid

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
)

// Limits of the PowerModels JSON reader, checked before anything is allocated
// for the data they bound.
const (
	// MaxPMJSONBytes is the largest PowerModels JSON document ParsePMJSON reads
	// (256 MiB: PGLib's largest case, 78,484 buses, is ≈ 60 MB).
	MaxPMJSONBytes = 256 << 20
	// MaxCostTerms is the largest cost array (polynomial coefficients or
	// piecewise-linear coordinates) accepted by the readers.
	MaxCostTerms = 1 << 10
)

// pmEntry is one "key": {...} member of a PowerModels component table with the
// 1-based line of the file where it starts.
type pmEntry struct {
	key  string
	raw  json.RawMessage
	off  int // byte offset of the value in the document
	line int
}

// ParsePMJSON parses a PowerModels.jl network in JSON (the format of
// PowerModels.parse_file / JSON.print of a network dictionary, in which PGLib-OPF
// is also distributed) into a Case. It reads baseMVA, per_unit, bus, load,
// shunt, gen and branch; dcline, storage and switch tables must be empty (they
// have no DC-OPF counterpart here). Units follow PowerModels: with
// "per_unit": true, powers are in per unit of baseMVA, angles (va, shift, angmin,
// angmax) in radians and cost coefficients for powers in per unit (a polynomial's
// k-th degree coefficient multiplied by baseMVA^k, piecewise-linear abscissae
// divided by baseMVA, PowerModels' _rescale_cost_model!); with false, MW and
// degrees. Loads and shunts are summed per bus into Pd/Qd and Gs/Bs (inactive
// ones skipped). Components are ordered by their "index" field.
//
// Errors are *FormatError (errors.Is(err, ErrFormat)) naming the table, the
// component's index and the line where it starts.
func ParsePMJSON(r io.Reader) (*Case, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxPMJSONBytes+1))
	if err != nil {
		return nil, fmt.Errorf("grid: %w", err)
	}
	if len(data) > MaxPMJSONBytes {
		return nil, formatErr("json", 0, 0, "document exceeds %d bytes", MaxPMJSONBytes)
	}
	lineAt := newLineIndex(data)
	top, err := pmObject(data, 0, lineAt)
	if err != nil {
		return nil, err
	}
	tables := map[string][]pmEntry{}
	c := &Case{}
	perUnit := false
	for _, e := range top {
		switch e.key {
		case "baseMVA":
			if err := json.Unmarshal(e.raw, &c.BaseMVA); err != nil {
				return nil, formatErr("baseMVA", 0, e.line, "value %.40s: %v", e.raw, err)
			}
		case "name":
			_ = json.Unmarshal(e.raw, &c.Name)
		case "per_unit":
			if err := json.Unmarshal(e.raw, &perUnit); err != nil {
				return nil, formatErr("per_unit", 0, e.line, "value %.40s: must be true or false", e.raw)
			}
		case "bus", "load", "shunt", "gen", "branch", "dcline", "storage", "switch":
			if bytes.Equal(bytes.TrimSpace(e.raw), []byte("null")) {
				continue
			}
			entries, err := pmObject(e.raw, e.off, lineAt)
			if err != nil {
				return nil, err
			}
			tables[e.key] = entries
		}
	}
	for _, t := range []string{"dcline", "storage", "switch"} {
		if len(tables[t]) > 0 {
			return nil, formatErr(t, 0, tables[t][0].line, "%d %s component(s): not supported by the DC model", len(tables[t]), t)
		}
	}
	if !(c.BaseMVA > 0) {
		return nil, formatErr("baseMVA", 0, 0, "is %v (or missing), must be > 0", c.BaseMVA)
	}
	base := c.BaseMVA
	pw, ang := 1.0, 1.0 // multipliers to MW and degrees
	if perUnit {
		pw, ang = base, 180/math.Pi
	}
	type pmBus struct {
		Index  *int     `json:"index"`
		BusI   *int     `json:"bus_i"`
		Type   int      `json:"bus_type"`
		VmV    *float64 `json:"vm"`
		VaV    *float64 `json:"va"`
		BaseKV float64  `json:"base_kv"`
		Area   int      `json:"area"`
		Zone   int      `json:"zone"`
		Vmax   float64  `json:"vmax"`
		Vmin   float64  `json:"vmin"`
	}
	idxOf := func(table string, e pmEntry, idx *int) (int, error) {
		if idx != nil {
			return *idx, nil
		}
		k, err := strconv.Atoi(e.key)
		if err != nil {
			return 0, formatErr(table, 0, e.line, "key %q is not an integer and the component has no \"index\"", e.key)
		}
		return k, nil
	}
	decode := func(table string, e pmEntry, v any) error {
		if err := json.Unmarshal(e.raw, v); err != nil {
			return formatErr(table, 0, e.line, "component %q: %v", e.key, err)
		}
		return nil
	}
	order := func(table string, idx []int, entries []pmEntry) ([]int, error) {
		perm := make([]int, len(idx))
		for i := range perm {
			perm[i] = i
		}
		sort.Slice(perm, func(a, b int) bool { return idx[perm[a]] < idx[perm[b]] })
		for i := 1; i < len(perm); i++ {
			if idx[perm[i]] == idx[perm[i-1]] {
				return nil, formatErr(table, idx[perm[i]], entries[perm[i]].line, "index %d used twice", idx[perm[i]])
			}
		}
		return perm, nil
	}
	// Buses.
	busEntries := tables["bus"]
	buses := make([]Bus, len(busEntries))
	busIdx := make([]int, len(busEntries))
	for i, e := range busEntries {
		var b pmBus
		if err := decode("bus", e, &b); err != nil {
			return nil, err
		}
		k, err := idxOf("bus", e, b.Index)
		if err != nil {
			return nil, err
		}
		id := k
		if b.BusI != nil {
			id = *b.BusI
		}
		busIdx[i] = k
		buses[i] = Bus{ID: id, Type: BusType(b.Type), BaseKV: b.BaseKV, Area: b.Area, Zone: b.Zone, Vmax: b.Vmax, Vmin: b.Vmin, Vm: 1, Line: e.line}
		if b.VmV != nil {
			buses[i].Vm = *b.VmV
		}
		if b.VaV != nil {
			buses[i].Va = *b.VaV * ang
		}
	}
	perm, err := order("bus", busIdx, busEntries)
	if err != nil {
		return nil, err
	}
	c.Buses = make([]Bus, len(buses))
	for i, p := range perm {
		c.Buses[i] = buses[p]
	}
	pos := c.BusIndex()
	atBus := func(table string, e pmEntry, id int) (*Bus, error) {
		i, ok := pos[id]
		if !ok {
			return nil, formatErr(table, 0, e.line, "component %q: bus %d does not exist", e.key, id)
		}
		return &c.Buses[i], nil
	}
	for _, e := range tables["load"] {
		var l struct {
			Bus    int      `json:"load_bus"`
			PdV    *float64 `json:"pd"`
			QdV    *float64 `json:"qd"`
			Status *int     `json:"status"`
		}
		if err := decode("load", e, &l); err != nil {
			return nil, err
		}
		if l.Status != nil && *l.Status == 0 {
			continue
		}
		b, err := atBus("load", e, l.Bus)
		if err != nil {
			return nil, err
		}
		if l.PdV != nil {
			b.Pd += *l.PdV * pw
		}
		if l.QdV != nil {
			b.Qd += *l.QdV * pw
		}
	}
	for _, e := range tables["shunt"] {
		var s struct {
			Bus    int     `json:"shunt_bus"`
			Gs     float64 `json:"gs"`
			Bs     float64 `json:"bs"`
			Status *int    `json:"status"`
		}
		if err := decode("shunt", e, &s); err != nil {
			return nil, err
		}
		if s.Status != nil && *s.Status == 0 {
			continue
		}
		b, err := atBus("shunt", e, s.Bus)
		if err != nil {
			return nil, err
		}
		b.Gs += s.Gs * pw
		b.Bs += s.Bs * pw
	}
	// Generators and costs.
	genEntries := tables["gen"]
	gens := make([]Gen, len(genEntries))
	costs := make([]GenCost, len(genEntries))
	genIdx := make([]int, len(genEntries))
	for i, e := range genEntries {
		var g struct {
			Index     *int            `json:"index"`
			Bus       int             `json:"gen_bus"`
			PgV       float64         `json:"pg"`
			QgV       float64         `json:"qg"`
			QmaxV     float64         `json:"qmax"`
			QminV     float64         `json:"qmin"`
			Vg        float64         `json:"vg"`
			MBase     float64         `json:"mbase"`
			Status    *int            `json:"gen_status"`
			Pmax      float64         `json:"pmax"`
			Pmin      float64         `json:"pmin"`
			Model     int             `json:"model"`
			Startup   float64         `json:"startup"`
			Shutdown  float64         `json:"shutdown"`
			CostField json.RawMessage `json:"cost"`
		}
		if err := decode("gen", e, &g); err != nil {
			return nil, err
		}
		k, err := idxOf("gen", e, g.Index)
		if err != nil {
			return nil, err
		}
		genIdx[i] = k
		gens[i] = Gen{Bus: g.Bus, Pg: g.PgV * pw, Qg: g.QgV * pw, Qmax: g.QmaxV * pw, Qmin: g.QminV * pw, Vg: g.Vg, MBase: g.MBase,
			InService: g.Status == nil || *g.Status > 0, Pmax: g.Pmax * pw, Pmin: g.Pmin * pw, Line: e.line}
		var cost []float64
		if len(g.CostField) > 0 {
			if n := bytes.Count(g.CostField, []byte(",")) + 1; n > MaxCostTerms {
				return nil, formatErr("gen", k, e.line, "cost has %d entries, at most %d are accepted", n, MaxCostTerms)
			}
			if err := json.Unmarshal(g.CostField, &cost); err != nil {
				return nil, formatErr("gen", k, e.line, "cost %.60s: %v", g.CostField, err)
			}
		}
		gc := GenCost{Model: CostModel(g.Model), Startup: g.Startup, Shutdown: g.Shutdown, Line: e.line}
		switch gc.Model {
		case Polynomial:
			// cost[j] multiplies p^(d−j) with p in per unit: × base^(−(d−j)) for MW.
			d := len(cost) - 1
			for j, a := range cost {
				if perUnit {
					a /= math.Pow(base, float64(d-j))
				}
				gc.Coeffs = append(gc.Coeffs, a)
			}
			for len(gc.Coeffs) > 3 && gc.Coeffs[0] == 0 {
				gc.Coeffs = gc.Coeffs[1:]
			}
		case PiecewiseLinear:
			if len(cost)%2 != 0 {
				return nil, formatErr("gen", k, e.line, "piecewise-linear cost has %d entries, must be pairs (x, y)", len(cost))
			}
			for j := 0; j < len(cost); j += 2 {
				x := cost[j]
				if perUnit {
					x *= base
				}
				gc.X = append(gc.X, x)
				gc.Y = append(gc.Y, cost[j+1])
			}
		case 0:
			gc.Model = Polynomial // no cost given: zero cost
		default:
			return nil, formatErr("gen", k, e.line, "cost model is %d, must be 1 (piecewise linear) or 2 (polynomial)", g.Model)
		}
		costs[i] = gc
	}
	if perm, err = order("gen", genIdx, genEntries); err != nil {
		return nil, err
	}
	for _, p := range perm {
		c.Gens = append(c.Gens, gens[p])
		c.Costs = append(c.Costs, costs[p])
	}
	// Branches.
	brEntries := tables["branch"]
	branches := make([]Branch, len(brEntries))
	brIdx := make([]int, len(brEntries))
	for i, e := range brEntries {
		var b struct {
			Index       *int    `json:"index"`
			F           int     `json:"f_bus"`
			T           int     `json:"t_bus"`
			R           float64 `json:"br_r"`
			X           float64 `json:"br_x"`
			BFr         float64 `json:"b_fr"`
			BTo         float64 `json:"b_to"`
			RateA       float64 `json:"rate_a"`
			RateB       float64 `json:"rate_b"`
			RateC       float64 `json:"rate_c"`
			Tap         float64 `json:"tap"`
			Shift       float64 `json:"shift"`
			Status      *int    `json:"br_status"`
			AMin        float64 `json:"angmin"`
			AMax        float64 `json:"angmax"`
			Transformer bool    `json:"transformer"`
		}
		if err := decode("branch", e, &b); err != nil {
			return nil, err
		}
		k, err := idxOf("branch", e, b.Index)
		if err != nil {
			return nil, err
		}
		brIdx[i] = k
		ratio := b.Tap
		if !b.Transformer && ratio == 1 {
			ratio = 0 // MATPOWER's "line" convention
		}
		branches[i] = Branch{From: b.F, To: b.T, R: b.R, X: b.X, B: b.BFr + b.BTo, RateA: b.RateA * pw, RateB: b.RateB * pw, RateC: b.RateC * pw,
			Ratio: ratio, Angle: b.Shift * ang, InService: b.Status == nil || *b.Status > 0, AngMin: b.AMin * ang, AngMax: b.AMax * ang, Line: e.line}
	}
	if perm, err = order("branch", brIdx, brEntries); err != nil {
		return nil, err
	}
	for _, p := range perm {
		c.Branches = append(c.Branches, branches[p])
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// newLineIndex returns a function from a byte offset of data to its 1-based line.
func newLineIndex(data []byte) func(int) int {
	var starts []int
	starts = append(starts, 0)
	for i, b := range data {
		if b == '\n' {
			starts = append(starts, i+1)
		}
	}
	return func(off int) int { return sort.SearchInts(starts, off+1) }
}

// pmObject splits the JSON object in data (found at byte offset base of the
// whole document) into its members, each with the line where its value starts.
func pmObject(data []byte, base int, lineAt func(int) int) ([]pmEntry, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	syntax := func(err error) error {
		off := base + int(dec.InputOffset())
		return formatErr("json", 0, lineAt(off), "%v", err)
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, syntax(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, formatErr("json", 0, lineAt(base), "expected an object, found %v", tok)
	}
	var out []pmEntry
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, syntax(err)
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		start := int(dec.InputOffset())
		if err := dec.Decode(&raw); err != nil {
			return nil, syntax(err)
		}
		// Skip the separator and blanks to the value's first byte.
		for start < len(data) && (data[start] == ':' || data[start] == ' ' || data[start] == '\t' || data[start] == '\n' || data[start] == '\r') {
			start++
		}
		out = append(out, pmEntry{key: key, raw: data[start : start+len(raw)], off: base + start, line: lineAt(base + start)})
	}
	if _, err := dec.Token(); err != nil {
		return nil, syntax(err)
	}
	return out, nil
}

// WritePMJSON writes c as a PowerModels JSON network in per-unit form (the
// conventions ParsePMJSON reads: powers / baseMVA, angles in radians, cost
// coefficients rescaled), one load and one shunt per bus that has demand or a
// shunt, every component keyed and indexed by its 1-based position (buses by
// their ID). Branch charging B is split evenly into b_fr and b_to.
func WritePMJSON(w io.Writer, c *Case) error {
	base := c.BaseMVA
	rad := math.Pi / 180
	obj := map[string]any{"baseMVA": base, "name": c.Name, "per_unit": true, "source_type": "privopt",
		"dcline": map[string]any{}, "storage": map[string]any{}, "switch": map[string]any{}}
	bus, load, shunt := map[string]any{}, map[string]any{}, map[string]any{}
	for _, b := range c.Buses {
		bus[strconv.Itoa(b.ID)] = map[string]any{"index": b.ID, "bus_i": b.ID, "bus_type": int(b.Type), "vm": b.Vm, "va": b.Va * rad,
			"base_kv": b.BaseKV, "area": b.Area, "zone": b.Zone, "vmax": b.Vmax, "vmin": b.Vmin}
		if b.Pd != 0 || b.Qd != 0 {
			k := len(load) + 1
			load[strconv.Itoa(k)] = map[string]any{"index": k, "load_bus": b.ID, "pd": b.Pd / base, "qd": b.Qd / base, "status": 1}
		}
		if b.Gs != 0 || b.Bs != 0 {
			k := len(shunt) + 1
			shunt[strconv.Itoa(k)] = map[string]any{"index": k, "shunt_bus": b.ID, "gs": b.Gs / base, "bs": b.Bs / base, "status": 1}
		}
	}
	gen := map[string]any{}
	for i, g := range c.Gens {
		st := 0
		if g.InService {
			st = 1
		}
		m := map[string]any{"index": i + 1, "gen_bus": g.Bus, "pg": g.Pg / base, "qg": g.Qg / base, "qmax": g.Qmax / base, "qmin": g.Qmin / base,
			"vg": g.Vg, "mbase": g.MBase, "gen_status": st, "pmax": g.Pmax / base, "pmin": g.Pmin / base}
		if i < len(c.Costs) {
			gc := c.Costs[i]
			var cost []float64
			switch gc.Model {
			case Polynomial:
				d := len(gc.Coeffs) - 1
				for j, a := range gc.Coeffs {
					cost = append(cost, a*math.Pow(base, float64(d-j)))
				}
			case PiecewiseLinear:
				for j := range gc.X {
					cost = append(cost, gc.X[j]/base, gc.Y[j])
				}
			}
			if cost == nil {
				cost = []float64{}
			}
			m["model"], m["cost"], m["ncost"] = int(gc.Model), cost, len(cost)
			m["startup"], m["shutdown"] = gc.Startup, gc.Shutdown
			if gc.Model == PiecewiseLinear {
				m["ncost"] = len(cost) / 2
			}
		}
		gen[strconv.Itoa(i+1)] = m
	}
	branch := map[string]any{}
	for i, br := range c.Branches {
		st := 0
		if br.InService {
			st = 1
		}
		branch[strconv.Itoa(i+1)] = map[string]any{"index": i + 1, "f_bus": br.From, "t_bus": br.To, "br_r": br.R, "br_x": br.X,
			"b_fr": br.B / 2, "b_to": br.B / 2, "g_fr": 0.0, "g_to": 0.0, "rate_a": br.RateA / base, "rate_b": br.RateB / base, "rate_c": br.RateC / base,
			"tap": br.Tap(), "shift": br.Angle * rad, "br_status": st, "angmin": br.AngMin * rad, "angmax": br.AngMax * rad, "transformer": br.Ratio != 0 || br.Angle != 0}
	}
	obj["bus"], obj["load"], obj["shunt"], obj["gen"], obj["branch"] = bus, load, shunt, gen, branch
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	if err := enc.Encode(obj); err != nil {
		return fmt.Errorf("grid: writing PowerModels JSON: %w", err)
	}
	return nil
}
