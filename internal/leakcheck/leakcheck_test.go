package leakcheck

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// childEnv makes the test binary a child that leaks a goroutine, for
// TestVerifyTestMainFailsALeakingBinary.
const childEnv = "LEAKCHECK_LEAKING_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		patience = 100 * time.Millisecond
		go leakyWorker(make(chan struct{}))
	}
	VerifyTestMain(m)
}

// A test binary whose tests pass but leave a goroutine behind exits 1 and
// prints the goroutine's stack.
func TestVerifyTestMainFailsALeakingBinary(t *testing.T) {
	if os.Getenv(childEnv) == "1" {
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestVerifyTestMainFailsALeakingBinary$")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("child: %v, want exit status 1\n%s", err, out)
	}
	if !strings.Contains(string(out), "leakcheck: goroutines outlived the tests") || !strings.Contains(string(out), "leakyWorker") {
		t.Fatalf("child output lacks the leak report:\n%s", out)
	}
}

// A goroutine still blocked is reported with its stack; one that ends
// within the patience is not.
func TestFindReportsBlockedGoroutinesAndWaitsForEndingOnes(t *testing.T) {
	block := make(chan struct{})
	started := make(chan struct{})
	go func() {
		close(started)
		leakyWorker(block)
	}()
	<-started
	got := find(50 * time.Millisecond)
	if !strings.Contains(got, "leakyWorker") {
		t.Fatalf("find did not report the blocked goroutine:\n%s", got)
	}

	// Released, it ends while find polls: nothing is reported.
	time.AfterFunc(20*time.Millisecond, func() { close(block) })
	if got := find(patience); got != "" {
		t.Fatalf("find reported a goroutine that ended:\n%s", got)
	}
}

// The caller's own goroutine and the ignored ones are never reported.
func TestFindIgnoresTheCallerAndTheRuntime(t *testing.T) {
	if got := find(0); got != "" {
		t.Fatalf("find reported:\n%s", got)
	}
	if !ignored("goroutine 7 [syscall]:\nos/signal.signal_recv()\n\t/usr/lib/go/src/runtime/sigqueue.go:152 +0x29") {
		t.Fatal("the signal goroutine is not ignored")
	}
	if !ignored("goroutine 1 [chan receive]:\ntesting.(*T).Run(0xc0000a2248, {0x651abd, 0x25}, 0x656c50)\n\t/usr/local/go/src/testing/testing.go:2109 +0xb3e") {
		t.Fatal("the test runner's goroutine is not ignored")
	}
	if ignored("goroutine 8 [chan receive]:\nmain.worker(0xc000010000)\n\t/src/main.go:10 +0x25") {
		t.Fatal("a user goroutine is ignored")
	}
}

//go:noinline
func leakyWorker(block chan struct{}) { <-block }
