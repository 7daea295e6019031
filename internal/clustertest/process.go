// Package clustertest runs creativeops as a small cluster of real server
// processes on loopback — one on SQLite, or several replicas on one
// PostgreSQL database behind a round-robin proxy — and drives a realistic
// request mix at them over REST and gRPC. The cluster benchmark
// (bench/cluster) and the failure and soak tests are built on it.
//
// Servers are child processes so that they can be killed with SIGKILL,
// stopped with SIGTERM and measured from /proc like any deployed process.
package clustertest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/creativeops/creativeops/secrets"
)

// Launcher starts server processes: the creativeops binary at Binary, or,
// when Binary is empty, the running executable re-executed in child mode
// (a test binary whose TestMain calls RunChildIfRequested).
type Launcher struct {
	Binary string
	// Env is added to every child's environment.
	Env []string
}

// ServeArgs configures one replica.
type ServeArgs struct {
	DatabaseURL string
	// JobTimeout bounds one attempt of an asynchronous run; a killed
	// replica's runs are rescued after twice this.
	JobTimeout time.Duration
	// WebhookSchedule overrides --webhook-retry-schedule when set.
	WebhookSchedule string
	// Extra flags, appended as given.
	Extra []string
	// Debug serves the Go profiler of each replica on its own loopback
	// address (Replica.DebugAddr).
	Debug bool
}

// Replica is one server process serving REST and gRPC on Addr. It keeps its
// address across restarts so that a proxy in front of it needs no change.
type Replica struct {
	Name string
	Addr string
	// DebugAddr serves /debug/pprof/ when ServeArgs.Debug is set.
	DebugAddr string
	DataDir   string
	LogPath   string
	// masterKey is the master key file the replicas made under one
	// directory share, as replicas of one database must.
	masterKey string

	launcher *Launcher
	args     ServeArgs

	mu      sync.Mutex
	cmd     *exec.Cmd
	done    chan struct{}
	exitErr error
	logFile *os.File
	// usage of processes that already exited, so that CPU seconds and
	// peak memory cover the replica's whole life across restarts.
	past     Usage
	lastSeen Usage
}

// NewReplica prepares a replica with its own data directory under dir, a
// free loopback port, and the master key file dir/master.key that every
// replica made under dir shares. Call Start to run it.
func (l *Launcher) NewReplica(name, dir string, args ServeArgs) (*Replica, error) {
	addr, err := FreeAddr()
	if err != nil {
		return nil, err
	}
	dataDir := filepath.Join(dir, name)
	if err := os.MkdirAll(dataDir, 0o750); err != nil {
		return nil, err
	}
	masterKey := filepath.Join(dir, secrets.DefaultKeyFile)
	if err := secrets.CreateKeyFile(masterKey); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, err
	}
	r := &Replica{Name: name, Addr: addr, DataDir: dataDir, LogPath: filepath.Join(dataDir, "server.log"), masterKey: masterKey, launcher: l, args: args}
	if args.Debug {
		if r.DebugAddr, err = FreeAddr(); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// FreeAddr returns a loopback address with a port that was free a moment ago.
func FreeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// URL is the replica's base URL.
func (r *Replica) URL() string { return "http://" + r.Addr }

func (r *Replica) serveArgs() []string {
	a := r.args
	if a.JobTimeout == 0 {
		a.JobTimeout = time.Second
	}
	args := []string{"serve",
		"--http-addr", r.Addr,
		"--database-url", a.DatabaseURL,
		"--data-dir", r.DataDir,
		"--master-key-file", r.masterKey,
		"--log-format", "text",
		"--job-timeout", a.JobTimeout.String(),
		"--allow-insecure-webhooks",
	}
	if a.WebhookSchedule != "" {
		args = append(args, "--webhook-retry-schedule", a.WebhookSchedule)
	}
	if r.DebugAddr != "" {
		args = append(args, "--debug-addr", r.DebugAddr)
	}
	return append(args, a.Extra...)
}

// Start runs the replica's process and waits until /readyz answers 200.
func (r *Replica) Start(ctx context.Context) error {
	r.mu.Lock()
	if r.cmd != nil {
		r.mu.Unlock()
		return fmt.Errorf("%s is already running", r.Name)
	}
	logFile, err := os.OpenFile(r.LogPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o640)
	if err != nil {
		r.mu.Unlock()
		return err
	}
	fmt.Fprintf(logFile, "--- %s start %s\n", r.Name, time.Now().UTC().Format(time.RFC3339Nano))
	var cmd *exec.Cmd
	if r.launcher.Binary != "" {
		cmd = exec.Command(r.launcher.Binary, r.serveArgs()...)
		cmd.Env = os.Environ()
	} else {
		enc, _ := json.Marshal(r.serveArgs())
		cmd = exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), childEnv+"="+string(enc))
	}
	cmd.Env = append(cmd.Env, r.launcher.Env...)
	cmd.SysProcAttr = childAttr()
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		logFile.Close()
		r.mu.Unlock()
		return fmt.Errorf("start %s: %w", r.Name, err)
	}
	done := make(chan struct{})
	r.cmd, r.done, r.exitErr, r.logFile, r.lastSeen = cmd, done, nil, logFile, Usage{}
	r.mu.Unlock()
	go func() {
		err := cmd.Wait()
		r.mu.Lock()
		r.exitErr = err
		r.past.CPUSeconds += r.lastSeen.CPUSeconds
		r.past.PeakRSS = max(r.past.PeakRSS, r.lastSeen.PeakRSS)
		r.lastSeen = Usage{}
		r.cmd = nil
		logFile.Close()
		r.mu.Unlock()
		close(done)
	}()
	return r.waitReady(ctx, done, 60*time.Second)
}

func (r *Replica) waitReady(ctx context.Context, done chan struct{}, timeout time.Duration) error {
	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(timeout)
	for {
		select {
		case <-done:
			return fmt.Errorf("%s exited before becoming ready: %v\n%s", r.Name, r.exitErr, r.LogTail(4000))
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		if resp, err := client.Get(r.URL() + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not ready after %s\n%s", r.Name, timeout, r.LogTail(4000))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Running reports whether the process is alive.
func (r *Replica) Running() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cmd != nil
}

// PID is the running process's id, or 0.
func (r *Replica) PID() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cmd == nil {
		return 0
	}
	return r.cmd.Process.Pid
}

// Kill sends SIGKILL and waits for the process to be gone.
func (r *Replica) Kill() error {
	return r.stop(syscall.SIGKILL, 10*time.Second)
}

// Terminate sends SIGTERM (a graceful shutdown) and waits up to timeout,
// then kills the process. It returns an error if it had to kill it.
func (r *Replica) Terminate(timeout time.Duration) error {
	return r.stop(syscall.SIGTERM, timeout)
}

func (r *Replica) stop(sig syscall.Signal, timeout time.Duration) error {
	r.mu.Lock()
	cmd, done := r.cmd, r.done
	r.mu.Unlock()
	if cmd == nil {
		return nil
	}
	r.Sample() // the last CPU figure before the process disappears
	if err := cmd.Process.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	// A paused process only acts on SIGTERM once continued.
	_ = cmd.Process.Signal(syscall.SIGCONT)
	select {
	case <-done:
		return nil
	case <-time.After(timeout):
		_ = cmd.Process.Kill()
		<-done
		return fmt.Errorf("%s did not exit within %s of %v; killed", r.Name, timeout, sig)
	}
}

// Pause stops the process with SIGSTOP, so that an idle replica takes no
// CPU while another configuration is measured; Resume continues it.
func (r *Replica) Pause() error { return r.signal(syscall.SIGSTOP) }

// Resume sends SIGCONT to a paused replica.
func (r *Replica) Resume() error { return r.signal(syscall.SIGCONT) }

func (r *Replica) signal(sig syscall.Signal) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cmd == nil {
		return fmt.Errorf("%s is not running", r.Name)
	}
	return r.cmd.Process.Signal(sig)
}

// ExitError is the error of the last exited process (nil for exit status 0).
func (r *Replica) ExitError() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.exitErr
}

// LogTail returns up to n bytes from the end of the replica's log.
func (r *Replica) LogTail(n int) string {
	b, err := os.ReadFile(r.LogPath)
	if err != nil {
		return ""
	}
	if len(b) > n {
		b = b[len(b)-n:]
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	return string(b)
}

// Usage is what a process has consumed.
type Usage struct {
	// CPUSeconds is user + system time.
	CPUSeconds float64
	// PeakRSS is VmHWM, the resident set's high-water mark, in bytes.
	PeakRSS int64
	// RSS is the current resident set (VmRSS) in bytes.
	RSS     int64
	Threads int
}

// Sample reads the running process's usage from /proc and remembers it.
func (r *Replica) Sample() Usage {
	pid := r.PID()
	if pid == 0 {
		return Usage{}
	}
	u, err := ProcUsage(pid)
	if err != nil {
		return Usage{}
	}
	r.mu.Lock()
	if r.cmd != nil && r.cmd.Process.Pid == pid {
		r.lastSeen = u
	}
	r.mu.Unlock()
	return u
}

// Lifetime is the usage of every process this replica has run: CPU seconds
// summed, peak RSS the largest.
func (r *Replica) Lifetime() Usage {
	cur := r.Sample()
	r.mu.Lock()
	defer r.mu.Unlock()
	return Usage{CPUSeconds: r.past.CPUSeconds + cur.CPUSeconds, PeakRSS: max(r.past.PeakRSS, cur.PeakRSS), RSS: cur.RSS, Threads: cur.Threads}
}

// clockTicks is USER_HZ, which Linux fixes at 100 for /proc/PID/stat.
const clockTicks = 100

// ProcUsage reads CPU time from /proc/PID/stat and memory from
// /proc/PID/status.
func ProcUsage(pid int) (Usage, error) {
	var u Usage
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return u, err
	}
	// The command name (field 2) may hold spaces; fields resume after ')'.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return u, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return u, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	utime, _ := strconv.ParseFloat(f[11], 64) // field 14
	stime, _ := strconv.ParseFloat(f[12], 64) // field 15
	u.CPUSeconds = (utime + stime) / clockTicks
	st, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return u, err
	}
	defer st.Close()
	sc := bufio.NewScanner(st)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		fields := strings.Fields(v)
		if len(fields) == 0 {
			continue
		}
		n, _ := strconv.ParseInt(fields[0], 10, 64)
		switch k {
		case "VmHWM":
			u.PeakRSS = n * 1024
		case "VmRSS":
			u.RSS = n * 1024
		case "Threads":
			u.Threads = int(n)
		}
	}
	return u, sc.Err()
}

// LoadAvg is the machine's load average over 1, 5 and 15 minutes, as
// /proc/loadavg gives it ("?" where it cannot be read), for the reports.
func LoadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
