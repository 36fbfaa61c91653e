package doctor

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"mdqs/db"
)

// checkStore looks at the store serve would open (db.Inspect, which
// changes nothing) and says what a start would make of it.
func checkStore(ctx context.Context, d Deps) Check {
	cfg := d.Config
	ctx, cancel := context.WithTimeout(ctx, max(d.Timeout, 5*time.Second))
	defer cancel()
	in, err := db.Inspect(ctx, cfg.DBPath(), d.SQLiteSchema, d.Clock.Now())
	return storeCheck(in, err, cfg.DemoMode())
}

// storeCheck turns an inspection into the check: the first thing that
// blocks a start fails it; what a start survives warns.
func storeCheck(in db.Inspection, err error, demo bool) Check {
	want := db.MarketLive
	if demo {
		want = db.MarketDemo
	}
	kind := "SQLite file"
	if in.Postgres {
		kind = "PostgreSQL"
	}
	ck := Check{Name: "store", Status: OK, Details: storeDetails(in, kind)}
	say := func(s Status, found, fix string) Check {
		ck.Status, ck.Found, ck.Fix = s, kind+" "+in.Target+": "+found, fix
		return ck
	}
	switch {
	case err != nil && in.Postgres:
		return say(Fail, fmt.Sprintf("no connection: %v", err),
			"start the PostgreSQL server or correct the URL in server.db (or -db); a password belongs in MDQS_SERVER_DB_FILE or ~/.pgpass, not in the file")
	case err != nil:
		return say(Fail, err.Error(), "point server.db (or -db) at the server's database file, or move this file away and let the first start make a new one")
	case !in.FolderExists:
		return say(Fail, fmt.Sprintf("its folder %s does not exist", filepath.Dir(in.Target)),
			"create the folder, or point server.db (or -db) at a file in one that exists")
	case !in.Exists && !in.FolderWritable:
		return say(Fail, fmt.Sprintf("does not exist, and its folder %s may not be written, so the first start cannot make it", filepath.Dir(in.Target)),
			"run mdqs where you may write (not in C:\\Program Files), or point server.db (or -db) at a folder of yours")
	case !in.Exists && !demo:
		return say(Warn, "does not exist yet: the first start makes it, with no client, so every request is refused until one is added",
			`add a client first, which makes the file: mdqs client add -id desk -scopes "*" (it prints the secret once)`)
	case !in.Exists:
		return say(OK, "does not exist yet: the first start makes it and seeds the demo client", "")
	case in.Schema > in.Latest:
		return say(Fail, fmt.Sprintf("at schema version %d, newer than this mdqs's %d (a newer mdqs wrote it)", in.Schema, in.Latest),
			"use the newer mdqs that wrote it, or give this one another file (-db)")
	case in.Market != "" && in.Market != want:
		return say(Fail, strings.TrimPrefix((&db.MarketError{Path: in.Target, Holds: in.Market, Want: want}).Error(), "db: "), "see above")
	}
	migrate := in.Schema < in.Latest
	var found, fix []string
	status := OK
	warn := func(f, x string) {
		status = worse(status, Warn)
		found, fix = append(found, f), append(fix, x)
	}
	switch {
	case migrate && in.Schema == 0:
		found = append(found, "empty (no schema yet): the first start makes its tables")
	case migrate:
		found = append(found, fmt.Sprintf("at schema version %d: the first start migrates it to %d", in.Schema, in.Latest))
		fix = append(fix, "a copy first is wise: mdqs backup -to FILE")
	default:
		found = append(found, fmt.Sprintf("at schema version %d (this mdqs's)", in.Schema))
	}
	if in.Market != "" {
		found = append(found, "holds the "+in.Market+" market")
	}
	if !in.FileWritable || !in.FolderWritable {
		what := "the file"
		if !in.FolderWritable {
			what = "its folder"
		}
		if migrate {
			return say(Fail, fmt.Sprintf("%s may not be written, so the start cannot migrate it from version %d to %d", what, in.Schema, in.Latest),
				"give this account write access to the file and its folder (or run as the account that owns it)")
		}
		warn(what+" may not be written: a start serves what it holds, and every write (imports, new tokens) answers 503",
			"give this account write access to the file and its folder")
	}
	if in.Locked != nil {
		if migrate {
			return say(Fail, fmt.Sprintf("its write lock is held by %s, and the start must migrate it first", holder(in.Locked)),
				"wait for that process to finish, or stop it, then start")
		}
		warn("its write lock is held now by "+holder(in.Locked)+": a start serves reads, and its writes wait until the lock is let go",
			"if it stays held, stop that process (an import, a sqlite3 shell left in a transaction)")
	}
	if len(in.OpenBy) > 0 {
		warn("open in "+processes(in.OpenBy)+": a second server on the same file runs every job twice",
			"if that is a server, use it, or stop it before starting another (mdqs service stop, or Ctrl+C in its window); or give this one its own file (-db)")
	}
	switch {
	case in.Clients == 0 && !demo:
		warn("no client may log in (none enabled and unexpired): every request is refused",
			`add one: mdqs client add -id desk -scopes "*" (it prints the secret once)`)
	case in.Clients > 0:
		found = append(found, fmt.Sprintf("%d client(s) may log in", in.Clients))
	}
	ck.Status, ck.Found, ck.Fix = status, kind+" "+in.Target+": "+strings.Join(found, "; "), strings.Join(fix, "; ")
	return ck
}

// worse is the worse of two statuses: a check is as bad as its worst
// finding.
func worse(a, b Status) Status {
	rank := map[Status]int{Skip: 0, OK: 1, Warn: 2, Fail: 3}
	if rank[b] > rank[a] {
		return b
	}
	return a
}

func holder(le *db.LockedError) string {
	switch {
	case le.PID > 0 && le.Command != "":
		return fmt.Sprintf("another process (pid %d: %s)", le.PID, le.Command)
	case le.PID > 0:
		return fmt.Sprintf("another process (pid %d)", le.PID)
	}
	return "another process"
}

func processes(ps []db.Process) string {
	var out []string
	for _, p := range ps {
		switch {
		case p.Command != "":
			out = append(out, fmt.Sprintf("pid %d (%s)", p.PID, p.Command))
		case p.Name != "":
			out = append(out, fmt.Sprintf("pid %d (%s)", p.PID, p.Name))
		default:
			out = append(out, fmt.Sprintf("pid %d", p.PID))
		}
	}
	return "another process: " + strings.Join(out, ", ")
}

func storeDetails(in db.Inspection, kind string) map[string]any {
	d := map[string]any{"kind": kind, "target": in.Target, "exists": in.Exists, "writable": in.Exists && in.FileWritable && in.FolderWritable,
		"schema": in.Schema, "latest": in.Latest, "market": in.Market, "clients": in.Clients, "wal_bytes": in.WALBytes}
	if in.Locked != nil {
		d["locked_by_pid"] = in.Locked.PID
	}
	var pids []int
	for _, p := range in.OpenBy {
		pids = append(pids, p.PID)
	}
	if len(pids) > 0 {
		d["open_by_pids"] = pids
	}
	return d
}
