package grid

import (
	"bytes"
	"context"
	"io"
	"os"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// TestLMPLevelSchedule is a measurement run only on request
// (PRIVOPT_LEVELDIAG_WORK = the split budget in work units, e.g. 1.2e10;
// PRIVOPT_LMPDIAG_CASE and PRIVOPT_LMPDIAG_BAND as for the other
// diagnostics; PRIVOPT_LEVELDIAG_TIME the bench's -time-limit, default 60 s).
// It runs the default route with the pattern split and reports, per level
// (cutoff) and per split bus, the bound before and after, the work used,
// the parts (relaxation, tightened bound, the part MIP's status and stop
// reason), and the work of every level.
func TestLMPLevelSchedule(t *testing.T) {
	s := os.Getenv("PRIVOPT_LEVELDIAG_WORK")
	if s == "" {
		t.Skip("a measurement: set PRIVOPT_LEVELDIAG_WORK to the split's work units")
	}
	w, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	limit := 60 * time.Second
	if d, err := time.ParseDuration(os.Getenv("PRIVOPT_LEVELDIAG_TIME")); err == nil {
		limit = d
	}
	n, dom := diagCase(t)
	var log bytes.Buffer
	opt := LMPBoundOptions{TimeLimit: limit, PatternSplitWork: w, Progress: io.MultiWriter(&log, os.Stderr)}
	t0 := time.Now()
	ev, reason, err := n.lmpBound(context.Background(), dom, DefaultMarketRules(), opt)
	if err != nil || ev == nil {
		t.Fatalf("lmpBound: %v %s", err, reason)
	}
	t.Logf("certified max π %.6g, %.1f s wall, split budget %.3g", ev.MaxPrice, time.Since(t0).Seconds(), w)
	// The part lines of the progress output, by bus.
	partRe := regexp.MustCompile(`bus (\d+), branch (\S+) part ([+-]\d): (.*)`)
	parts := map[int][]string{}
	for _, line := range bytes.Split(log.Bytes(), []byte("\n")) {
		if m := partRe.FindSubmatch(line); m != nil {
			id, _ := strconv.Atoi(string(m[1]))
			parts[id] = append(parts[id], string(m[3])+": "+string(m[4]))
		}
	}
	level, levelWork, cut := 0, 0.0, -1.0
	for _, sp := range ev.PatternSplits {
		if sp.Cutoff != cut {
			if level > 0 {
				t.Logf("level %d: %.3g work units", level, levelWork)
			}
			level, levelWork, cut = level+1, 0, sp.Cutoff
			t.Logf("level %d, cutoff %.6g", level, cut)
		}
		levelWork += sp.Work
		t.Logf("  bus %d by %d–%d: %.6g → %.6g, %.3g work", sp.Bus, sp.From, sp.To, sp.Before, sp.After, sp.Work)
	}
	if level > 0 {
		t.Logf("level %d: %.3g work units", level, levelWork)
	}
	for id, ls := range parts {
		for _, l := range ls {
			t.Logf("bus %d part %s", id, l)
		}
	}
	t.Logf("work left: budget %.3g", w)
}
