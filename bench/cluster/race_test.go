//go:build race

package main

// raceEnabled: test children are race-instrumented too, and several times
// slower, so load tests ask less of them.
const raceEnabled = true
