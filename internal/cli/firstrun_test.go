package cli

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"mdqs/internal/config"
)

// The banner a person reads after a double click: the page to open and,
// where the demo client is seeded, its credentials, in English and
// Chinese; never the public secret where the server does not seed it.
func TestBannerSaysWhereToGoAndHowToLogIn(t *testing.T) {
	demo := config.Default()
	live := config.Default()
	live.Sources.Default = "push2"
	liveDemoClient := live
	liveDemoClient.Demo.LiveClient = true
	demoOff := demo
	demoOff.Demo.Enabled = false
	everywhere := demo
	everywhere.Server.Addr = "0.0.0.0:8080"
	const creds = "打开 http://127.0.0.1:8080/ ，用户名 demo，密钥 demo-secret"
	for _, tt := range []struct {
		name     string
		cfg      config.Config
		listen   string
		want     []string
		wantNone []string
	}{
		{"demo", demo, "127.0.0.1:8080", []string{"demo market", "演示行情", "Open http://127.0.0.1:8080/", "log in as demo with the secret demo-secret", creds, "Ctrl+C"}, nil},
		{"demo on another port", demo, "127.0.0.1:18080", []string{"打开 http://127.0.0.1:18080/ ，用户名 demo，密钥 demo-secret"}, nil},
		{"demo on every interface", everywhere, "[::]:8080", []string{"http://127.0.0.1:8080/", "mdqs client add"}, []string{"demo-secret"}},
		{"demo client off", demoOff, "127.0.0.1:8080", []string{"http://127.0.0.1:8080/", "mdqs client add"}, []string{"demo-secret"}},
		{"live", live, "127.0.0.1:8080", []string{"live", "实时", "http://127.0.0.1:8080/", "mdqs client add"}, []string{"demo-secret"}},
		{"live with the demo client", liveDemoClient, "127.0.0.1:8080", []string{"live", creds}, nil},
	} {
		var b bytes.Buffer
		Banner(&b, tt.cfg, tt.listen)
		for _, w := range tt.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("Banner(%s) lacks %q:\n%s", tt.name, w, b.String())
			}
		}
		for _, w := range tt.wantNone {
			if strings.Contains(b.String(), w) {
				t.Errorf("Banner(%s) says %q:\n%s", tt.name, w, b.String())
			}
		}
	}
}

// A window mdqs alone owns (started from Explorer) waits for Enter after
// an error; one shared with a shell (cmd, PowerShell: 2 or more processes)
// or none at all (0: not Windows, a service) closes as usual.
func TestHoldOnErrorWaitsOnlyInAWindowOfItsOwn(t *testing.T) {
	for _, tt := range []struct {
		code, processes int
		want            bool
	}{
		{1, 1, true},
		{2, 1, true},
		{0, 1, false},
		{1, 2, false},
		{1, 3, false},
		{1, 0, false},
	} {
		in := strings.NewReader("\nleft for later")
		var out bytes.Buffer
		got := holdOnError(tt.code, tt.processes, in, &out)
		said := strings.Contains(out.String(), "按 Enter 键关闭窗口 / press Enter to close")
		if got != tt.want || said != tt.want {
			t.Errorf("holdOnError(exit %d, %d console processes) = %v, said %q; want %v", tt.code, tt.processes, got, out.String(), tt.want)
		}
		rest, _ := io.ReadAll(in)
		if tt.want && string(rest) != "left for later" {
			t.Errorf("holdOnError(exit %d, %d) read %q past the Enter", tt.code, tt.processes, rest)
		}
	}
	// No console input (closed, EOF): nothing to wait for.
	var out bytes.Buffer
	if !holdOnError(1, 1, strings.NewReader(""), &out) {
		t.Error("holdOnError on EOF did not say it held")
	}
}
