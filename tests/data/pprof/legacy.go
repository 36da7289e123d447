// SPDX-License-Identifier: MIT
// Writes the Go runtime's legacy text profiles (debug=1): a heap profile and a goroutine
// profile, as net/http/pprof serves them with ?debug=1. usage: legacy HEAP.txt GOROUTINE.txt
package main

import (
	"os"
	"runtime"
	"runtime/pprof"
)

var keep [][]byte

func alloc(n int) {
	for i := 0; i < n; i++ {
		keep = append(keep, make([]byte, 1<<16))
	}
}

func main() {
	runtime.MemProfileRate = 4096
	alloc(200)
	runtime.GC()
	h, _ := os.Create(os.Args[1])
	pprof.Lookup("heap").WriteTo(h, 1)
	h.Close()
	g, _ := os.Create(os.Args[2])
	pprof.Lookup("goroutine").WriteTo(g, 1)
	g.Close()
}
