//go:build !linux

package redisserver

import "os/exec"

// setParentDeathSignal does nothing where the OS has no parent death signal.
func setParentDeathSignal(*exec.Cmd) {}
