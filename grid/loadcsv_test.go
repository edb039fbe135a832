package grid

import (
	"math"
	"strings"
	"testing"
)

// A loads file's cells are private: one that is not a number is read as NaN
// (out-of-range ones as ±Inf) rather than refused, and structural errors
// name lines, columns and bus IDs (public structure), never a load cell.
func TestReadLoadColumnsCSVNeverRefusesAValue(t *testing.T) {
	n, err := NewNetwork(DemoCase(), DCOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cols, err := ReadLoadColumnsCSV(strings.NewReader("bus,h0,h1\n3,abc,1e400\n4,-7.5,NaN\n"), n)
	if err != nil {
		t.Fatal(err)
	}
	i3, i4 := n.BusIndex[3], n.BusIndex[4]
	if !math.IsNaN(cols.Loads[0][i3]) || !math.IsInf(cols.Loads[1][i3], 1) || cols.Loads[0][i4] != -7.5 || !math.IsNaN(cols.Loads[1][i4]) {
		t.Errorf("read %v / %v", cols.Loads[0], cols.Loads[1])
	}
	for _, bad := range []string{"bus,h0\n3,1,2\n", "bus,h0\nx31337,1\n", "bus,h0\n99999,1\n"} {
		_, err := ReadLoadColumnsCSV(strings.NewReader(bad), n)
		if err == nil {
			t.Errorf("%q accepted", bad)
		} else if strings.Contains(err.Error(), "31337") {
			t.Errorf("%q: the error shows the cell: %v", bad, err)
		}
	}
}
