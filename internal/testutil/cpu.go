package testutil

import (
	"syscall"
	"testing"
	"time"
)

// ChildCPU reports the CPU time a benchmark's child processes used per
// op (user+system, from getrusage) as cpu-ms/op: a figure that holds on a
// loaded machine, where wall time mostly measures the scheduler.
type ChildCPU struct {
	b     *testing.B
	start time.Duration
}

// StartChildCPU resets b's timer and starts counting from now.
func StartChildCPU(b *testing.B) ChildCPU {
	b.ResetTimer()
	return ChildCPU{b, ChildrenCPU()}
}

// Report adds cpu-ms/op to the benchmark's figures.
func (c ChildCPU) Report() {
	c.b.ReportMetric(float64(ChildrenCPU()-c.start)/float64(time.Millisecond)/float64(c.b.N), "cpu-ms/op")
}

// ChildrenCPU is the CPU time this process's waited-for children used.
func ChildrenCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
