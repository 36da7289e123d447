// SPDX-License-Identifier: MIT
// A small Go program for stackview's pprof tests: goroutines doing different work (one under
// pprof labels), a function the compiler inlines, and allocations for the heap profile.
// record.sh builds it and writes cpu.pb.gz and heap.pb.gz.
package main

import (
	"context"
	"crypto/sha256"
	"os"
	"runtime"
	"runtime/pprof"
	"sort"
	"sync"
	"time"
)

var sink []byte
var keep [][]byte

// small enough for the compiler to inline into its callers
func mix(x uint64) uint64 { return x*6364136223846793005 + 1442695040888963407 }

func hashLoop(deadline time.Time) {
	buf := make([]byte, 4096)
	for time.Now().Before(deadline) {
		for i := 0; i < 64; i++ {
			s := sha256.Sum256(buf)
			buf[i] = s[0]
		}
	}
}

func sortLoop(deadline time.Time) {
	var x uint64 = 1
	for time.Now().Before(deadline) {
		a := make([]int, 2048)
		for i := range a {
			x = mix(x)
			a[i] = int(x >> 33)
		}
		sort.Ints(a)
	}
}

func allocLoop(deadline time.Time) {
	for n := 0; time.Now().Before(deadline); n++ {
		b := make([]byte, 1024+n%4096)
		sink = b
		if n%64 == 0 {
			keep = append(keep, make([]byte, 32<<10))
		}
	}
}

func main() {
	if len(os.Args) != 3 {
		os.Exit(2)
	}
	runtime.MemProfileRate = 4096
	f, err := os.Create(os.Args[1])
	if err != nil {
		panic(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		panic(err)
	}
	deadline := time.Now().Add(1500 * time.Millisecond)
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); hashLoop(deadline) }()
	go func() {
		defer wg.Done()
		pprof.Do(context.Background(), pprof.Labels("worker", "sorter"), func(context.Context) { sortLoop(deadline) })
	}()
	go func() { defer wg.Done(); allocLoop(deadline) }()
	wg.Wait()
	pprof.StopCPUProfile()
	f.Close()
	h, err := os.Create(os.Args[2])
	if err != nil {
		panic(err)
	}
	runtime.GC()
	if err := pprof.WriteHeapProfile(h); err != nil {
		panic(err)
	}
	h.Close()
}
