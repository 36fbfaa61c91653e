package config

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// Every key the file takes has a variable, and no two keys (or a key and
// another's _FILE twin) share one: hot_rank.x and a [hot] section's
// rank_x would, so the name scheme is checked over the whole Config.
func TestEveryKeyHasItsOwnVariable(t *testing.T) {
	seen := map[string]string{}
	for _, k := range keys() {
		for _, v := range []string{EnvVar(k.name), EnvVar(k.name) + fileSuffix} {
			if other, ok := seen[v]; ok {
				t.Errorf("%s is the variable of both %s and %s", v, other, k.name)
			}
			seen[v] = k.name
		}
	}
	// The keys found from the struct are the file's keys: the shipped
	// file writes every one of them down.
	text := shippedFile(t)
	file, err := parseCommented(string(text))
	if err != nil {
		t.Fatal(err)
	}
	var inFile []string
	for _, tb := range file.tables {
		for _, k := range tb.keys {
			inFile = append(inFile, tb.name+"."+k.name)
		}
		if len(tb.keys) == 0 {
			inFile = append(inFile, tb.name) // limits.clients: a table of the user's names
		}
	}
	slices.Sort(inFile)
	got := Keys()
	slices.Sort(got)
	if !slices.Equal(got, inFile) {
		t.Errorf("keys from Config:\n%v\nkeys in config.toml:\n%v", got, inFile)
	}
	for _, want := range []string{"MDQS_SERVER_ADDR", "MDQS_SERVER_DB", "MDQS_CACHE_REDIS", "MDQS_SOURCES_PUSH2_BASE_URL", "MDQS_HOT_RANK_EASTMONEY_TIMEOUT"} {
		if _, ok := seen[want]; !ok {
			t.Errorf("no key has the variable %s", want)
		}
	}
}

func TestEnvironmentSetsEveryKindOfKey(t *testing.T) {
	t.Chdir(t.TempDir())
	environ := []string{
		"MDQS_SERVER_ADDR=0.0.0.0:9090",                               // string
		"MDQS_SERVER_DB_READERS=7",                                    // int
		"MDQS_SERVER_WRITE_TIMEOUT=90s",                               // duration
		"MDQS_LIMITS_CLIENT_RATE=12.5",                                // float
		"MDQS_DEMO_ENABLED=false",                                     // bool
		"MDQS_SERVER_ALLOWED_HOSTS=mdqs.lan, .desk.lan",               // list, comma-separated
		`MDQS_KLINE_WATCH=["600519.SH","000001.SZ"]`,                  // list, TOML
		"MDQS_SOURCES_PUSH2_BASE_URL=http://push2.example:8000",       // an embedded struct's key
		"MDQS_LIMITS_CLIENTS={ desk = { rate = 50.0, burst = 100 } }", // a table of the user's names
		"MDQS_SERVER_INSTANCE=",                                       // empty: unset
		"MDQS_CLIENT_ID=desk", "MDQS_TEST_POSTGRES=x", "PATH=/bin",    // not the configuration's
	}
	cfg, _, origins, err := Explain(Input{Environ: environ})
	if err != nil {
		t.Fatal(err)
	}
	s := cfg.Server
	if s.Addr != "0.0.0.0:9090" || s.DBReaders != 7 || s.WriteTimeout.Duration != 90*time.Second || s.Instance != "" {
		t.Errorf("server: %+v", s)
	}
	if cfg.Limits.ClientRate != 12.5 || cfg.Demo.Enabled {
		t.Errorf("client_rate %v, demo.enabled %v", cfg.Limits.ClientRate, cfg.Demo.Enabled)
	}
	if !slices.Equal(s.AllowedHosts, []string{"mdqs.lan", ".desk.lan"}) || !slices.Equal(cfg.Kline.Watch, []string{"600519.SH", "000001.SZ"}) {
		t.Errorf("lists: %q, %q", s.AllowedHosts, cfg.Kline.Watch)
	}
	if cfg.Sources.Push2.BaseURL != "http://push2.example:8000" {
		t.Errorf("push2 base_url %q", cfg.Sources.Push2.BaseURL)
	}
	if got := cfg.Limits.Clients["desk"]; got.Rate != 50 || got.Burst != 100 {
		t.Errorf("limits.clients: %+v", cfg.Limits.Clients)
	}
	if o := origins["server.addr"]; o.Kind != FromEnvironment || o.Name != "MDQS_SERVER_ADDR" {
		t.Errorf("server.addr origin %+v", o)
	}
	var shown []string
	for _, st := range Settings(cfg, origins) {
		shown = append(shown, st.Key+" "+st.Value)
	}
	if !slices.Contains(shown, "limits.clients { desk = { rate = 50.0, burst = 100 } }") || !slices.Contains(shown, `server.allowed_hosts ["mdqs.lan", ".desk.lan"]`) {
		t.Errorf("settings as shown: %q", shown)
	}
	if _, ok := origins["server.instance"]; ok {
		t.Errorf("an empty variable counted as set: %+v", origins["server.instance"])
	}
}

// flags > environment > file > defaults, each key on its own.
func TestPrecedenceFlagsEnvironmentFileDefaults(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	file := filepath.Join(dir, "team.toml")
	os.WriteFile(file, []byte("[server]\naddr = \"127.0.0.1:1111\"\ndb = \"file.db\"\ninstance = \"from-file\"\n"), 0o600)
	environ := []string{"MDQS_SERVER_ADDR=127.0.0.1:2222", "MDQS_SERVER_DB=env.db"}
	flag := func(c *Config) { c.Server.Addr = "127.0.0.1:3333" }
	cfg, from, origins, err := Explain(Input{Path: file, Environ: environ}, flag)
	if err != nil {
		t.Fatal(err)
	}
	if from != file {
		t.Errorf("from %q", from)
	}
	for _, tt := range []struct{ key, got, want, origin string }{
		{"server.addr", cfg.Server.Addr, "127.0.0.1:3333", "flag"},
		{"server.db", cfg.Server.DB, "env.db", "environment MDQS_SERVER_DB"},
		{"server.instance", cfg.Server.Instance, "from-file", "file " + file},
		{"server.leader_poll", cfg.Server.LeaderPoll.String(), "2s", "default"},
	} {
		o, ok := origins[tt.key]
		if !ok {
			o = Origin{Kind: FromDefault}
		}
		if tt.got != tt.want || o.String() != tt.origin {
			t.Errorf("%s = %q from %q, want %q from %q", tt.key, tt.got, o, tt.want, tt.origin)
		}
	}
	// MDQS_CONFIG names the file when -config does not; -config wins.
	os.WriteFile("other.toml", []byte("[server]\ninstance = \"other\"\n"), 0o600)
	if cfg, from, err := Load(Input{Environ: []string{"MDQS_CONFIG=other.toml"}}); err != nil || from != "other.toml" || cfg.Server.Instance != "other" {
		t.Errorf("MDQS_CONFIG: %q from %q, %v", cfg.Server.Instance, from, err)
	}
	if cfg, _, err := Load(Input{Path: file, Environ: []string{"MDQS_CONFIG=other.toml"}}); err != nil || cfg.Server.Instance != "from-file" {
		t.Errorf("-config and MDQS_CONFIG: %q, %v", cfg.Server.Instance, err)
	}
}

func TestSecretsFromFiles(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	secret := filepath.Join(dir, "db_url")
	// As `echo URL > file` writes it, on Windows too.
	os.WriteFile(secret, []byte("postgres://mdqs:s3cret@db.lan/mdqs\r\n"), 0o600)
	redis := filepath.Join(dir, "redis_url")
	os.WriteFile(redis, []byte("redis://:r3dis@db.lan:6379/0\n"), 0o600)
	environ := []string{"MDQS_SERVER_DB_FILE=" + secret, "MDQS_CACHE_REDIS_FILE=" + redis, "MDQS_SOURCES_PUSH2_PROXY=http://u:pr0xy@proxy.lan:3128"}
	cfg, _, origins, err := Explain(Input{Environ: environ})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Server.DB != "postgres://mdqs:s3cret@db.lan/mdqs" || cfg.Cache.Redis != "redis://:r3dis@db.lan:6379/0" {
		t.Errorf("db %q, redis %q", cfg.Server.DB, cfg.Cache.Redis)
	}
	var shown strings.Builder
	for _, s := range Settings(cfg, origins) {
		shown.WriteString(s.Key + " " + s.Value + " " + s.Origin.String() + "\n")
	}
	for _, secret := range []string{"s3cret", "r3dis", "pr0xy"} {
		if strings.Contains(shown.String(), secret) {
			t.Errorf("the settings show the password %q:\n%s", secret, shown.String())
		}
	}
	for _, want := range []string{
		"server.db (secret: not shown) MDQS_SERVER_DB_FILE (" + secret + ")",
		`sources.push2.proxy "http://u:xxxxx@proxy.lan:3128" environment MDQS_SOURCES_PUSH2_PROXY`,
	} {
		if !strings.Contains(shown.String(), want) {
			t.Errorf("settings lack %q:\n%s", want, shown.String())
		}
	}
}

func TestBadEnvironmentIsNamed(t *testing.T) {
	t.Chdir(t.TempDir())
	missing := filepath.Join(t.TempDir(), "nope")
	for _, tt := range []struct {
		environ []string
		want    string
	}{
		{[]string{"MDQS_SERVER_ADR=0.0.0.0:80"}, "no configuration key is set by MDQS_SERVER_ADR"},
		{[]string{"MDQS_SERVER_DB_READERS=four"}, "environment MDQS_SERVER_DB_READERS (server.db_readers): want a TOML value of the kind the file takes (an integer)"},
		{[]string{"MDQS_SERVER_WRITE_TIMEOUT=60"}, `environment MDQS_SERVER_WRITE_TIMEOUT (server.write_timeout): duration "60"`},
		{[]string{"MDQS_DEMO_ENABLED=no"}, "(true or false)"},
		{[]string{"MDQS_SERVER_DB=a.db", "MDQS_SERVER_DB_FILE=x"}, "MDQS_SERVER_DB and MDQS_SERVER_DB_FILE are both set"},
		{[]string{"MDQS_SERVER_DB_FILE=" + missing}, "environment MDQS_SERVER_DB_FILE: open " + missing},
		// Validation names the environment as a place to look.
		{[]string{"MDQS_SERVER_ADDR=nonsense"}, "config built-in defaults and the environment: server.addr"},
	} {
		_, _, err := Load(Input{Environ: tt.environ})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: err %v, want it to say %q", tt.environ, err, tt.want)
		}
	}
}

// Without an environment the configuration is the file's, as before.
func TestNoEnvironmentIsTheFile(t *testing.T) {
	t.Chdir(t.TempDir())
	cfg, _, origins, err := Explain(Input{})
	if err != nil || !reflect.DeepEqual(cfg, Default()) || len(origins) != 0 {
		t.Fatalf("%v, origins %v", err, origins)
	}
}
