package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// teamBridgeWait is server.upstream_wait of the demo team: what bounds a
// bridge request's wait.
const teamBridgeWait = 3 * time.Second

// demoTeamConfig is the README's team configuration on the demo market:
// sources.default left at "demo", so every instance serves the demo market
// and its terminal.
func demoTeamConfig(name, redis, prefix string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[server]\ninstance = %q\nleader_poll = %q\nupstream_wait = %q\n", name, teamLeaderPoll.String(), teamBridgeWait.String())
	fmt.Fprintf(&b, "[cache]\nredis = %q\nredis_prefix = %q\n", redis, prefix)
	b.WriteString("[limits]\ntoken_rate = 0.0\n")
	return b.String()
}

// Issue 32 point 2: on a follower of a demo team the bridge's endpoints
// waited for the demo terminal's preparation, which only the leader does:
// they never answered. Two instances in one working folder (two on one
// PC): every bridge endpoint of the follower answers within
// server.upstream_wait and a little, with a 503 naming what it waits for
// (and Retry-After) while it cannot answer yet, then with exactly the data
// the leader serves.
func TestTeamFollowerServesTheDemoTerminal(t *testing.T) {
	redis, target, prefix, clock, spec := newTeamEnv(t, "starts two server processes on PostgreSQL and Redis (about 20 s)")
	spec.Dir = t.TempDir()

	a := startTeamInstance(t, "a", demoTeamConfig("a", redis, prefix), target, spec, nil, clock)
	if !eventually(10*time.Second, func() bool { return slices.Equal(leaders(t, []*teamInstance{a}), []string{"a"}) }) {
		t.Fatal("the first instance does not lead")
	}
	b := startTeamInstance(t, "b", demoTeamConfig("b", redis, prefix), target, spec, nil, clock)
	if got := leaders(t, []*teamInstance{a, b}); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("leaders = %v, want [a]", got)
	}

	// ask sends one request and fails the test when no answer comes within
	// the bound: 200, or 503 with Retry-After and a detail naming the wait.
	ask := func(in *teamInstance, path string) (*http.Response, []byte) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), teamBridgeWait+7*time.Second)
		defer cancel()
		began := time.Now()
		resp, err := in.demo.Do(ctx, http.MethodGet, path, nil)
		if err != nil {
			t.Fatalf("%s on %s: no answer after %v: %v", path, in.name, time.Since(began).Round(time.Millisecond), err)
		}
		h := &http.Response{StatusCode: resp.Status, Header: resp.Header}
		switch resp.Status {
		case http.StatusOK:
		case http.StatusServiceUnavailable:
			var e struct {
				Detail string `json:"detail"`
			}
			json.Unmarshal(resp.Body, &e)
			if resp.Header.Get("Retry-After") == "" || !strings.Contains(e.Detail, "demo terminal") {
				t.Fatalf("%s on %s: 503 without Retry-After or a detail naming the wait: %s %s", path, in.name, resp.Header, resp.Body)
			}
		default:
			t.Fatalf("%s on %s: HTTP %d %s", path, in.name, resp.Status, resp.Body)
		}
		return h, resp.Body
	}
	// data waits (each request bounded) for in's 200 and returns its data.
	data := func(in *teamInstance, path string) json.RawMessage {
		t.Helper()
		deadline := time.Now().Add(90 * time.Second)
		for {
			resp, body := ask(in, path)
			if resp.StatusCode == http.StatusOK {
				var env struct {
					Data json.RawMessage `json:"data"`
				}
				if err := json.Unmarshal(body, &env); err != nil || len(env.Data) == 0 {
					t.Fatalf("%s on %s: %v: %.300s", path, in.name, err, body)
				}
				return env.Data
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s on %s: still 503 after 90 s: %s", path, in.name, body)
			}
			t.Logf("%s on %s: 503 Retry-After %s: %s", path, in.name, resp.Header.Get("Retry-After"), body)
			time.Sleep(200 * time.Millisecond)
		}
	}

	paths := []string{
		"/v1/api/meta/stocks?market=SH&page_size=50",
		"/v1/api/blocks?kind=industry",
		"/v1/api/minutes?code=000001.SH&freq=5m",
		"/v1/api/kline?code=000001.SH&freq=D&start=2026-11-02&end=2026-11-20&source=tdx",
		"/v1/api/kline?code=399001.SZ&freq=D&start=2026-11-02&end=2026-11-20&source=tdx",
	}
	// The follower first: it must not wait on the leader.
	got := map[string]json.RawMessage{}
	for _, p := range paths {
		got[p] = data(b, p)
	}
	var blocks struct {
		Items []struct {
			Code string `json:"code"`
		} `json:"items"`
	}
	if err := json.Unmarshal(got[paths[1]], &blocks); err != nil || len(blocks.Items) == 0 {
		t.Fatalf("blocks on b: %v: %.300s", err, got[paths[1]])
	}
	members := "/v1/api/block/members?block=" + url.QueryEscape(blocks.Items[0].Code)
	got[members] = data(b, members)
	paths = append(paths, members)

	for _, p := range paths {
		want := data(a, p)
		if !bytes.Equal(got[p], want) {
			t.Errorf("%s: the follower answers\n%.400s\nthe leader\n%.400s", p, got[p], want)
		}
	}

	// Each instance wrote a folder of its own in the shared working folder.
	entries, err := os.ReadDir(spec.Dir)
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), "mdqs-demo-tdx") {
			dirs = append(dirs, e.Name())
		}
	}
	if !slices.Equal(dirs, []string{"mdqs-demo-tdx-a", "mdqs-demo-tdx-b"}) {
		t.Errorf("terminal folders in the working folder = %v, want one per instance", dirs)
	}
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(spec.Dir, d, "mdqs-demo-terminal.txt")); err != nil {
			t.Errorf("%s: %v", d, err)
		}
	}
}
