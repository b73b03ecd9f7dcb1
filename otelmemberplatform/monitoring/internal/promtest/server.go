package promtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Server is a Prometheus server a test started, on loopback.
type Server struct {
	URL    string // http://127.0.0.1:port
	out    *lockedBuffer
	client *http.Client // its own, whose idle connections the cleanup closes
}

// Config is what a test's Prometheus scrapes and evaluates.
type Config struct {
	Job      string        // the scrape job's name
	Target   string        // host:port of the /metrics to scrape
	Rules    []byte        // a rule file's contents, or nil
	Interval time.Duration // the scrape and evaluation interval
}

// StartPrometheus starts the prometheus binary with a configuration of its
// own, a temporary storage directory and a free loopback port, and waits
// until it is ready. The test's cleanup stops it (SIGTERM, then SIGKILL)
// and waits for it to exit; its output is logged when the test failed.
func StartPrometheus(t testing.TB, bin string, cfg Config) *Server {
	t.Helper()
	dir := t.TempDir()
	ruleFiles := ""
	if cfg.Rules != nil {
		path := filepath.Join(dir, "rules.yml")
		if err := os.WriteFile(path, cfg.Rules, 0o600); err != nil {
			t.Fatal(err)
		}
		ruleFiles = "rule_files: [" + strconv.Quote(path) + "]\n"
	}
	interval := cfg.Interval.String()
	config := fmt.Sprintf("global:\n  scrape_interval: %s\n  evaluation_interval: %s\n%sscrape_configs:\n"+
		"  - job_name: %s\n    static_configs:\n      - targets: [%s]\n",
		interval, interval, ruleFiles, strconv.Quote(cfg.Job), strconv.Quote(cfg.Target))
	configPath := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(configPath, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := freeLoopbackAddr(t)
	out := &lockedBuffer{}
	cmd := exec.Command(bin,
		"--config.file="+configPath,
		"--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr,
		"--log.level=warn",
	)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	exited := make(chan struct{}) // closed once cmd.Wait returned waitErr
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(exited)
	}()
	s := &Server{URL: "http://" + addr, out: out, client: &http.Client{Transport: &http.Transport{}, Timeout: 10 * time.Second}}
	t.Cleanup(func() {
		s.client.CloseIdleConnections()
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("prometheus output:\n%s", out.String())
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case <-exited:
			t.Fatalf("prometheus exited before it was ready: %v\n%s", waitErr, out.String())
		default:
		}
		if resp, err := s.client.Get(s.URL + "/-/ready"); err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("prometheus not ready after 30 s:\n%s", out.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// freeLoopbackAddr returns a loopback address whose port was free a moment
// ago (the kernel's choice for port 0).
func freeLoopbackAddr(t testing.TB) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	if err := lis.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

// Sample is one series of an instant query's result.
type Sample struct {
	Metric map[string]string
	Value  float64
}

// Query runs an instant query and returns its series.
func (s *Server) Query(ctx context.Context, query string) ([]Sample, error) {
	var data struct {
		ResultType string `json:"resultType"`
		Result     []struct {
			Metric map[string]string `json:"metric"`
			Value  [2]any            `json:"value"`
		} `json:"result"`
	}
	if err := s.get(ctx, "/api/v1/query?query="+url.QueryEscape(query), &data); err != nil {
		return nil, fmt.Errorf("query %s: %w", query, err)
	}
	if data.ResultType != "vector" {
		return nil, fmt.Errorf("query %s: a %s, want a vector", query, data.ResultType)
	}
	out := make([]Sample, 0, len(data.Result))
	for _, r := range data.Result {
		str, _ := r.Value[1].(string)
		v, err := strconv.ParseFloat(str, 64)
		if err != nil {
			return nil, fmt.Errorf("query %s: value %v: %w", query, r.Value[1], err)
		}
		out = append(out, Sample{Metric: r.Metric, Value: v})
	}
	return out, nil
}

// RuleHealth returns the health of every rule Prometheus loaded, by
// record or alert name ("ok", "err", "unknown"), with its last error.
func (s *Server) RuleHealth(ctx context.Context) (map[string]string, error) {
	var data struct {
		Groups []struct {
			Rules []struct {
				Name      string `json:"name"`
				Health    string `json:"health"`
				LastError string `json:"lastError"`
			} `json:"rules"`
		} `json:"groups"`
	}
	if err := s.get(ctx, "/api/v1/rules", &data); err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, g := range data.Groups {
		for _, r := range g.Rules {
			out[r.Name] = r.Health + " " + r.LastError
		}
	}
	return out, nil
}

// get reads an API answer's data into v.
func (s *Server) get(ctx context.Context, path string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+path, nil)
	if err != nil {
		return err
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	var answer struct {
		Status string          `json:"status"`
		Error  string          `json:"error"`
		Data   json.RawMessage `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil {
		return fmt.Errorf("%s: status %s: %w", path, resp.Status, err)
	}
	if answer.Status != "success" {
		return fmt.Errorf("%s: %s", path, answer.Error)
	}
	return json.Unmarshal(answer.Data, v)
}

// lockedBuffer is the process's output, written by exec's goroutines and
// read by the test's.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
