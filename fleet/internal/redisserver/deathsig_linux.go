package redisserver

import (
	"os/exec"
	"syscall"
)

// setParentDeathSignal kills redis-server when the process that started it
// dies, so that a test or load program killed mid-run leaves none behind.
func setParentDeathSignal(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
