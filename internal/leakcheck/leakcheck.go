// Package leakcheck fails a test binary whose goroutines outlive its tests:
// goleak's job in the standard library alone, so that the root module
// requires no test-only module (its consumers' module graphs list them).
package leakcheck

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// VerifyTestMain runs m and then, if the tests passed, checks that no
// goroutine but the runtime's and the testing package's is left, giving
// those winding down (a server's connections closing) patience to end. It
// exits with the tests' code, or 1 and the leaked stacks on a leak.
func VerifyTestMain(m *testing.M) { os.Exit(Run(m)) }

// Run is VerifyTestMain without the exit, for a TestMain that cleans up
// after the check: it returns the exit code.
func Run(m *testing.M) int {
	code := m.Run()
	if code == 0 {
		if leaked := find(patience); leaked != "" {
			fmt.Fprintf(os.Stderr, "leakcheck: goroutines outlived the tests:\n\n%s\n", leaked)
			code = 1
		}
	}
	return code
}

// patience is generous, for slow shutdowns on a busy machine.
var patience = 5 * time.Second

// find returns the stacks of the goroutines other than the caller's and the
// ignored ones, after polling up to patience for them to end.
func find(patience time.Duration) string {
	deadline := time.Now().Add(patience)
	wait := time.Millisecond
	for {
		leaked := others()
		if len(leaked) == 0 {
			return ""
		}
		if time.Now().After(deadline) {
			return strings.Join(leaked, "\n\n")
		}
		time.Sleep(wait)
		wait = min(2*wait, 100*time.Millisecond)
	}
}

// others returns the stack of every goroutine except the caller's and the
// ignored ones.
func others() []string {
	buf := make([]byte, 64<<10)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	// The caller's goroutine first, then the others, blank-line separated.
	blocks := strings.Split(strings.TrimSpace(string(buf)), "\n\n")
	return slices.DeleteFunc(blocks[1:], ignored)
}

// ignoredFrames mark goroutines the runtime or standard library keep for the
// life of the process, as goleak's defaults.
var ignoredFrames = []string{
	"os/signal.signal_recv(",
	"os/signal.loop(",
	"runtime.ensureSigM(",
	"runtime.ReadTrace(",
	"runtime/trace.Start.func1(",
	"testing.(*M).startAlarm(",
	"testing.runFuzzing(",
	"testing.(*F).Fuzz(",
}

func ignored(stack string) bool {
	// The test runner's goroutines stand in the testing package; one in
	// runtime.goexit has returned and is being torn down.
	_, frames, _ := strings.Cut(stack, "\n")
	return strings.HasPrefix(frames, "testing.") || strings.HasPrefix(frames, "runtime.goexit") ||
		slices.ContainsFunc(ignoredFrames, func(f string) bool { return strings.Contains(stack, "\n"+f) })
}
