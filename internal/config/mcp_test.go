package config

import (
	"strings"
	"testing"
	"time"
)

func TestMCPDefaultsAndValidation(t *testing.T) {
	m := Default().MCP
	if m.HTTP || m.Remote || len(m.AllowedOrigins) != 0 || m.SessionIdle.Duration != 30*time.Minute {
		t.Errorf("defaults %+v: want /mcp off, loopback callers only, no other origin, 30m idle sessions", m)
	}
	for _, tt := range []struct {
		toml, key string // key "": valid
	}{
		{"[mcp]\nhttp = true\nallowed_origins = [\"http://127.0.0.1:3000\", \"https://agent.desk.lan\", \"http://[::1]:8080\"]", ""},
		{"[mcp]\nallowed_origins = [\"https://Agent.Desk.Lan:443\"]", ""},
		{"[mcp]\nallowed_origins = [\"*\"]", "mcp.allowed_origins"},
		{"[mcp]\nallowed_origins = [\"agent.desk.lan\"]", "mcp.allowed_origins"},
		{"[mcp]\nallowed_origins = [\"http://agent.desk.lan/\"]", "mcp.allowed_origins"},
		{"[mcp]\nallowed_origins = [\"http://agent.desk.lan/app\"]", "mcp.allowed_origins"},
		{"[mcp]\nallowed_origins = [\"ftp://agent.desk.lan\"]", "mcp.allowed_origins"},
		{"[mcp]\nallowed_origins = [\"null\"]", "mcp.allowed_origins"},
		{"[mcp]\nallowed_origins = [\"http://user@agent.desk.lan\"]", "mcp.allowed_origins"},
		{"[mcp]\nsession_idle = \"10s\"", "mcp.session_idle"},
		{"[mcp]\nsession_idle = \"48h\"", "mcp.session_idle"},
	} {
		cfg, err := Parse(strings.NewReader(tt.toml))
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.toml, err)
		}
		err = cfg.Validate()
		switch {
		case tt.key == "" && err != nil:
			t.Errorf("Validate(%q) = %v, want valid", tt.toml, err)
		case tt.key != "" && (err == nil || !strings.Contains(err.Error(), tt.key)):
			t.Errorf("Validate(%q) = %v, want an error naming %s", tt.toml, err, tt.key)
		}
	}
	// Origins compare as browsers send them: scheme and host in lower
	// case, the scheme's default port left out.
	cfg, _ := Parse(strings.NewReader("[mcp]\nallowed_origins = [\"HTTPS://Agent.Desk.Lan:443\", \"http://127.0.0.1:3000\"]"))
	if got := strings.Join(cfg.MCP.Origins(), " "); got != "https://agent.desk.lan http://127.0.0.1:3000" {
		t.Errorf("Origins() = %q", got)
	}
}
