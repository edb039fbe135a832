package main

import (
	"hash/fnv"
	"sort"
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
