// Command memload measures a running server's resident memory under the
// request mix that drives it highest: each client creates creators and
// runs tracked release plans (synchronous runs whose plan is kept), reads
// them back, lists plans in full, and runs asynchronous workflows and polls
// them. It samples the server's VmRSS and VmHWM from /proc every 100 ms
// and prints, per client count, requests done, errors and the peak.
//
//	go run ./bench/memload -url http://127.0.0.1:8080 -key $KEY -pid $(pgrep -n creativeops) -clients 16,32,64
//
// Every phase is bounded: -requests per client and -duration, whichever
// comes first. Loopback servers only: it refuses any other host.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	base := flag.String("url", "http://127.0.0.1:8080", "the server (loopback only)")
	key := flag.String("key", os.Getenv("CREATIVEOPS_KEY"), "an API key with every scope")
	pid := flag.Int("pid", 0, "the server's process id, for its memory")
	clients := flag.String("clients", "16,32,64", "client counts, one phase each")
	requests := flag.Int("requests", 400, "at most this many iterations of the mix per client and phase")
	duration := flag.Duration("duration", 60*time.Second, "at most this long per phase")
	flag.Parse()
	u, err := url.Parse(*base)
	if err != nil || (u.Hostname() != "127.0.0.1" && u.Hostname() != "localhost" && u.Hostname() != "::1") {
		fmt.Fprintln(os.Stderr, "memload: -url must be a loopback address")
		os.Exit(2)
	}
	if *key == "" || *pid == 0 {
		fmt.Fprintln(os.Stderr, "memload: -key and -pid are required")
		os.Exit(2)
	}
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}, Timeout: 60 * time.Second}
	fmt.Printf("%-8s %9s %7s %8s %12s %12s\n", "clients", "mixes", "errors", "seconds", "peak RSS MiB", "VmHWM MiB")
	for _, f := range strings.Split(*clients, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > 256 {
			fmt.Fprintf(os.Stderr, "memload: -clients: %q is not a count from 1 to 256\n", f)
			os.Exit(2)
		}
		phase(hc, *base, *key, *pid, n, *requests, *duration)
	}
}

func phase(hc *http.Client, base, key string, pid, clients, requests int, d time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var done, errs atomic.Int64
	var peak atomic.Int64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			if rss, _ := mem(pid); rss > peak.Load() {
				peak.Store(rss)
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	start := time.Now()
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < requests && ctx.Err() == nil; i++ {
				if err := mix(ctx, hc, base, key, c, i); err != nil {
					if ctx.Err() != nil {
						return
					}
					if errs.Add(1) <= 3 {
						fmt.Fprintln(os.Stderr, "memload:", err)
					}
					continue
				}
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	close(stop)
	<-sampled
	_, hwm := mem(pid)
	fmt.Printf("%-8d %9d %7d %8.1f %12.1f %12.1f\n", clients, done.Load(), errs.Load(), time.Since(start).Seconds(),
		float64(peak.Load())/(1<<20), float64(hwm)/(1<<20))
}

var seq atomic.Int64

// mix is one client's iteration: a creator, its tracked release plan read
// back, and every fourth time an asynchronous run polled to its end and a
// full page of plans.
func mix(ctx context.Context, hc *http.Client, base, key string, c, i int) error {
	n := seq.Add(1)
	cr, err := call(ctx, hc, "POST", base+"/v1/creators", key, map[string]any{
		"name": fmt.Sprintf("Artist %d", n), "email": fmt.Sprintf("a%d-%d@example.com", time.Now().UnixNano(), n), "vertical": "music"})
	if err != nil {
		return err
	}
	run := map[string]any{"vertical": "music", "workflow": "release-strategy", "track": true, "creator_id": cr["id"],
		"context": map[string]any{"artist": fmt.Sprintf("Artist %d", n), "genre": "indie pop",
			"release_date": fmt.Sprintf("2027-%02d-%02d", 3+n%6, 1+n%27), "formats": []any{"digital", "vinyl"}, "budget_usd": 5000}}
	job, err := call(ctx, hc, "POST", base+"/v1/engine/run", key, run)
	if err != nil {
		return err
	}
	if _, err := call(ctx, hc, "GET", base+"/v1/plans/"+fmt.Sprint(job["plan_id"]), key, nil); err != nil {
		return err
	}
	if _, err := call(ctx, hc, "GET", base+"/v1/creators/"+fmt.Sprint(cr["id"]), key, nil); err != nil {
		return err
	}
	if i%4 != 0 {
		return nil
	}
	if _, err := call(ctx, hc, "GET", base+"/v1/plans?view=full&page_size=50", key, nil); err != nil {
		return err
	}
	delete(run, "track")
	delete(run, "creator_id")
	run["async"] = true
	aj, err := call(ctx, hc, "POST", base+"/v1/engine/run", key, run)
	if err != nil {
		return err
	}
	for range 100 {
		st, err := call(ctx, hc, "GET", base+"/v1/engine/status/"+fmt.Sprint(aj["id"]), key, nil)
		if err != nil {
			return err
		}
		if s := st["status"]; s != "queued" && s != "processing" {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return fmt.Errorf("async run %v did not finish", aj["id"])
}

func call(ctx context.Context, hc *http.Client, method, u, key string, body any) (map[string]any, error) {
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, r)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 300 {
		return nil, fmt.Errorf("%s %s: %d %.200s", method, u, resp.StatusCode, data)
	}
	var out map[string]any
	_ = json.Unmarshal(data, &out)
	return out, nil
}

// mem is the process's resident set and its peak (VmRSS, VmHWM), in bytes.
func mem(pid int) (rss, hwm int64) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		v, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "VmRSS:":
			rss = v << 10
		case "VmHWM:":
			hwm = v << 10
		}
	}
	return rss, hwm
}
