// Package leakcheck fails a test binary whose goroutines outlive its tests.
// It does what the tests used go.uber.org/goleak for, in a few dozen lines
// of the standard library, so that the root module needs no test-only
// dependency (a consumer's module graph lists every module the root
// module's go.mod requires, tests included).
package leakcheck

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// VerifyTestMain runs m and then, if the tests passed, checks that no
// goroutine other than the runtime's and the testing package's own is left.
// Goroutines that are winding down (a server's connections closing) get up
// to Patience to end. It exits the process with the tests' code, or 1 on a
// leak, printing the leaked goroutines' stacks.
func VerifyTestMain(m *testing.M) {
	code := m.Run()
	if code == 0 {
		if leaked := Find(patience); leaked != "" {
			fmt.Fprintf(os.Stderr, "leakcheck: goroutines outlived the tests:\n\n%s\n", leaked)
			code = 1
		}
	}
	os.Exit(code)
}

// Patience is how long Find waits for goroutines to end before it reports
// them: generous, so that a busy machine (the race detector, other test
// binaries) does not turn slow shutdowns into failures.
const Patience = 5 * time.Second

// patience is Patience, shortened by this package's own test of a leaking
// test binary.
var patience = Patience

// Find returns the stacks of the goroutines other than the caller's and the
// ignored ones (see ignored), after polling for up to patience for them to
// end; "" when there are none.
func Find(patience time.Duration) string {
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
	// runtime.Stack lists the caller's goroutine first, then the others,
	// each as a block "goroutine N [state]:\n<frames>" separated by a
	// blank line.
	blocks := strings.Split(strings.TrimSpace(string(buf)), "\n\n")
	var leaked []string
	for _, b := range blocks[1:] {
		if !ignored(b) {
			leaked = append(leaked, b)
		}
	}
	return leaked
}

// ignoredFrames are functions whose goroutines belong to the runtime or
// the standard library for the life of the process: signal handling
// (started by os/signal.Notify) and the execution tracer. Like goleak's
// defaults, a goroutine is ignored when one of these is in its stack.
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
	// A goroutine of the test runner itself (main waiting in
	// testing.(*T).Run, a test's goroutine between tests) stands in the
	// testing package; one the code under test started stands elsewhere.
	_, frames, _ := strings.Cut(stack, "\n")
	if strings.HasPrefix(frames, "testing.") {
		return true
	}
	for _, f := range ignoredFrames {
		if strings.Contains(stack, "\n"+f) {
			return true
		}
	}
	return false
}
