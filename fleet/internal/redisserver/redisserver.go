// Package redisserver runs a real redis-server (Debian's redis-server
// package) on a free loopback port, without persistence, for the fleet
// module's tests and load program.
package redisserver

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Missing is the advice given when redis-server cannot be found or started.
const Missing = "redis-server is needed: install Debian's redis-server package (apt-get install -y redis-server)"

// Server is a redis-server child process listening on 127.0.0.1.
type Server struct {
	// Addr is host:port, for redis.Options.Addr.
	Addr string
	port int
	dir  string
	cmd  *exec.Cmd
	exit chan struct{} // closed when cmd has exited
}

// Start starts redis-server on a free loopback port and waits until it
// answers PING.
func Start() (*Server, error) {
	path, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Missing, err)
	}
	dir, err := os.MkdirTemp("", "fleet-redis-")
	if err != nil {
		return nil, err
	}
	var lastErr error
	for range 5 { // another process may take the free port before redis-server does
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		s := &Server{Addr: "127.0.0.1:" + strconv.Itoa(port), port: port, dir: dir}
		if lastErr = s.start(path); lastErr == nil {
			return s, nil
		}
	}
	_ = os.RemoveAll(dir)
	return nil, fmt.Errorf("%s: %w", Missing, lastErr)
}

func (s *Server) start(path string) error {
	s.cmd = exec.Command(path,
		"--port", strconv.Itoa(s.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", s.dir,
		"--daemonize", "no", "--loglevel", "warning", "--logfile", "")
	setParentDeathSignal(s.cmd)
	var out strings.Builder
	s.cmd.Stdout, s.cmd.Stderr = &out, &out
	if err := s.cmd.Start(); err != nil {
		return err
	}
	s.exit = make(chan struct{})
	go func() {
		_ = s.cmd.Wait()
		close(s.exit)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-s.exit:
			return fmt.Errorf("redis-server exited at start: %s", strings.TrimSpace(out.String()))
		default:
		}
		if ping(s.Addr) == nil {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.kill()
	return errors.New("redis-server did not answer PING within 10s")
}

// Stop stops the server (SIGTERM, then SIGKILL after 5 s). Its data is lost:
// it keeps none on disk.
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exit:
	case <-time.After(5 * time.Second):
		s.kill()
	}
	s.cmd = nil
}

func (s *Server) kill() {
	_ = s.cmd.Process.Kill()
	<-s.exit
}

// Restart starts the server again on the same port after Stop.
func (s *Server) Restart() error {
	path, err := exec.LookPath("redis-server")
	if err != nil {
		return fmt.Errorf("%s: %w", Missing, err)
	}
	var lastErr error
	for range 50 { // the port can take a moment to be free again
		if lastErr = s.start(path); lastErr == nil {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return lastErr
}

// Pause stops the process (SIGSTOP) without closing its connections, so
// clients see a Redis that accepts but does not answer. Resume undoes it.
func (s *Server) Pause() error { return s.cmd.Process.Signal(syscall.SIGSTOP) }

// Resume continues a paused server.
func (s *Server) Resume() error { return s.cmd.Process.Signal(syscall.SIGCONT) }

// Close stops the server and removes its directory.
func (s *Server) Close() {
	if s.cmd != nil {
		_ = s.Resume()
	}
	s.Stop()
	_ = os.RemoveAll(s.dir)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// ping sends PING over a plain connection, so that this package needs no
// Redis client.
func ping(addr string) error {
	conn, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer func() { _ = conn.Close() }()
	_ = conn.SetDeadline(time.Now().Add(time.Second))
	if _, err := conn.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		return err
	}
	if !strings.HasPrefix(line, "+PONG") {
		return fmt.Errorf("PING answered %q", strings.TrimSpace(line))
	}
	return nil
}
