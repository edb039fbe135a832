package main

import (
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// The held-out split. Every rule of the solver that was chosen by measuring
// benchmark instances must also be reported on instances it was not chosen
// on. The split is a stated rule, not a choice per instance:
//
//	within each library, order the instances by h(name), the 64-bit FNV-1a
//	hash of the instance name (ties by name); the first ⌊n/2⌋ are
//	"held-out", the other ⌈n/2⌉ are "tune".
//
// The rule depends only on the names, so it is stable when instances are
// added to another library, and both halves of every library have the same
// size up to one. Tuning (BENCHMARKS.md) may look at the "tune" half only;
// the "held-out" half is reported, never tuned on.
const (
	halfTune    = "tune"
	halfHeldOut = "held-out"
)

// nameHash is the 64-bit FNV-1a hash of an instance name.
func nameHash(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64()
}

// splitHalves returns the half (halfTune or halfHeldOut) of every instance
// of ref, keyed by "set/name", by the rule above.
func splitHalves(ref *reference) map[string]string {
	bySet := map[string][]string{}
	for _, in := range ref.Instances {
		bySet[in.Set] = append(bySet[in.Set], in.Name)
	}
	half := make(map[string]string, len(ref.Instances))
	for set, names := range bySet {
		sort.Slice(names, func(i, j int) bool {
			hi, hj := nameHash(names[i]), nameHash(names[j])
			if hi != hj {
				return hi < hj
			}
			return names[i] < names[j]
		})
		for k, name := range names {
			h := halfTune
			if k < len(names)/2 {
				h = halfHeldOut
			}
			half[set+"/"+name] = h
		}
	}
	return half
}

// Instances outside the shared reference list (-unseen): SDPLIB 1.2's
// members that are not in the shared data, which no rule was ever chosen
// on. They form their own set and half.
const (
	setUnseen  = "sdplib-unseen"
	halfUnseen = "unseen"
)

// unseenInstances lists every dir/*.dat-s whose name is not in ref, with
// the optimal value of dir/../README.md's table (SDPLIB 1.2's README: rows
// "| name | m | n | value | notes |"). "primal infeasible" and "dual
// infeasible" in SDPA's convention (primal: minimize cᵀx, F(x) ⪰ 0, the
// form ReadSDPA returns) are the statuses infeasible and unbounded; an
// instance without a value is reported ungraded. The reference's
// significant digits are those printed in the table.
func unseenInstances(dir string, ref *reference) ([]instance, error) {
	known := map[string]bool{}
	for _, in := range ref.Instances {
		known[in.Name] = true
	}
	values := map[string]string{}
	if b, err := os.ReadFile(filepath.Join(dir, "..", "README.md")); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			f := strings.Split(line, "|")
			if len(f) >= 6 {
				values[strings.TrimSpace(f[1])] = strings.TrimSpace(f[4])
			}
		}
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.dat-s"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("-unseen %s: no .dat-s files", dir)
	}
	var out []instance
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".dat-s")
		if known[name] {
			continue
		}
		in := instance{Name: name, Set: setUnseen, File: filepath.Base(f), ExpectedStatus: "optimal"}
		switch values[name] {
		case "primal infeasible":
			in.ExpectedStatus = "infeasible"
		case "dual infeasible":
			in.ExpectedStatus = "unbounded"
		}
		if txt, ok := values[name]; ok {
			if v, err := strconv.ParseFloat(txt, 64); err == nil {
				mant := strings.TrimLeft(strings.SplitN(strings.ToLower(txt), "e", 2)[0], "+-")
				digits := len(strings.TrimLeft(strings.ReplaceAll(mant, ".", ""), "0"))
				in.Reference = &struct {
					Value     float64 `json:"value"`
					Text      string  `json:"text"`
					SigDigits int     `json:"sig_digits"`
					Source    string  `json:"source"`
				}{Value: v, Text: txt, SigDigits: digits, Source: "SDPLIB 1.2 README"}
			}
		}
		out = append(out, in)
	}
	return out, nil
}
