package config

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"mdqs/internal/upstream"
)

func TestParseKeepsDefaultsForMissingKeys(t *testing.T) {
	cfg, err := Parse(strings.NewReader("[auth]\ntoken_ttl_hours = 5\n"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Auth.TokenTTLHours != 5 {
		t.Errorf("token_ttl_hours = %d, want 5", cfg.Auth.TokenTTLHours)
	}
	if cfg.Auth.TokenMaxPerClient != 20 || cfg.Server.Addr != "127.0.0.1:8080" || cfg.Auth.Signature != "required" {
		t.Errorf("defaults lost: %+v", cfg)
	}
}

func TestParseRejectsUnknownKeysByName(t *testing.T) {
	_, err := Parse(strings.NewReader("[server]\naddr = \"127.0.0.1:1\"\nadr = \"x\"\n\n[nope]\nk = 1\n"))
	if err == nil {
		t.Fatal("unknown keys accepted")
	}
	for _, want := range []string{`"server.adr" (line 3)`, `"nope" (line 5)`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
}

func TestParseReportsTypeErrorsWithPosition(t *testing.T) {
	_, err := Parse(strings.NewReader("[auth]\ntoken_ttl_hours = \"two\"\n"))
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("type error = %v, want one naming line 2", err)
	}
	_, err = Parse(strings.NewReader("[server]\nshutdown_timeout = \"ten seconds\"\n"))
	if err == nil || !strings.Contains(err.Error(), "shutdown_timeout") {
		t.Fatalf("bad duration error = %v, want it to name the key", err)
	}
}

func TestDurationsAreStrings(t *testing.T) {
	cfg, err := Parse(strings.NewReader("[server]\nshutdown_timeout = \"90s\"\n"))
	if err != nil || cfg.Server.ShutdownTimeout.Duration != 90*time.Second {
		t.Fatalf("shutdown_timeout = %v, %v; want 1m30s", cfg.Server.ShutdownTimeout, err)
	}
}

func TestValidateNamesTheBadField(t *testing.T) {
	tests := []struct {
		toml string
		key  string
	}{
		{"[server]\naddr = \"nonsense\"", "server.addr"},
		{"[auth]\nsignature = \"maybe\"", "auth.signature"},
		{"[auth]\ntoken_max_per_client = 0", "auth.token_max_per_client"},
		{"[auth]\ntoken_ttl_hours = 0", "auth.token_ttl_hours"},
		{"[auth]\nmax_clock_skew = \"-1s\"", "auth.max_clock_skew"},
		{"[server]\nmax_body_bytes = 10", "server.max_body_bytes"},
		{"[log]\nlevel = \"loud\"", "log.level"},
		{"[market]\nboards_top50_window_start = \"9:25\"", "market.boards_top50_window_start"},
		{"[market]\nboards_top50_window_start = \"15:30\"", "market.boards_top50_window_start"},
		{"[market]\nboards_top50_refresh_ms = 90000000", "market.boards_top50_refresh_ms"},
		{"[sources]\ndefault = \"sina\"", "sources.default"},
		{"[market]\nmovement_pct = 0", "market.movement_pct"},
		{"[kline]\nwatch = [\"6005\"]", "kline.watch"},
		{"[kline]\neod_at = \"3pm\"", "kline.eod_at"},
		{"[market]\nmovement_speed_window = \"10s\"", "market.movement_speed_window"},
		{"[tdx]\ndir = 'C:\\new_tdx'", "tdx.dir"}, // terminal files are live data; the default mode is demo
		{"[sources]\ndefault = \"auto\"\n[sources.akshare]\nbase_url = \"http://127.0.0.1:8080\"", "sources.akshare.base_url"},
		{"[sources.push2]\nproxy = \"::\"", "sources.push2.proxy"},
		{"[sources.push2his]\nbreaker_failures = -1", "sources.push2his.breaker_failures"},
		{"[sources.push2]\nfallback_urls = [\"push2delay.eastmoney.com\"]", "sources.push2.fallback_urls"},
		{"[sources.push2]\nfallback_urls = [\"ftp://push2delay.eastmoney.com\"]", "sources.push2.fallback_urls"},
		{"[sources.push2his]\nfallback_urls = [\"https://push2his.eastmoney.com/\"]", "sources.push2his.fallback_urls"}, // base_url again
		{"[sources.push2his]\nfailover_cooldown = \"0s\"", "sources.push2his.failover_cooldown"},
		{"[news.cls]\nbreaker_cooldown = \"10ms\"", "news.cls.breaker_failures"},
		{"[finance.datacenter]\nrate = 0", "finance.datacenter"},
		{"[limits]\nclient_burst = 0", "limits.client_rate"},
		{"[limits]\ntoken_rate = -1.0", "limits.token_rate"},
		{"[limits.clients]\nbot = { rate = 5.0, burst = 0 }", "limits.clients.bot"},
		{"[server]\ndb = \"postgres:///mdqs\"", "server.db"}, // no host: pgx would try a local socket
		{"[server]\ndb = \"postgres://db.lan/mdqs\"\n[cache]\nredis = \"127.0.0.1:6379\"", "cache.redis"},
		{"[cache]\nredis = \"redis://127.0.0.1:6379\"", "cache.redis"}, // SQLite: one instance, nothing to share
		{"[cache]\nredis_prefix = \"\"", "cache.redis_prefix"},
		{"[cache]\nredis_prefix = \"my team:\"", "cache.redis_prefix"},
		{"[server]\nleader_poll = \"10ms\"", "server.leader_poll"},
		{"[server]\nupstream_wait = \"0s\"", "server.upstream_wait"},
		{"[server]\nupstream_wait = \"50s\"", "server.upstream_wait"},                         // write_timeout is 60s
		{"[server]\nwrite_timeout = \"20s\"", "server.upstream_wait"},                         // the shipped 20s wait no longer fits
		{"[server]\nwrite_timeout = \"2m\"\nupstream_wait = \"95s\"", "server.upstream_wait"}, // 3/4 of 2m is 90s
		{"[server]\nallowed_hosts = [\"mdqs.lan:8080\"]", "server.allowed_hosts"},             // names, no port
		{"[server]\nallowed_hosts = [\"http://mdqs.lan\"]", "server.allowed_hosts"},
		{"[server]\nallowed_hosts = [\"\"]", "server.allowed_hosts"},
		{"[server]\nallowed_hosts = [\"a..b\"]", "server.allowed_hosts"},
		{"[server]\nallowed_hosts = [\"my host\"]", "server.allowed_hosts"},
		{"[server]\nallowed_hosts = [\"*.lan\"]", "server.allowed_hosts"}, // the form is ".lan"
		{"[server]\nallowed_hosts = [\"*\", \"mdqs.lan\"]", "server.allowed_hosts"},
		{"[stream]\nmax_per_client = 0", "stream.max_per_client"},
		{"[stream]\nmax_per_client = 1001", "stream.max_per_client"},
	}
	for _, tt := range tests {
		cfg, err := Parse(strings.NewReader(tt.toml))
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.toml, err)
		}
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), tt.key) {
			t.Errorf("Validate(%q) = %v, want an error naming %s", tt.toml, err, tt.key)
		}
	}
}

// A file that leaves keys out behaves as the shipped defaults say. Before
// the defaults lived in one file, a config holding only [server] ran auto
// mode without the demo client although the shipped file said demo.
func TestKeysLeftOutKeepTheShippedValues(t *testing.T) {
	shipped, err := Parse(bytes.NewReader(shippedFile(t)))
	if err != nil {
		t.Fatal(err)
	}
	if err := shipped.Validate(); err != nil {
		t.Fatalf("the shipped defaults do not validate: %v", err)
	}
	for _, text := range []string{"", "[server]\n", "[server]\naddr = \"127.0.0.1:8080\"\n", "[demo]\n[sources]\n"} {
		cfg, err := Parse(strings.NewReader(text))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(cfg, shipped) || !reflect.DeepEqual(cfg, Default()) {
			t.Errorf("config %q = %+v\nwant the shipped defaults %+v", text, cfg, shipped)
		}
		if cfg.Sources.Default != "demo" || !cfg.Demo.Enabled || cfg.Demo.LiveClient || cfg.DBPath() != DemoDB {
			t.Errorf("config %q: mode %q, demo client %v, live client %v, db %q; want demo mode with its own file",
				text, cfg.Sources.Default, cfg.Demo.Enabled, cfg.Demo.LiveClient, cfg.DBPath())
		}
	}
}

func TestAllowedHostsTakesNames(t *testing.T) {
	for _, list := range []string{`[]`, `["mdqs.lan"]`, `["MDQS.Lan.", ".desk.lan", "desk-a", "host_1.lan"]`, `["*"]`, `["192.168.1.10", "::1"]`} {
		cfg, err := Parse(strings.NewReader("[server]\nallowed_hosts = " + list))
		if err != nil {
			t.Fatal(err)
		}
		if err := cfg.Validate(); err != nil {
			t.Errorf("allowed_hosts = %s: %v", list, err)
		}
	}
}

func TestDBPathFollowsTheMode(t *testing.T) {
	for _, tt := range []struct{ text, want string }{
		{"", DemoDB},
		{"[sources]\ndefault = \"auto\"", LiveDB},
		{"[sources]\ndefault = \"push2\"", LiveDB},
		{"[server]\ndb = \"x.db\"\n[sources]\ndefault = \"demo\"", "x.db"},
		{"[server]\ndb = \"x.db\"\n[sources]\ndefault = \"akshare\"", "x.db"},
		{"[server]\ndb = \"postgres://mdqs@db.lan/mdqs\"", "postgres://mdqs@db.lan/mdqs"},
	} {
		cfg, err := Parse(strings.NewReader(tt.text))
		if err != nil {
			t.Fatal(err)
		}
		if got := cfg.DBPath(); got != tt.want {
			t.Errorf("%q: DBPath = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func TestLoadPrecedence(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	cfg, from, err := Load(Input{})
	if err != nil || from != "built-in defaults" || !reflect.DeepEqual(cfg, Default()) {
		t.Fatalf("no file: %+v from %q, err %v", cfg, from, err)
	}
	os.WriteFile("config.toml", []byte("[server]\naddr = \"127.0.0.1:2222\"\n"), 0o600)
	cfg, from, err = Load(Input{})
	if err != nil || from != "config.toml" || cfg.Server.Addr != "127.0.0.1:2222" {
		t.Fatalf("./config.toml: %v from %q, err %v", cfg.Server.Addr, from, err)
	}
	other := filepath.Join(dir, "other.toml")
	os.WriteFile(other, []byte("[server]\naddr = \"127.0.0.1:3333\"\n"), 0o600)
	cfg, _, err = Load(Input{Path: other})
	if err != nil || cfg.Server.Addr != "127.0.0.1:3333" {
		t.Fatalf("-config: %v, err %v", cfg.Server.Addr, err)
	}
	if _, _, err := Load(Input{Path: filepath.Join(dir, "missing.toml")}); err == nil {
		t.Fatal("a missing -config file was accepted")
	}
}

func TestIsLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8080": true, "[::1]:8080": true, "localhost:8080": true, "127.9.9.9:1": true,
		"0.0.0.0:8080": false, ":8080": false, "[::]:8080": false, "192.168.1.5:8080": false,
		"example.com:80": false, "nonsense": false,
	} {
		if got := IsLoopback(addr); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", addr, got, want)
		}
	}
}

func TestDefaultIsValid(t *testing.T) {
	if err := Default().Validate(); err != nil {
		t.Fatalf("Default().Validate() = %v", err)
	}
}

// Zero in the file means "none" for retries and the breaker, where the
// upstream clients read zero as "their default"; Source translates.
func TestUpstreamSourceTranslatesZeroAsNone(t *testing.T) {
	u := Default().Sources.Push2
	u.BaseURL = "https://push2.example"
	got := u.Source(upstream.SourceConfig{UserAgent: "kept"})
	if got.BaseURL != "https://push2.example" || got.Retries != 3 || got.BreakerFailures != 5 ||
		got.BreakerCooldown != 30*time.Second || got.UserAgent != "kept" {
		t.Errorf("Source = %+v", got)
	}
	u.Retries, u.BreakerFailures = 0, 0
	if got := u.Source(upstream.SourceConfig{}); got.Retries != -1 || got.BreakerFailures != -1 {
		t.Errorf("zero retries/breaker became %d/%d, want -1/-1 (none)", got.Retries, got.BreakerFailures)
	}
}

// push2 and push2his carry their alternates to the clients, unless
// base_url moved away from the default host with fallback_urls left at
// the default: those alternates are the default host's, and a relay or a
// test server must not be gone around.
func TestMirroredSourceCarriesAlternates(t *testing.T) {
	def := upstream.DefaultConfig().Push2His
	m := Default().Sources.Push2His
	if got := m.Source(def); !slices.Equal(got.Hosts()[1:], def.Fallbacks) || len(got.Fallbacks) == 0 || got.FailoverCooldown != 10*time.Minute {
		t.Errorf("defaults: hosts %v, cool-down %v", got.Hosts(), got.FailoverCooldown)
	}
	moved := m
	moved.BaseURL = "http://127.0.0.1:9"
	if got := moved.Source(def); !slices.Equal(got.Hosts(), []string{"http://127.0.0.1:9"}) {
		t.Errorf("base_url moved, fallbacks left at the default: hosts %v, want base_url alone", got.Hosts())
	}
	moved.FallbackURLs = []string{"http://127.0.0.1:10"}
	if got := moved.Source(def); !slices.Equal(got.Hosts(), []string{"http://127.0.0.1:9", "http://127.0.0.1:10"}) {
		t.Errorf("fallbacks given with a moved base_url: hosts %v", got.Hosts())
	}
	m.FallbackURLs = []string{}
	if got := m.Source(def); len(got.Fallbacks) != 0 {
		t.Errorf("fallback_urls = []: %v, want none", got.Fallbacks)
	}
	// A plain upstream never fails over, whatever its defaults carry.
	if got := Default().HotRank.EastMoney.Source(def); got.Fallbacks != nil {
		t.Errorf("a one-host upstream got fallbacks %v", got.Fallbacks)
	}
}

// tdx.dir empty (the shipped default) or "demo" is the demo market's
// terminal, beside the database, in demo mode; in a live mode "demo" is
// refused and empty means no terminal, so switching the mode alone still
// starts.
func TestDemoTerminalKey(t *testing.T) {
	for _, tt := range []struct {
		toml, dir, terminal, bad string
	}{
		{"", "", "mdqs-demo-tdx", ""},
		{"[server]\ndb = \"data/my.db\"", "", filepath.Join("data", "my-tdx"), ""},
		{"[tdx]\ndir = \"demo\"", "demo", "mdqs-demo-tdx", ""},
		{"[tdx]\ndir = \"\"", "", "mdqs-demo-tdx", ""},
		{"[sources]\ndefault = \"auto\"", "", "", ""},
		{"[sources]\ndefault = \"auto\"\n[tdx]\ndir = \"\"", "", "", ""},
		{"[sources]\ndefault = \"push2\"\n[tdx]\ndir = 'C:\\new_tdx'", `C:\new_tdx`, `C:\new_tdx`, ""},
		{"[sources]\ndefault = \"auto\"\n[tdx]\ndir = \"demo\"", "demo", "", "demo data"},
		{"[tdx]\ndir = 'C:\\new_tdx'", `C:\new_tdx`, "", "real market data"},
	} {
		cfg, err := Parse(strings.NewReader(tt.toml))
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.toml, err)
		}
		err = cfg.Validate()
		switch {
		case cfg.TDX.Dir != tt.dir:
			t.Errorf("%q: tdx.dir = %q, want %q", tt.toml, cfg.TDX.Dir, tt.dir)
		case tt.bad == "" && (err != nil || cfg.TerminalDir() != tt.terminal):
			t.Errorf("%q: Validate() = %v, TerminalDir() = %q; want nil, %q", tt.toml, err, cfg.TerminalDir(), tt.terminal)
		case tt.bad != "" && (err == nil || !strings.Contains(err.Error(), "tdx.dir") || !strings.Contains(err.Error(), tt.bad)):
			t.Errorf("%q: Validate() = %v, want an error naming tdx.dir and saying %q", tt.toml, err, tt.bad)
		}
	}
}

// A store on a server has no file to put the demo terminal beside.
func TestTerminalDirOfAServerStore(t *testing.T) {
	cfg, err := Parse(strings.NewReader("[server]\ndb = \"postgres://mdqs:pw@db.lan:5432/mdqs\""))
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("a PostgreSQL URL does not validate: %v", err)
	}
	if got := cfg.TerminalDir(); got != "mdqs-demo-tdx-"+fileSafe(cfg.InstanceName()) {
		t.Errorf("TerminalDir = %q, want the working folder's mdqs-demo-tdx-INSTANCE", got)
	}
	// Each instance of a team has its own, under a name any system takes.
	cfg.Server.Instance = "desk-a:8080/x"
	if got := cfg.TerminalDir(); got != "mdqs-demo-tdx-desk-a_8080_x" {
		t.Errorf("TerminalDir of instance %q = %q, want mdqs-demo-tdx-desk-a_8080_x", cfg.Server.Instance, got)
	}

	// Read from a file, the folders go beside it: the server's own folder,
	// not whichever one it was started in (a test's in-process server wrote
	// its folder into the package's source folder).
	dir := t.TempDir()
	path := filepath.Join(dir, "team.toml")
	if err := os.WriteFile(path, []byte("[server]\ninstance = \"b\"\ndb = \"postgres://mdqs:pw@db.lan:5432/mdqs\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	loaded, _, err := Load(Input{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := loaded.TerminalDir(), filepath.Join(dir, "mdqs-demo-tdx-b"); got != want {
		t.Errorf("TerminalDir with the configuration read from %s = %q, want %q", path, got, want)
	}
}

// Overrides (a command's -db) apply before validation: the relations
// between settings hold for what runs.
func TestLoadValidatesWithTheOverrides(t *testing.T) {
	file := filepath.Join(t.TempDir(), "team.toml")
	os.WriteFile(file, []byte("[cache]\nredis = \"redis://db.lan:6379\"\n"), 0o600)
	if _, _, err := Load(Input{Path: file}); err == nil || !strings.Contains(err.Error(), "cache.redis") {
		t.Fatalf("Redis on the default SQLite file: %v; want the cache.redis refusal", err)
	}
	cfg, _, err := Load(Input{Path: file}, func(c *Config) { c.Server.DB = "postgres://db.lan/mdqs" })
	if err != nil || cfg.Server.DB != "postgres://db.lan/mdqs" {
		t.Fatalf("with -db postgres://: %v, db %q", err, cfg.Server.DB)
	}
	if _, _, err := Load(Input{Path: file}, func(c *Config) { c.Server.Addr = "nonsense" }); err == nil {
		t.Fatal("an override is not validated")
	}
}

// A file saved by a Windows tool starts with a byte-order mark: Windows
// PowerShell 5 writes `mdqs config defaults > config.toml` as UTF-16LE,
// Notepad may add UTF-8's. Each reads as the same configuration.
func TestParseReadsAByteOrderMark(t *testing.T) {
	text := "[sources]\ndefault = \"push2\" # 东方财富\n[tdx]\ndir = 'C:\\new_tdx'\n"
	utf16 := func(bigEndian bool) []byte {
		out := []byte{0xff, 0xfe}
		if bigEndian {
			out = []byte{0xfe, 0xff}
		}
		for _, r := range text {
			v := uint16(r)
			if bigEndian {
				out = append(out, byte(v>>8), byte(v))
			} else {
				out = append(out, byte(v), byte(v>>8))
			}
		}
		return out
	}
	for name, b := range map[string][]byte{
		"utf-8":          []byte(text),
		"utf-8 with BOM": append([]byte{0xef, 0xbb, 0xbf}, text...),
		"utf-16le":       utf16(false),
		"utf-16be":       utf16(true),
	} {
		cfg, err := Parse(bytes.NewReader(b))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if cfg.Sources.Default != "push2" || cfg.TDX.Dir != `C:\new_tdx` {
			t.Errorf("%s: sources.default %q, tdx.dir %q", name, cfg.Sources.Default, cfg.TDX.Dir)
		}
	}
}
