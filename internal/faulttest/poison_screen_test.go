//go:build faults

package faulttest

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"mdqs/internal/auth"
	"mdqs/internal/client"
	"mdqs/internal/loadgen"
)

// Issue 20 point 1, through the binary: the poison screen kept both
// workers busy past cancel, its timeout and SIGTERM, and ran again after a
// restart. Now it is refused at submission; a costly screen that is
// allowed stops at its timeout and at cancel for real (the next screen
// runs at once), and SIGTERM does not wait for it.
func TestPoisonScreenBounded(t *testing.T) {
	dir := t.TempDir()
	config := strings.Replace(demoConfig, "stocks = 300", "stocks = 3000", 1) + "[screener]\nworkers = 1\ntimeout = \"1s\"\n"
	args := serveArgs(t, dir, config)
	p := startBinary(t, args, loadgen.StartOptions{Dir: dir})
	waitIdle(t, p)
	ctx := context.Background()
	cl := client.New(p.Addr, auth.DemoClientID, auth.DemoSecret)
	submit := func(expr string) (int, map[string]any) {
		body, _ := json.Marshal(map[string]any{"expression": expr})
		res, err := cl.Do(ctx, http.MethodPost, "/v1/api/screener/queue/submit", body)
		if err != nil {
			t.Fatal(err)
		}
		var env map[string]any
		json.Unmarshal(res.Body, &env)
		return res.Status, env
	}
	status := func(id string) map[string]any {
		res, err := cl.Do(ctx, http.MethodGet, "/v1/api/screener/queue/status?id="+id, nil)
		if err != nil {
			t.Fatal(err)
		}
		var env struct{ Data map[string]any }
		json.Unmarshal(res.Body, &env)
		return env.Data
	}
	waitState := func(id string, within time.Duration) (map[string]any, time.Duration) {
		t0 := time.Now()
		for time.Since(t0) < within {
			if d := status(id); d["state"] != "queued" && d["state"] != "running" {
				return d, time.Since(t0)
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Fatalf("screen %s still running after %v", id, within)
		return nil, 0
	}

	code, env := submit(`let r = 1..1000; all(r, all(r, all(r, # > -1)))`)
	if code != 400 || !strings.Contains(env["detail"].(string), "too costly") {
		t.Fatalf("poison: %d %v, want 400 too costly", code, env)
	}

	// Allowed (under 20,000 steps a stock), and slow over 3,000 stocks:
	// each step formats a number, past the 1 s timeout.
	const dear = `all(1..2200, len(string(# * 1.5)) > 0) && pct > -100`
	code, env = submit(dear)
	if code != 200 {
		t.Fatalf("costly screen: %d %v", code, env)
	}
	id := env["data"].(map[string]any)["id"].(string)
	d, took := waitState(id, 10*time.Second)
	t.Logf("a costly screen against a 1 s timeout: %v after %v (%v)", d["state"], took, d["error"])
	if d["state"] != "failed" || !strings.Contains(d["error"].(string), "timed out") {
		t.Fatalf("costly screen: %v, want failed: timed out", d)
	}
	if took > 3*time.Second {
		t.Errorf("timed out %v after submission, the limit is 1 s", took)
	}

	// Cancel frees the one worker: the next screen runs at once.
	_, env = submit(dear)
	id = env["data"].(map[string]any)["id"].(string)
	time.Sleep(50 * time.Millisecond)
	body, _ := json.Marshal(map[string]string{"id": id})
	if res, err := cl.Do(ctx, http.MethodPost, "/v1/api/screener/queue/cancel", body); err != nil || res.Status != 200 {
		t.Fatalf("cancel: %v %v", err, res)
	}
	_, env = submit(`pct > -100`)
	cheap := env["data"].(map[string]any)["id"].(string)
	d, took = waitState(cheap, 5*time.Second)
	if d["state"] != "succeeded" || took > time.Second {
		t.Errorf("a cheap screen after a cancel: %v in %v, want succeeded within a second (the worker was freed)", d["state"], took)
	}

	// SIGTERM in the middle of a costly screen: the process is gone within
	// a second or two, and the screen is not left to run past its timeout.
	_, env = submit(dear)
	id = env["data"].(map[string]any)["id"].(string)
	time.Sleep(50 * time.Millisecond)
	t0 := time.Now()
	if err := p.Stop(30 * time.Second); err != nil {
		t.Logf("stop: %v", err)
	}
	if took := time.Since(t0); took > 3*time.Second {
		t.Errorf("SIGTERM during a screen took %v to exit", took)
	}
	q := startBinary(t, args, loadgen.StartOptions{Dir: dir})
	cl = client.New(q.Addr, auth.DemoClientID, auth.DemoSecret)
	d, _ = waitState(id, 10*time.Second)
	t.Logf("the screen stopped by SIGTERM, after the restart: %v (%v)", d["state"], d["error"])
}
