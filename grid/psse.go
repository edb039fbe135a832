package grid

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// MaxRAWRecords is the largest number of records ParseRAW accepts in one
// section, checked before a record is stored.
const MaxRAWRecords = 1 << 22

// rawSections lists the PSS/E RAW data sections in file order for revision 33;
// revisions 34 and 35 insert the system switching device data after the
// branches (and 35 starts with system-wide data, skipped separately).
var rawSections33 = []string{"bus", "load", "fixed shunt", "generator", "branch", "transformer"}
var rawSections34 = []string{"bus", "load", "fixed shunt", "generator", "branch", "system switching device", "transformer"}

// rawRecord is one record: its fields and source line.
type rawRecord struct {
	f    []string
	line int
}

// ParseRAW parses a PSS/E RAW power-flow case, revisions 33, 34 and 35, into a
// Case, keeping what a DC model needs: buses (I, BASKV, IDE, AREA, ZONE, VM,
// VA), loads (PL + IP + YP and QL + IQ + YQ at 1 p.u., summed per bus,
// in-service only), fixed shunts (GL, BL), generators (PG, QG, QT, QB, VS,
// MBASE, STAT, PT, PB), non-transformer branches (R, X, B, RATEA..C, ST),
// system switching devices (revisions 34, 35: a branch of reactance X, rating
// RATE1, in service when STAT ≠ 0), two-winding transformers (impedance codes
// CZ = 1, 2; winding codes CW = 1, 2, 3; ratio WINDV1/WINDV2 in per unit of
// the bus base voltages, phase shift ANG1, rating RATA1) and three-winding
// transformers (a star bus and three branches, see raw3Winding). DC lines,
// FACTS devices and switched shunts are ignored.
//
// Revisions (PSS/E program operation manuals of each version; the layouts
// agree with PowerModels' and GridCal's readers). Revision 34 differs from 33
// in: optional system-wide data after the three header lines (keyword
// records up to "0 /"); "@!" field-name lines; the non-transformer branch's
// NAME after B and twelve ratings RATE1..RATE12 where 33 has RATEA..RATEC (so
// ST moves from the 14th to the 24th field); a system switching device
// section between the branches and the transformers; the transformer's ZCOD
// after VECGRP and twelve ratings per winding (the first three where 33 has
// RATAk..RATCk). Its generator, load, shunt and bus records are those of 33.
// Revision 35 adds to 34 the generator's NREG after IREG and BASLOD after PB
// (and the load's DGEN fields, not read). RAW files carry no generator costs: every generator gets a zero
// polynomial cost, to be replaced by the caller (e.g. from a MATPOWER gencost).
// Branch angle limits do not exist in RAW (AngMin = AngMax = 0: none).
//
// Errors are *FormatError naming the section, the record (1-based within the
// section), the line and the offending value; ReadCase adds the file name.
func ParseRAW(r io.Reader) (*Case, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<20)
	lineNo := 0
	next := func() (string, bool) {
		for sc.Scan() {
			lineNo++
			t := sc.Text()
			if strings.HasPrefix(strings.TrimSpace(t), "@!") {
				continue
			}
			return t, true
		}
		return "", false
	}
	head, ok := next()
	if !ok {
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("grid: %w", err)
		}
		return nil, formatErr("header", 0, 0, "empty file")
	}
	hf := rawFields(head)
	if len(hf) < 2 {
		return nil, formatErr("header", 0, lineNo, "%q: expected IC, SBASE, REV, …", head)
	}
	c := &Case{}
	sbase, err := strconv.ParseFloat(hf[1], 64)
	if err != nil || !(sbase > 0) || math.IsInf(sbase, 0) {
		return nil, formatErr("header", 0, lineNo, "SBASE is %q, must be a positive number", hf[1])
	}
	c.BaseMVA = sbase
	rev := 33
	if len(hf) >= 3 && hf[2] != "" {
		v, err := strconv.ParseFloat(hf[2], 64)
		if err != nil {
			return nil, formatErr("header", 0, lineNo, "REV is %q, must be a number", hf[2])
		}
		rev = int(v)
	}
	if rev != 33 && rev != 34 && rev != 35 {
		return nil, formatErr("header", 0, lineNo, "REV is %d; revisions 33, 34 and 35 are supported", rev)
	}
	title, _ := next()
	c.Name = strings.TrimSpace(strings.SplitN(title, "/", 2)[0])
	next()
	sections := rawSections33
	if rev >= 34 {
		sections = rawSections34
	}
	data := map[string][]rawRecord{}
	pending, hasPending := "", false
	if rev >= 34 {
		// System-wide data (optional): records starting with a keyword, up to "0 /".
		for {
			t, ok := next()
			if !ok {
				return nil, formatErr("system-wide", 0, lineNo, "file ends inside system-wide data")
			}
			f := rawFields(t)
			if len(f) > 0 && f[0] != "" && (f[0][0] >= '0' && f[0][0] <= '9' || f[0][0] == '-') {
				if f[0] == "0" && len(f) == 1 {
					break
				}
				pending, hasPending = t, true // no system-wide section
				break
			}
		}
	}
	for si, s := range sections {
		for {
			var t string
			if hasPending {
				t, hasPending = pending, false
			} else {
				var ok bool
				if t, ok = next(); !ok {
					if err := sc.Err(); err != nil {
						return nil, fmt.Errorf("grid: %w", err)
					}
					if si == 0 {
						return nil, formatErr(s, 0, lineNo, "file ends before the %s data", s)
					}
					return c, rawBuild(c, data, rev)
				}
			}
			f := rawFields(t)
			if len(f) == 0 || (len(f) == 1 && f[0] == "") {
				continue
			}
			// A record whose first field is 0 ends the section (bus numbers are
			// positive); "Q" ends the data.
			if f[0] == "0" || strings.EqualFold(f[0], "Q") {
				if strings.EqualFold(f[0], "Q") {
					return c, rawBuild(c, data, rev)
				}
				break
			}
			if len(data[s]) >= MaxRAWRecords {
				return nil, formatErr(s, len(data[s])+1, lineNo, "more than %d records", MaxRAWRecords)
			}
			rec := rawRecord{f: f, line: lineNo}
			if s == "transformer" {
				// Two-winding: 4 records; three-winding (K ≠ 0): 5.
				if len(f) < 3 {
					return nil, formatErr(s, len(data[s])+1, lineNo, "record has %d fields, need I, J, K, …", len(f))
				}
				more := 3
				if k := strings.TrimSpace(f[2]); k != "0" && k != "" {
					more = 4
				}
				for j := 0; j < more; j++ {
					t2, ok := next()
					if !ok {
						return nil, formatErr(s, len(data[s])+1, lineNo, "file ends inside a transformer record")
					}
					rec.f = append(rec.f, "|")
					rec.f = append(rec.f, rawFields(t2)...)
				}
			}
			data[s] = append(data[s], rec)
		}
	}
	return c, rawBuild(c, data, rev)
}

// rawFields splits a RAW line into fields: separated by commas and/or blanks,
// single- or double-quoted strings kept whole (quotes removed), "/" outside
// quotes starting a comment. Empty fields between two commas are kept as "".
func rawFields(s string) []string {
	var out []string
	var cur strings.Builder
	inQuote := byte(0)
	have, sawComma := false, false
	flush := func() {
		out = append(out, cur.String())
		cur.Reset()
		have = false
	}
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case inQuote != 0:
			if ch == inQuote {
				inQuote = 0
			} else {
				cur.WriteByte(ch)
			}
		case ch == '\'' || ch == '"':
			inQuote, have = ch, true
		case ch == '/':
			if have {
				flush()
			}
			return out
		case ch == ',':
			if have || sawComma || len(out) == 0 {
				flush()
			}
			sawComma = true
		case ch == ' ' || ch == '\t' || ch == '\r':
			if have {
				flush()
				sawComma = false
			}
		default:
			cur.WriteByte(ch)
			have = true
			sawComma = false
		}
	}
	if have {
		flush()
	}
	return out
}

// rawBuild converts the records of the sections to c's buses, generators and
// branches and validates the case.
func rawBuild(c *Case, data map[string][]rawRecord, rev int) error {
	num := func(s string, rec rawRecord, row, k int, name string, def float64) (float64, error) {
		if k >= len(rec.f) || strings.TrimSpace(rec.f[k]) == "" || rec.f[k] == "|" {
			return def, nil
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(rec.f[k]), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, formatErr(s, row, rec.line, "%s (field %d) is %q, must be a finite number", name, k+1, rec.f[k])
		}
		return v, nil
	}
	integer := func(s string, rec rawRecord, row, k int, name string, def int) (int, error) {
		v, err := num(s, rec, row, k, name, float64(def))
		if err != nil {
			return 0, err
		}
		if v != math.Trunc(v) || math.Abs(v) > 1<<40 {
			return 0, formatErr(s, row, rec.line, "%s (field %d) is %q, must be an integer", name, k+1, rec.f[k])
		}
		return int(v), nil
	}
	baseKV := map[int]float64{}
	for i, rec := range data["bus"] {
		row := i + 1
		var b Bus
		var err error
		if b.ID, err = integer("bus", rec, row, 0, "I", 0); err != nil {
			return err
		}
		if b.BaseKV, err = num("bus", rec, row, 2, "BASKV", 0); err != nil {
			return err
		}
		t, err := integer("bus", rec, row, 3, "IDE", 1)
		if err != nil {
			return err
		}
		b.Type = BusType(t)
		if b.Area, err = integer("bus", rec, row, 4, "AREA", 1); err != nil {
			return err
		}
		if b.Zone, err = integer("bus", rec, row, 5, "ZONE", 1); err != nil {
			return err
		}
		if b.Vm, err = num("bus", rec, row, 7, "VM", 1); err != nil {
			return err
		}
		if b.Va, err = num("bus", rec, row, 8, "VA", 0); err != nil {
			return err
		}
		if b.Vmax, err = num("bus", rec, row, 9, "NVHI", 1.1); err != nil {
			return err
		}
		if b.Vmin, err = num("bus", rec, row, 10, "NVLO", 0.9); err != nil {
			return err
		}
		b.Line = rec.line
		baseKV[b.ID] = b.BaseKV
		c.Buses = append(c.Buses, b)
	}
	idx := c.BusIndex()
	bus := func(s string, rec rawRecord, row, k int) (*Bus, error) {
		id, err := integer(s, rec, row, k, "I", 0)
		if err != nil {
			return nil, err
		}
		if id < 0 {
			id = -id
		}
		i, ok := idx[id]
		if !ok {
			return nil, formatErr(s, row, rec.line, "bus %d does not exist", id)
		}
		return &c.Buses[i], nil
	}
	// ends returns the buses of fields 0 and 1 (I and J) of a two-terminal record.
	ends := func(s string, rec rawRecord, row int) (from, to *Bus, err error) {
		if from, err = bus(s, rec, row, 0); err != nil {
			return nil, nil, err
		}
		to, err = bus(s, rec, row, 1)
		return from, to, err
	}
	for i, rec := range data["load"] {
		row := i + 1
		b, err := bus("load", rec, row, 0)
		if err != nil {
			return err
		}
		st, err := integer("load", rec, row, 2, "STATUS", 1)
		if err != nil || st == 0 {
			if err != nil {
				return err
			}
			continue
		}
		var v [6]float64
		for j, name := range []string{"PL", "QL", "IP", "IQ", "YP", "YQ"} {
			if v[j], err = num("load", rec, row, 5+j, name, 0); err != nil {
				return err
			}
		}
		b.Pd += v[0] + v[2] + v[4]
		b.Qd += v[1] + v[3] - v[5]
	}
	for i, rec := range data["fixed shunt"] {
		row := i + 1
		b, err := bus("fixed shunt", rec, row, 0)
		if err != nil {
			return err
		}
		st, err := integer("fixed shunt", rec, row, 2, "STATUS", 1)
		if err != nil {
			return err
		}
		if st == 0 {
			continue
		}
		gl, err := num("fixed shunt", rec, row, 3, "GL", 0)
		if err != nil {
			return err
		}
		bl, err := num("fixed shunt", rec, row, 4, "BL", 0)
		if err != nil {
			return err
		}
		b.Gs += gl
		b.Bs += bl
	}
	shift := 0 // v35 inserts NREG after IREG
	if rev >= 35 {
		shift = 1
	}
	for i, rec := range data["generator"] {
		row := i + 1
		b, err := bus("generator", rec, row, 0)
		if err != nil {
			return err
		}
		g := Gen{Bus: b.ID, Line: rec.line}
		fields := []struct {
			k    int
			name string
			dst  *float64
			def  float64
		}{{2, "PG", &g.Pg, 0}, {3, "QG", &g.Qg, 0}, {4, "QT", &g.Qmax, 9999}, {5, "QB", &g.Qmin, -9999}, {6, "VS", &g.Vg, 1},
			{8 + shift, "MBASE", &g.MBase, c.BaseMVA}, {16 + shift, "PT", &g.Pmax, 9999}, {17 + shift, "PB", &g.Pmin, -9999}}
		for _, f := range fields {
			if *f.dst, err = num("generator", rec, row, f.k, f.name, f.def); err != nil {
				return err
			}
		}
		st, err := integer("generator", rec, row, 14+shift, "STAT", 1)
		if err != nil {
			return err
		}
		g.InService = st > 0
		c.Gens = append(c.Gens, g)
		c.Costs = append(c.Costs, GenCost{Model: Polynomial, Line: rec.line})
	}
	for i, rec := range data["branch"] {
		row := i + 1
		from, to, err := ends("branch", rec, row)
		if err != nil {
			return err
		}
		br := Branch{From: from.ID, To: to.ID, Line: rec.line}
		rate, st := 6, 13 // v33: RATEA at 7th field, ST at 14th
		if rev >= 34 {
			rate, st = 7, 23 // NAME, then RATE1..RATE12, GI, BI, GJ, BJ, ST
		}
		for _, f := range []struct {
			k    int
			name string
			dst  *float64
		}{{3, "R", &br.R}, {4, "X", &br.X}, {5, "B", &br.B}, {rate, "RATEA", &br.RateA}, {rate + 1, "RATEB", &br.RateB}, {rate + 2, "RATEC", &br.RateC}} {
			if *f.dst, err = num("branch", rec, row, f.k, f.name, 0); err != nil {
				return err
			}
		}
		s, err := integer("branch", rec, row, st, "ST", 1)
		if err != nil {
			return err
		}
		br.InService = s != 0
		c.Branches = append(c.Branches, br)
	}
	for i, rec := range data["system switching device"] {
		// I, J, 'CKT', X, RATE1..RATE12, STAT, NSTAT, MET, STYPE, 'NAME': a
		// closed switch is a branch of reactance X (PSS/E's default 0.0001 p.u.).
		row := i + 1
		from, to, err := ends("system switching device", rec, row)
		if err != nil {
			return err
		}
		br := Branch{From: from.ID, To: to.ID, Line: rec.line}
		if br.X, err = num("system switching device", rec, row, 3, "X", 0.0001); err != nil {
			return err
		}
		if br.RateA, err = num("system switching device", rec, row, 4, "RATE1", 0); err != nil {
			return err
		}
		st, err := integer("system switching device", rec, row, 16, "STAT", 1)
		if err != nil {
			return err
		}
		br.InService = st != 0
		c.Branches = append(c.Branches, br)
	}
	starID := 0 // three-winding star buses get the numbers after the largest bus
	for _, b := range c.Buses {
		starID = max(starID, b.ID)
	}
	for i, rec := range data["transformer"] {
		row := i + 1
		// Records joined with "|" separators: find the start of each.
		var starts []int
		starts = append(starts, 0)
		for k, f := range rec.f {
			if f == "|" {
				starts = append(starts, k+1)
			}
		}
		if len(starts) == 5 {
			if err := raw3Winding(c, rec, row, starts, baseKV, bus, num, integer, &starID); err != nil {
				return err
			}
			continue
		}
		if len(starts) != 4 {
			return formatErr("transformer", row, rec.line, "expected 4 records for a two-winding transformer, found %d", len(starts))
		}
		l2, l3, l4 := starts[1], starts[2], starts[3]
		from, to, err := ends("transformer", rec, row)
		if err != nil {
			return err
		}
		cw, err := integer("transformer", rec, row, 4, "CW", 1)
		if err != nil {
			return err
		}
		cz, err := integer("transformer", rec, row, 5, "CZ", 1)
		if err != nil {
			return err
		}
		st, err := integer("transformer", rec, row, 11, "STAT", 1)
		if err != nil {
			return err
		}
		br := Branch{From: from.ID, To: to.ID, InService: st != 0, Line: rec.line}
		if br.R, err = num("transformer", rec, row, l2, "R1-2", 0); err != nil {
			return err
		}
		if br.X, err = num("transformer", rec, row, l2+1, "X1-2", 0); err != nil {
			return err
		}
		sb, err := num("transformer", rec, row, l2+2, "SBASE1-2", c.BaseMVA)
		if err != nil {
			return err
		}
		switch cz {
		case 1:
		case 2:
			if !(sb > 0) {
				return formatErr("transformer", row, rec.line, "SBASE1-2 is %v, must be > 0 with CZ = 2", sb)
			}
			br.R *= c.BaseMVA / sb
			br.X *= c.BaseMVA / sb
		default:
			return formatErr("transformer", row, rec.line, "CZ is %d; impedance codes 1 and 2 are supported", cz)
		}
		w1, err := num("transformer", rec, row, l3, "WINDV1", 1)
		if err != nil {
			return err
		}
		nom1, err := num("transformer", rec, row, l3+1, "NOMV1", 0)
		if err != nil {
			return err
		}
		if br.Angle, err = num("transformer", rec, row, l3+2, "ANG1", 0); err != nil {
			return err
		}
		if br.RateA, err = num("transformer", rec, row, l3+3, "RATA1", 0); err != nil {
			return err
		}
		if br.RateB, err = num("transformer", rec, row, l3+4, "RATB1", 0); err != nil {
			return err
		}
		if br.RateC, err = num("transformer", rec, row, l3+5, "RATC1", 0); err != nil {
			return err
		}
		w2, err := num("transformer", rec, row, l4, "WINDV2", 1)
		if err != nil {
			return err
		}
		nom2, err := num("transformer", rec, row, l4+1, "NOMV2", 0)
		if err != nil {
			return err
		}
		kv1, kv2 := baseKV[from.ID], baseKV[to.ID]
		switch cw {
		case 1:
		case 2:
			if !(kv1 > 0 && kv2 > 0) {
				return formatErr("transformer", row, rec.line, "CW = 2 needs positive base voltages at buses %d and %d (BASKV %v, %v)", from.ID, to.ID, kv1, kv2)
			}
			w1, w2 = w1/kv1, w2/kv2
		case 3:
			if nom1 == 0 {
				nom1 = kv1
			}
			if nom2 == 0 {
				nom2 = kv2
			}
			if !(kv1 > 0 && kv2 > 0) {
				return formatErr("transformer", row, rec.line, "CW = 3 needs positive base voltages at buses %d and %d (BASKV %v, %v)", from.ID, to.ID, kv1, kv2)
			}
			w1, w2 = w1*nom1/kv1, w2*nom2/kv2
		default:
			return formatErr("transformer", row, rec.line, "CW is %d, must be 1, 2 or 3", cw)
		}
		if !(w2 != 0) {
			return formatErr("transformer", row, rec.line, "WINDV2 is %v, must be non-zero", w2)
		}
		br.Ratio = w1 / w2
		c.Branches = append(c.Branches, br)
	}
	return c.Validate()
}

// WriteRAW writes c as a PSS/E RAW revision 33 file: buses, one load and one
// fixed shunt per bus with demand or shunt, generators, branches without tap
// or phase shift as non-transformer branches, the others as two-winding
// transformers (CW = CZ = CM = 1, WINDV1 = ratio, ANG1 = shift, charging
// dropped), every other section empty. Costs and branch angle limits have no
// RAW field and are not written.
func WriteRAW(w io.Writer, c *Case) error {
	bw := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(bw, format, args...) }
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	p("0, %s, 33, 0, 0, 60.00     / PSS(R)E-33 RAW written by privopt\n", g(c.BaseMVA))
	p("%s\n\n", c.Name)
	for _, b := range c.Buses {
		p("%d,'BUS%-8d', %s, %d, %d, %d, 1, %s, %s, %s, %s, %s, %s\n", b.ID, b.ID, g(b.BaseKV), int(b.Type), b.Area, b.Zone, g(b.Vm), g(b.Va), g(b.Vmax), g(b.Vmin), g(b.Vmax), g(b.Vmin))
	}
	p("0 / END OF BUS DATA, BEGIN LOAD DATA\n")
	for _, b := range c.Buses {
		if b.Pd != 0 || b.Qd != 0 {
			p("%d,'1 ', 1, %d, %d, %s, %s, 0, 0, 0, 0, 1, 1, 0\n", b.ID, b.Area, b.Zone, g(b.Pd), g(b.Qd))
		}
	}
	p("0 / END OF LOAD DATA, BEGIN FIXED SHUNT DATA\n")
	for _, b := range c.Buses {
		if b.Gs != 0 || b.Bs != 0 {
			p("%d,'1 ', 1, %s, %s\n", b.ID, g(b.Gs), g(b.Bs))
		}
	}
	p("0 / END OF FIXED SHUNT DATA, BEGIN GENERATOR DATA\n")
	ids := map[int]int{}
	for _, gen := range c.Gens {
		ids[gen.Bus]++
		st := 0
		if gen.InService {
			st = 1
		}
		p("%d,'%d ', %s, %s, %s, %s, %s, 0, %s, 0, 1, 0, 0, 1, %d, 100, %s, %s, 1, 1\n", gen.Bus, ids[gen.Bus], g(gen.Pg), g(gen.Qg), g(gen.Qmax), g(gen.Qmin), g(gen.Vg), g(gen.MBase), st, g(gen.Pmax), g(gen.Pmin))
	}
	p("0 / END OF GENERATOR DATA, BEGIN BRANCH DATA\n")
	ckt := map[[2]int]int{}
	var xf []Branch
	for _, br := range c.Branches {
		if br.Ratio != 0 || br.Angle != 0 {
			xf = append(xf, br)
			continue
		}
		ckt[[2]int{br.From, br.To}]++
		st := 0
		if br.InService {
			st = 1
		}
		p("%d, %d,'%d ', %s, %s, %s, %s, %s, %s, 0, 0, 0, 0, %d, 1, 0, 1, 1\n", br.From, br.To, ckt[[2]int{br.From, br.To}], g(br.R), g(br.X), g(br.B), g(br.RateA), g(br.RateB), g(br.RateC), st)
	}
	p("0 / END OF BRANCH DATA, BEGIN TRANSFORMER DATA\n")
	for _, br := range xf {
		ckt[[2]int{br.From, br.To}]++
		st := 0
		if br.InService {
			st = 1
		}
		p("%d, %d, 0,'%d ', 1, 1, 1, 0, 0, 2,'            ', %d, 1, 1\n", br.From, br.To, ckt[[2]int{br.From, br.To}], st)
		p("%s, %s, %s\n", g(br.R), g(br.X), g(c.BaseMVA))
		p("%s, 0, %s, %s, %s, %s, 0, 0, 1.1, 0.9, 1.1, 0.9, 33, 0, 0, 0, 0\n", g(br.Tap()), g(br.Angle), g(br.RateA), g(br.RateB), g(br.RateC))
		p("1, 0\n")
	}
	p("0 / END OF TRANSFORMER DATA, BEGIN AREA DATA\n")
	for _, s := range []string{"AREA", "TWO-TERMINAL DC", "VSC DC LINE", "IMPEDANCE CORRECTION", "MULTI-TERMINAL DC", "MULTI-SECTION LINE", "ZONE", "INTER-AREA TRANSFER", "OWNER", "FACTS DEVICE", "SWITCHED SHUNT", "GNE DEVICE", "INDUCTION MACHINE"} {
		p("0 / END OF %s DATA\n", s)
	}
	p("Q\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("grid: writing RAW: %w", err)
	}
	return nil
}

// raw3Winding expands a three-winding transformer (records 1–5 of rec, which
// start at the fields starts) into a star bus and three branches, the model of
// the PSS/E program operation manual (transformer data, three-winding
// transformers) that PowerModels' and MATPOWER's PSS/E converters also build:
// the measured winding-to-winding impedances Z12, Z23, Z31 (record 2, put on
// the system base with the impedance code CZ as for two-winding
// transformers) give the star (T) equivalent
//
//	Z1 = (Z12 + Z31 − Z23)/2,  Z2 = (Z12 + Z23 − Z31)/2,  Z3 = (Z23 + Z31 − Z12)/2
//
// (Kundur, "Power System Stability and Control", 1994, eq. 6.72), and winding
// k becomes a branch from its bus to the star bus with impedance Zk, ratio
// WINDVk (converted with CW as for two-winding transformers, in per unit of
// the winding bus's base voltage; 1 at the star side), phase shift ANGk and
// ratings RATAk..RATCk. The DC model then uses the series reactances Xk. The
// star bus is numbered after the largest bus number (one more per
// three-winding transformer, in file order) and starts at VMSTAR, ANSTAR.
// STAT: 0 all windings out of service, 1 all in, 2 only winding 2 out, 3 only
// winding 3 out, 4 only winding 1 out. Magnetizing admittance (MAG1, MAG2) is
// ignored, as for two-winding transformers.
func raw3Winding(c *Case, rec rawRecord, row int, starts []int, baseKV map[int]float64,
	bus func(string, rawRecord, int, int) (*Bus, error),
	num func(string, rawRecord, int, int, string, float64) (float64, error),
	integer func(string, rawRecord, int, int, string, int) (int, error), starID *int) error {
	const s = "transformer"
	var ids [3]int
	var area, zone int
	var kv1 float64
	for w := 0; w < 3; w++ {
		b, err := bus(s, rec, row, w)
		if err != nil {
			return err
		}
		ids[w] = b.ID
		if w == 0 {
			area, zone, kv1 = b.Area, b.Zone, b.BaseKV
		}
	}
	cw, err := integer(s, rec, row, 4, "CW", 1)
	if err != nil {
		return err
	}
	cz, err := integer(s, rec, row, 5, "CZ", 1)
	if err != nil {
		return err
	}
	st, err := integer(s, rec, row, 11, "STAT", 1)
	if err != nil {
		return err
	}
	in := [3]bool{true, true, true}
	switch st {
	case 0:
		in = [3]bool{}
	case 1:
	case 2:
		in[1] = false
	case 3:
		in[2] = false
	case 4:
		in[0] = false
	default:
		return formatErr(s, row, rec.line, "STAT is %d, must be 0–4 for a three-winding transformer", st)
	}
	l2 := starts[1]
	var r, x [3]float64 // Z12, Z23, Z31 on the system base
	for k, pair := range []string{"1-2", "2-3", "3-1"} {
		if r[k], err = num(s, rec, row, l2+3*k, "R"+pair, 0); err != nil {
			return err
		}
		if x[k], err = num(s, rec, row, l2+3*k+1, "X"+pair, 0); err != nil {
			return err
		}
		sb, err := num(s, rec, row, l2+3*k+2, "SBASE"+pair, c.BaseMVA)
		if err != nil {
			return err
		}
		switch cz {
		case 1:
		case 2:
			if !(sb > 0) {
				return formatErr(s, row, rec.line, "SBASE%s is %v, must be > 0 with CZ = 2", pair, sb)
			}
			r[k] *= c.BaseMVA / sb
			x[k] *= c.BaseMVA / sb
		default:
			return formatErr(s, row, rec.line, "CZ is %d; impedance codes 1 and 2 are supported", cz)
		}
	}
	vm, err := num(s, rec, row, l2+9, "VMSTAR", 1)
	if err != nil {
		return err
	}
	va, err := num(s, rec, row, l2+10, "ANSTAR", 0)
	if err != nil {
		return err
	}
	star := func(v [3]float64) [3]float64 {
		return [3]float64{(v[0] + v[2] - v[1]) / 2, (v[0] + v[1] - v[2]) / 2, (v[1] + v[2] - v[0]) / 2}
	}
	rs, xs := star(r), star(x)
	*starID++
	typ := PQ
	if st == 0 {
		typ = Isolated
	}
	c.Buses = append(c.Buses, Bus{ID: *starID, Type: typ, Area: area, Zone: zone, Vm: vm, Va: va, BaseKV: kv1, Vmax: 1.1, Vmin: 0.9, Line: rec.line})
	for w := 0; w < 3; w++ {
		lw, k := starts[2+w], strconv.Itoa(w+1)
		br := Branch{From: ids[w], To: *starID, R: rs[w], X: xs[w], InService: in[w], Line: rec.line}
		wv, err := num(s, rec, row, lw, "WINDV"+k, 1)
		if err != nil {
			return err
		}
		nom, err := num(s, rec, row, lw+1, "NOMV"+k, 0)
		if err != nil {
			return err
		}
		for _, f := range []struct {
			k    int
			name string
			dst  *float64
		}{{2, "ANG", &br.Angle}, {3, "RATA", &br.RateA}, {4, "RATB", &br.RateB}, {5, "RATC", &br.RateC}} {
			if *f.dst, err = num(s, rec, row, lw+f.k, f.name+k, 0); err != nil {
				return err
			}
		}
		kv := baseKV[ids[w]]
		switch cw {
		case 1:
		case 2, 3:
			if !(kv > 0) {
				return formatErr(s, row, rec.line, "CW = %d needs a positive base voltage at bus %d (BASKV %v)", cw, ids[w], kv)
			}
			if cw == 3 {
				if nom == 0 {
					nom = kv
				}
				wv *= nom
			}
			wv /= kv
		default:
			return formatErr(s, row, rec.line, "CW is %d, must be 1, 2 or 3", cw)
		}
		if !(wv != 0) {
			return formatErr(s, row, rec.line, "WINDV%s is %v, must be non-zero", k, wv)
		}
		br.Ratio = wv
		c.Branches = append(c.Branches, br)
	}
	return nil
}
