// Package cputime measures the CPU time of the benchmark programs: on a shared
// machine a process's CPU time (user plus system, all threads, getrusage
// RUSAGE_SELF) is the load-free measure, its wall time only an upper bound.
package cputime

import (
	"syscall"
	"time"
)

// Process returns the process's user plus system CPU time so far (0 when
// getrusage fails).
func Process() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
