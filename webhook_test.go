package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mdqs/internal/client"
	"mdqs/internal/loadgen"
	"mdqs/internal/webhook/webhooktest"
)

// Issue 36, end to end: alerts' webhooks from a real server process (the
// team test's helper: this test binary serving with a clock inside the
// session, the built mdqs having no way to pin one), on a SQLite store.
// Two alerts fire at the first evaluation: one's robot takes its message
// at once, and gets it once; the other's answers 503, so its message waits
// in the outbox for its next try when the server is killed with SIGKILL.
// Restarted on the same store, the server sends it once more and no more,
// and deliveries?id= shows the failed tries and the success.
func TestAlertWebhooksSurviveKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server process twice, killing the first with SIGKILL (about 20 s)")
	}
	const secret = "the-receivers-shared-secret"
	dir := t.TempDir()
	target := filepath.Join(dir, "mdqs.db")
	anchor := time.Now().Round(0)
	clock := teamClock{start: teamStart, anchor: anchor}
	spec := teamHelperSpec{Start: teamStart, Anchor: anchor.UnixNano(), Dir: dir}
	up := newTeamUpstream(t, "a", teamStart, &teamHold{})
	config := teamConfig("a", up.srv.URL, "", "mdqs:") + "[alerts]\nwebhook_allow_private = true\nwebhook_timeout = \"2s\"\n"

	healthy := webhooktest.NewReceiver(t, "dingtalk", "SEC-healthy", clock.Now)
	down := webhooktest.NewReceiver(t, "generic", secret, clock.Now)
	down.SetFail(http.StatusServiceUnavailable)

	first := startTeamInstance(t, "a", config, target, spec, up, clock)
	create := func(name, hook string) string {
		t.Helper()
		resp := do(t, first.demo, http.MethodPost, "/v1/api/alerts", json.RawMessage(`{"name":"`+name+`","expression":"pct > 1","cooldown":"2h","webhook":`+hook+`}`))
		var env struct {
			Data struct {
				ID string `json:"id"`
			} `json:"data"`
		}
		if resp.Status != http.StatusOK || json.Unmarshal(resp.Body, &env) != nil || env.Data.ID == "" {
			t.Fatalf("create alert %s: HTTP %d %s", name, resp.Status, resp.Body)
		}
		return env.Data.ID
	}
	create("钉钉群", `{"url":"`+healthy.URL()+`","format":"dingtalk","secret":"SEC-healthy"}`)
	downID := create("涨超1%", `{"url":"`+down.URL()+`","format":"generic","secret":"`+secret+`"}`)

	if !eventually(30*time.Second, func() bool { return len(down.Received()) >= 1 && len(healthy.Received()) >= 1 }) {
		t.Fatalf("no message within 30 s: the healthy robot got %d, the one down %d", len(healthy.Received()), len(down.Received()))
	}
	// Killed once the failed try is recorded and before the next (5 s
	// later): a kill between a receiver's answer and its record is the
	// window docs/screens-and-alerts.md describes, not this test's case.
	pending := func() (state string, attempts int) {
		resp := do(t, first.demo, http.MethodGet, "/v1/api/alerts/deliveries?id="+downID, nil)
		var env struct {
			Data struct {
				Items []struct {
					State    string `json:"state"`
					Attempts int    `json:"attempts"`
				} `json:"items"`
			} `json:"data"`
		}
		if json.Unmarshal(resp.Body, &env) != nil || len(env.Data.Items) == 0 {
			return "", 0
		}
		return env.Data.Items[0].State, env.Data.Items[0].Attempts
	}
	if !eventually(10*time.Second, func() bool { s, n := pending(); return s == "pending" && n == len(down.Received()) }) {
		t.Fatal("the failed try was not recorded within 10 s")
	}
	failed := len(down.Received())
	first.kill(t)
	if n := len(down.Received()); n != failed {
		t.Fatalf("a try between the check and the kill (%d, then %d): the test's timing assumption failed", failed, n)
	}
	down.SetFail(0)
	t.Logf("killed with %d failed tries recorded by the receiver", failed)

	second := startTeamInstance(t, "a", config, target, spec, up, clock)
	if !eventually(30*time.Second, func() bool { return len(down.Received()) > failed }) {
		t.Fatalf("the restarted server did not send the pending message within 30 s (the receiver has %d requests)", len(down.Received()))
	}
	// Several evaluations and worker rounds later, nothing more arrives.
	time.Sleep(3 * time.Second)
	got := down.Received()
	if len(got) != failed+1 {
		t.Fatalf("the receiver got %d requests after the restart, want exactly 1", len(got)-failed)
	}
	if n := len(healthy.Received()); n != 1 {
		t.Errorf("the healthy robot got %d messages, want 1 (across the kill and the restart)", n)
	}
	delivery := got[0].Header.Get("X-Mdqs-Delivery")
	for i, r := range got {
		if r.Header.Get("X-Mdqs-Delivery") != delivery || delivery == "" {
			t.Errorf("request %d's X-Mdqs-Delivery = %q, want the first's %q on every try", i, r.Header.Get("X-Mdqs-Delivery"), delivery)
		}
	}
	var body struct {
		Events []struct {
			Code    string `json:"code"`
			AlertID string `json:"alert_id"`
		} `json:"events"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(got[failed].Body, &body); err != nil || len(body.Events) != 2 || body.Events[0].AlertID != downID ||
		!strings.Contains(body.Text, "600519.SH 贵州茅台") || !strings.Contains(body.Text, "600000.SH 浦发银行") {
		t.Errorf("the message: %v %s", err, got[failed].Body)
	}

	resp := do(t, second.demo, http.MethodGet, "/v1/api/alerts/deliveries?id="+downID, nil)
	var env struct {
		Data struct {
			Items []struct {
				State    string `json:"state"`
				Attempts int    `json:"attempts"`
				Events   int    `json:"events"`
				Tries    []struct {
					HTTPStatus int  `json:"http_status"`
					OK         bool `json:"ok"`
				} `json:"tries"`
			} `json:"items"`
		} `json:"data"`
	}
	if resp.Status != http.StatusOK || json.Unmarshal(resp.Body, &env) != nil || len(env.Data.Items) != 1 {
		t.Fatalf("deliveries: HTTP %d %s", resp.Status, resp.Body)
	}
	d := env.Data.Items[0]
	if d.State != "sent" || d.Events != 2 || len(d.Tries) != failed+1 || d.Attempts != failed+1 || !d.Tries[failed].OK {
		t.Fatalf("the delivery after the restart: %s", resp.Body)
	}
	for _, tr := range d.Tries[:failed] {
		if tr.OK || tr.HTTPStatus != http.StatusServiceUnavailable {
			t.Errorf("a try before the kill: %+v, want a 503", tr)
		}
	}
}

// The built mdqs, as a trader runs it (demo market, [alerts] from its
// configuration file, the wall clock): an alert's webhook_test reaches a
// Feishu robot, which checks the signature against its own clock as
// Feishu does, at any hour (this test runs whenever CI does).
func TestAlertWebhookTestThroughTheBuiltBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the built mdqs on a demo store")
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfg, []byte("[alerts]\nwebhook_allow_private = true\npublic_url = \"https://mdqs.example.com/\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := loadgen.Start(buildBinary(t), []string{"-config", cfg, "-addr", "127.0.0.1:0", "-db", filepath.Join(dir, "mdqs.db")},
		loadgen.StartOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop(30 * time.Second)
	robot := webhooktest.NewReceiver(t, "feishu", "feishu-signing-secret", time.Now)
	demo := client.New(p.Addr, "demo", "demo-secret")
	var created *client.Response
	body := json.RawMessage(`{"name":"盘后测试","expression":"pct > 9","webhook":{"url":"` + robot.URL() + `","format":"feishu","secret":"feishu-signing-secret"}}`)
	if !eventually(60*time.Second, func() bool {
		created, err = demo.Do(context.Background(), http.MethodPost, "/v1/api/alerts", body)
		return err == nil && created.Status == http.StatusOK
	}) {
		t.Fatalf("create an alert on the built mdqs: %v %+v\n%s", err, created, p.Logs())
	}
	var env struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	json.Unmarshal(created.Body, &env)
	resp := do(t, demo, http.MethodPost, "/v1/api/alerts/webhook_test", map[string]string{"id": env.Data.ID})
	var answer struct {
		Data struct {
			OK         bool   `json:"ok"`
			VendorCode *int   `json:"vendor_code"`
			Message    string `json:"message"`
		} `json:"data"`
	}
	if resp.Status != http.StatusOK || json.Unmarshal(resp.Body, &answer) != nil || !answer.Data.OK || answer.Data.VendorCode == nil ||
		*answer.Data.VendorCode != 0 || answer.Data.Message != "success" {
		t.Fatalf("webhook_test: HTTP %d %s", resp.Status, resp.Body)
	}
	got := robot.Received()
	if len(got) != 1 || !strings.Contains(string(got[0].Body), "【mdqs 测试】盘后测试") || !strings.Contains(string(got[0].Body), "查看：https://mdqs.example.com/") {
		t.Fatalf("the robot got %d requests: %s", len(got), got)
	}
	if strings.Contains(p.Logs(), "feishu-signing-secret") || strings.Contains(p.Logs(), "2f4c0c2e-7a4b") {
		t.Errorf("the server's log shows the secret or the hook id:\n%s", p.Logs())
	}
}
