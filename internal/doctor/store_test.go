package doctor

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/config"
	"mdqs/internal/market"
)

// What a start makes of each store it may find, as data: the first thing
// that blocks it fails the check; what it survives warns.
func TestStoreCheck(t *testing.T) {
	base := db.Inspection{Target: "/srv/mdqs/mdqs.db", FolderExists: true, FolderWritable: true, Exists: true, FileWritable: true,
		Schema: 28, Latest: 28, Market: "live", Clients: 2}
	with := func(f func(*db.Inspection)) db.Inspection { in := base; f(&in); return in }
	for _, tt := range []struct {
		name  string
		in    db.Inspection
		err   error
		demo  bool
		want  Status
		found []string
		fix   []string
	}{
		{"ready", base, nil, false, OK, []string{"SQLite file /srv/mdqs/mdqs.db", "at schema version 28 (this mdqs's)", "holds the live market", "2 client(s) may log in"}, nil},
		{"new, live", with(func(in *db.Inspection) { in.Exists, in.Schema, in.Market, in.Clients = false, 0, "", -1 }), nil, false, Warn,
			[]string{"does not exist yet", "every request is refused"}, []string{`mdqs client add -id desk -scopes "*"`}},
		{"new, demo", with(func(in *db.Inspection) { in.Exists, in.Schema, in.Market, in.Clients = false, 0, "", -1 }), nil, true, OK,
			[]string{"seeds the demo client"}, nil},
		{"its folder is missing", with(func(in *db.Inspection) { in.FolderExists, in.Exists = false, false }), nil, false, Fail,
			[]string{"its folder /srv/mdqs does not exist"}, []string{"create the folder"}},
		{"new in a folder it may not write", with(func(in *db.Inspection) { in.Exists, in.FolderWritable = false, false }), nil, false, Fail,
			[]string{"may not be written"}, []string{"Program Files"}},
		{"written by a newer mdqs", with(func(in *db.Inspection) { in.Schema = 31 }), nil, false, Fail,
			[]string{"schema version 31, newer than this mdqs's 28"}, []string{"newer mdqs"}},
		{"the demo's store in live mode", with(func(in *db.Inspection) { in.Market = "demo" }), nil, false, Fail,
			[]string{"holds the demo market, so it cannot serve live data"}, nil},
		{"a live store in demo mode", base, nil, true, Fail, []string{"holds live market data"}, nil},
		{"an older schema", with(func(in *db.Inspection) { in.Schema = 27 }), nil, false, OK,
			[]string{"at schema version 27: the first start migrates it to 28"}, []string{"mdqs backup"}},
		{"an older schema in a file it may not write", with(func(in *db.Inspection) { in.Schema, in.FileWritable = 27, false }), nil, false, Fail,
			[]string{"cannot migrate it from version 27 to 28"}, []string{"write access"}},
		{"a file it may not write", with(func(in *db.Inspection) { in.FileWritable = false }), nil, false, Warn,
			[]string{"answers 503"}, []string{"write access"}},
		{"an older schema under another's write lock", with(func(in *db.Inspection) {
			in.Schema, in.Locked = 20, &db.LockedError{PID: 4242, Command: "mdqs import tdx"}
		}), nil, false, Fail, []string{"held by another process (pid 4242: mdqs import tdx)", "must migrate it first"}, []string{"wait"}},
		{"under another's write lock", with(func(in *db.Inspection) { in.Locked = &db.LockedError{PID: 4242} }), nil, false, Warn,
			[]string{"write lock is held now by another process (pid 4242)"}, []string{"stop that process"}},
		{"open in a running server", with(func(in *db.Inspection) { in.OpenBy = []db.Process{{PID: 77, Name: "mdqs", Command: "mdqs serve"}} }), nil, false, Warn,
			[]string{"open in another process: pid 77 (mdqs serve)", "runs every job twice"}, []string{"mdqs service stop"}},
		{"no client may log in", with(func(in *db.Inspection) { in.Clients = 0 }), nil, false, Warn,
			[]string{"no client may log in"}, []string{"mdqs client add"}},
		{"no client in demo mode: the start seeds it", with(func(in *db.Inspection) { in.Clients, in.Market = 0, "demo" }), nil, true, OK, nil, nil},
		{"not a database", with(func(in *db.Inspection) { in.Schema, in.Market, in.Clients = 0, "", -1 }),
			errors.New("db: /srv/mdqs/mdqs.db is not readable as a database: file is not a database"), false, Fail,
			[]string{"not readable as a database"}, []string{"point server.db"}},
		{"PostgreSQL that does not answer", db.Inspection{Target: "postgres://mdqs:xxxxx@db.lan/mdqs", Postgres: true, Clients: -1},
			errors.New("db: connect to postgres://mdqs:xxxxx@db.lan/mdqs: connection refused"), false, Fail,
			[]string{"PostgreSQL postgres://mdqs:xxxxx@db.lan/mdqs: no connection"}, []string{"MDQS_SERVER_DB_FILE"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := storeCheck(tt.in, tt.err, tt.demo)
			if got.Status != tt.want {
				t.Errorf("storeCheck = %s, want %s: %s (fix: %s)", got.Status, tt.want, got.Found, got.Fix)
			}
			for _, w := range tt.found {
				if !strings.Contains(got.Found, w) {
					t.Errorf("found lacks %q:\n%s", w, got.Found)
				}
			}
			for _, w := range tt.fix {
				if !strings.Contains(got.Fix, w) {
					t.Errorf("fix lacks %q:\n%s", w, got.Fix)
				}
			}
		})
	}
}

// Through a real file: the live store a `client add` made is ready, and
// the check leaves it as it was.
func TestStoreCheckOnAFile(t *testing.T) {
	ctx := context.Background()
	schema := dbtest.SQLiteSchema(t)
	path := filepath.Join(t.TempDir(), "mdqs.db")
	s, err := db.Open(ctx, path, db.Options{SQLiteSchema: schema, Market: db.MarketLive})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	cfg := config.Default()
	cfg.Sources.Default, cfg.Server.DB = "push2", path
	d := testDeps(cfg, time.Date(2026, 11, 20, 16, 0, 0, 0, market.Shanghai()))
	d.SQLiteSchema = schema
	got := checkStore(ctx, d)
	if got.Status != Warn || !strings.Contains(got.Found, "holds the live market") || !strings.Contains(got.Found, "no client may log in") {
		t.Errorf("checkStore = %s: %s", got.Status, got.Found)
	}
}
