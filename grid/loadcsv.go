package grid

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Load files: the public domain of a private release and the private loads
// themselves, as CSV with a header row. Bus IDs are the case's (mpc.bus
// column 1); values are MW of demand (Pd), without the bus's shunt.
//
//   - domain:    "bus,min,max"      — the public box; buses not listed carry no load ([0, 0])
//   - reference: "bus,mw"           — a published reference profile (a band is put around it)
//   - loads:     "bus,L1,L2,…"      — private demands, one column per release, labelled L1, L2, …
//
// Errors about a loads file name the line and column but never the value
// (the file is private data).

// ReadLoadDomainCSV reads a public load domain "bus,min,max" for the buses
// of n. Every listed bus must exist and be listed once with finite
// min ≤ max; buses not listed get [0, 0].
func ReadLoadDomainCSV(r io.Reader, n *Network) (LoadDomain, error) {
	rows, err := readLoadCSV(r, "domain", []string{"bus", "min", "max"})
	if err != nil {
		return LoadDomain{}, err
	}
	d := LoadDomain{Lo: make([]float64, n.NumBuses()), Hi: make([]float64, n.NumBuses())}
	seen := map[int]int{}
	for _, row := range rows {
		i, err := busRow(n, row, seen, "domain")
		if err != nil {
			return LoadDomain{}, err
		}
		lo, hi := row.vals[0], row.vals[1]
		if !(lo <= hi) {
			return LoadDomain{}, fmt.Errorf("grid: domain line %d: bus %d has min %v > max %v", row.line, row.bus, lo, hi)
		}
		d.Lo[i], d.Hi[i] = lo, hi
	}
	return d, nil
}

// ReadReferenceCSV reads a published reference profile "bus,mw" for the
// buses of n (buses not listed: 0 MW).
func ReadReferenceCSV(r io.Reader, n *Network) ([]float64, error) {
	rows, err := readLoadCSV(r, "reference", []string{"bus", "mw"})
	if err != nil {
		return nil, err
	}
	ref := make([]float64, n.NumBuses())
	seen := map[int]int{}
	for _, row := range rows {
		i, err := busRow(n, row, seen, "reference")
		if err != nil {
			return nil, err
		}
		ref[i] = row.vals[0]
	}
	return ref, nil
}

// ReferenceBand returns the domain ref_i ± band·|ref_i| around a published
// reference profile (per internal bus). band must be in [0, 10].
func ReferenceBand(ref []float64, band float64) (LoadDomain, error) {
	if !(band >= 0 && band <= 10) {
		return LoadDomain{}, fmt.Errorf("grid: band is %v, must be in [0, 10] (a fraction of each reference load)", band)
	}
	d := LoadDomain{Lo: make([]float64, len(ref)), Hi: make([]float64, len(ref))}
	for i, v := range ref {
		d.Lo[i], d.Hi[i] = v-band*math.Abs(v), v+band*math.Abs(v)
	}
	return d, nil
}

// LoadColumns are private load vectors read from a loads file: one column
// per release, MW of demand per internal bus.
type LoadColumns struct {
	Labels []string
	Loads  [][]float64 // Loads[k][i]: column k, internal bus i
}

// ReadLoadColumnsCSV reads private loads "bus,L1,L2,…" for the buses of n
// (buses not listed: 0 MW). Errors (the file's structure: header, field
// counts, bus IDs) name lines and columns, never values; a cell that is
// not a number is read as NaN, never refused.
func ReadLoadColumnsCSV(r io.Reader, n *Network) (*LoadColumns, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("grid: loads file: reading the header: %w", err)
	}
	if len(head) < 2 || strings.TrimSpace(strings.ToLower(head[0])) != "bus" {
		return nil, errors.New(`grid: loads file: the header must be "bus,LABEL1,LABEL2,…"`)
	}
	out := &LoadColumns{}
	labels := map[string]bool{}
	for k, h := range head[1:] {
		h = strings.TrimSpace(h)
		if h == "" {
			return nil, fmt.Errorf("grid: loads file: column %d has an empty label", k+2)
		}
		if labels[h] {
			return nil, fmt.Errorf("grid: loads file: label %q appears twice", h)
		}
		labels[h] = true
		out.Labels = append(out.Labels, h)
		out.Loads = append(out.Loads, make([]float64, n.NumBuses()))
	}
	seen := map[int]int{}
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("grid: loads file line %d: malformed CSV", line)
		}
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		if len(rec) != len(head) {
			return nil, fmt.Errorf("grid: loads file line %d has %d fields, the header %d", line, len(rec), len(head))
		}
		bus, err := strconv.Atoi(strings.TrimSpace(rec[0]))
		if err != nil {
			return nil, fmt.Errorf("grid: loads file line %d: the bus is not an integer", line)
		}
		i, err := busRow(n, loadRow{line: line, bus: bus}, seen, "loads")
		if err != nil {
			return nil, err
		}
		for k := range out.Labels {
			// A cell is a private value: one that is not a number is read
			// as NaN (and ±Inf or out-of-range values as such) instead of
			// refusing the file, so that whether the file is read never
			// depends on a value; a release maps them into the public
			// domain (opfrelease's clamping rule).
			v, err := strconv.ParseFloat(strings.TrimSpace(rec[k+1]), 64)
			if err != nil && !errors.Is(err, strconv.ErrRange) {
				v = math.NaN()
			}
			out.Loads[k][i] = v
		}
	}
	return out, nil
}

type loadRow struct {
	line int
	bus  int
	vals []float64
}

// readLoadCSV reads a public CSV with the given header (case-insensitive).
func readLoadCSV(r io.Reader, what string, header []string) ([]loadRow, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("grid: %s file: reading the header: %w", what, err)
	}
	if len(head) != len(header) {
		return nil, fmt.Errorf("grid: %s file: header %q, want %q", what, strings.Join(head, ","), strings.Join(header, ","))
	}
	for k, h := range head {
		if strings.ToLower(strings.TrimSpace(h)) != header[k] {
			return nil, fmt.Errorf("grid: %s file: header %q, want %q", what, strings.Join(head, ","), strings.Join(header, ","))
		}
	}
	var rows []loadRow
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("grid: %s file line %d: %w", what, line, err)
		}
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		if len(rec) != len(header) {
			return nil, fmt.Errorf("grid: %s file line %d has %d fields, want %d", what, line, len(rec), len(header))
		}
		bus, err := strconv.Atoi(strings.TrimSpace(rec[0]))
		if err != nil {
			return nil, fmt.Errorf("grid: %s file line %d: bus %q is not an integer", what, line, rec[0])
		}
		row := loadRow{line: line, bus: bus}
		for k, s := range rec[1:] {
			v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("grid: %s file line %d: %s %q is not a finite number", what, line, header[k+1], s)
			}
			row.vals = append(row.vals, v)
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// busRow maps a row's bus ID to the internal index, rejecting unknown and
// repeated buses.
func busRow(n *Network, row loadRow, seen map[int]int, what string) (int, error) {
	i, ok := n.BusIndex[row.bus]
	if !ok {
		return 0, fmt.Errorf("grid: %s file line %d: bus %d is not an in-service bus of the case", what, row.line, row.bus)
	}
	if prev, dup := seen[row.bus]; dup {
		return 0, fmt.Errorf("grid: %s file line %d: bus %d already given on line %d", what, row.line, row.bus, prev)
	}
	seen[row.bus] = row.line
	return i, nil
}
