package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// Leader election: of several instances serving one PostgreSQL store, one
// runs the background jobs (collection, end of day, news, reports ...)
// and the others serve requests only. The leader is the one session
// holding a session-level advisory lock, pg_try_advisory_lock(key), on a
// connection of its own: a pooled connection would go back to the pool
// still holding the lock, where nothing can address it again. The server
// frees the lock the moment that session ends (a clean Stop, a killed
// process, pg_terminate_backend), or, when the leader's host vanishes
// without a word, once TCP keepalive has given up on it (10s idle, then
// 3 probes 5s apart: about 25s).
//
// A SQLite store is always the leader: its file is served by one process
// (a second server on the same file would be a second writer of every
// job's data, which the single-file deployment does not support), and the
// `mdqs client` commands that open it too run no jobs.

// leaderLockKey is the base of the election's advisory lock key; like the
// store's other keys it is mixed with the schema's name, so stores in
// different schemas of one server (a test's schema each) hold different
// elections.
const leaderLockKey = 0x6d6471735f6c64 // "mdqs_ld"

// LeaderOptions tune Leadership; zero values take defaults.
type LeaderOptions struct {
	// Interval is how often a follower tries to take the lock and a
	// leader checks it still holds it; default 2s. A leader that lost its
	// session acts as one for at most this long; keep it well under the
	// ~25s in which the server drops a vanished host's session.
	Interval time.Duration
	// Log receives a line at each change of leadership and each lost
	// connection; nil logs nothing.
	Log *slog.Logger
	// OnChange, if set, is called (on the election's goroutine) after each
	// change of leadership, with the new state.
	OnChange func(leader bool)
}

// pollTimeout bounds one poll (connect, try or check): a leader whose
// server stopped answering gives up the role after this, well before the
// server's keepalive frees the lock for another instance.
const pollTimeout = 5 * time.Second

// Leadership is one instance's candidacy in its store's election. Start
// runs it, Stop ends it (releasing the lock); IsLeader may be called at any
// time from any goroutine.
type Leadership struct {
	store    *Store
	identity string
	interval time.Duration
	log      *slog.Logger
	onChange func(bool)
	always   bool // SQLite: the one serving process leads

	leader  atomic.Bool
	since   atomic.Int64 // UnixNano of the last change (or of creation)
	changes chan bool

	mu     sync.Mutex
	cancel context.CancelFunc
	done   chan struct{}

	// Owned by the election's goroutine (and by Start before it exists).
	conn    *pgx.Conn
	key     int64
	failing bool // the last connect failed (logged once per outage)
}

// Leadership is this instance's candidacy for running the jobs of the
// store's schema; identity names it in logs and, on PostgreSQL, as the
// application_name of its session ("" is host:pid). Nothing happens until
// Start.
func (s *Store) Leadership(identity string, opt LeaderOptions) *Leadership {
	if identity == "" {
		host, _ := os.Hostname()
		identity = fmt.Sprintf("%s:%d", host, os.Getpid())
	}
	if opt.Interval <= 0 {
		opt.Interval = 2 * time.Second
	}
	if opt.Log == nil {
		opt.Log = slog.New(slog.DiscardHandler)
	}
	l := &Leadership{store: s, identity: identity, interval: opt.Interval, log: opt.Log, onChange: opt.OnChange,
		always: s.dialect != postgresDialect, changes: make(chan bool, 1)}
	l.since.Store(time.Now().UnixNano())
	if l.always {
		l.leader.Store(true)
	}
	return l
}

// Identity is the name this candidate goes by.
func (l *Leadership) Identity() string { return l.identity }

// IsLeader reports whether this instance leads now.
func (l *Leadership) IsLeader() bool { return l.leader.Load() }

// Since is when IsLeader last changed (or when the Leadership was made).
func (l *Leadership) Since() time.Time { return time.Unix(0, l.since.Load()) }

// Changes delivers the new state at each change of leadership, for one
// reader: the channel holds the latest state only, so a slow reader skips
// states it did not read in time (it can always ask IsLeader). The
// jobs.Runner given this Leadership is that reader. On SQLite it never
// delivers: the instance leads from the start.
func (l *Leadership) Changes() <-chan bool { return l.changes }

// Start makes a first attempt at once, so a lone instance leads when
// Start returns, then polls every interval until ctx ends or Stop. On
// SQLite it does nothing.
func (l *Leadership) Start(ctx context.Context) {
	if l.always {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done != nil {
		return
	}
	ctx, l.cancel = context.WithCancel(ctx)
	l.done = make(chan struct{})
	l.poll(ctx)
	go l.run(ctx)
}

// Stop ends the candidacy: a leader releases the lock (its session ends),
// so another instance takes over at its next poll. IsLeader is false once
// Stop returns (on PostgreSQL).
func (l *Leadership) Stop() {
	l.mu.Lock()
	cancel, done := l.cancel, l.done
	l.mu.Unlock()
	if cancel == nil {
		return
	}
	cancel()
	<-done
}

func (l *Leadership) run(ctx context.Context) {
	defer close(l.done)
	defer l.drop("stopped", nil)
	t := time.NewTicker(l.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			l.poll(ctx)
		}
	}
}

// poll is one round: connect if need be; a leader checks it still holds
// the lock, a follower tries to take it. Any error ends the session (a
// leader stops leading at once) and the next poll reconnects.
func (l *Leadership) poll(ctx context.Context) {
	if ctx.Err() != nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, pollTimeout)
	defer cancel()
	if l.conn == nil {
		if err := l.connect(ctx); err != nil {
			if !l.failing {
				l.log.Warn("leader election: cannot connect; retrying every interval", "id", l.identity, "db", l.store.path, "err", err)
			}
			l.failing = true
			return
		}
		l.failing = false
	}
	if l.leader.Load() {
		var held bool
		err := l.conn.QueryRow(ctx, heldSQL, l.key).Scan(&held)
		switch {
		case err != nil:
			l.drop("lost the connection", err)
		case !held:
			l.drop("lost the lock", nil)
		}
		return
	}
	var got bool
	if err := l.conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, l.key).Scan(&got); err != nil {
		l.drop("lost the connection", err)
		return
	}
	if got {
		l.set(true)
		l.log.Info("leader election: this instance leads", "id", l.identity, "db", l.store.path)
	}
}

// heldSQL asks whether this session holds the advisory lock $1. A bigint
// key k is shown in pg_locks as classid = its high 32 bits and objid = its
// low 32 bits (both oid, unsigned), with objsubid 1 (2 is the two-int4
// form); int8 << does not check overflow, so the expression is k itself for
// negative keys too.
const heldSQL = `SELECT EXISTS (SELECT 1 FROM pg_locks
	WHERE locktype = 'advisory' AND objsubid = 1
	  AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
	  AND ((classid::bigint << 32) | objid::bigint) = $1
	  AND pid = pg_backend_pid() AND granted)`

// connect opens the election's own session: the store's connection
// settings (read from one of its pooled connections, password and all,
// never logged) plus keepalives that let the server notice a vanished
// host, and the candidate's identity as application_name.
func (l *Leadership) connect(ctx context.Context) error {
	var cfg *pgx.ConnConfig
	c, err := l.store.w.Conn(ctx)
	if err != nil {
		return err
	}
	err = pgConn(c, func(pc *pgx.Conn) error { cfg = pc.Config(); return nil })
	c.Close()
	if err != nil {
		return err
	}
	if cfg.RuntimeParams == nil {
		cfg.RuntimeParams = map[string]string{}
	}
	cfg.RuntimeParams["tcp_keepalives_idle"] = "10"
	cfg.RuntimeParams["tcp_keepalives_interval"] = "5"
	cfg.RuntimeParams["tcp_keepalives_count"] = "3"
	cfg.RuntimeParams["application_name"] = "mdqs leader " + l.identity // the server keeps 63 bytes
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return err
	}
	var schema sql.NullString
	if err := conn.QueryRow(ctx, `SELECT current_schema()`).Scan(&schema); err != nil || !schema.Valid {
		conn.Close(context.WithoutCancel(ctx))
		return errors.Join(errors.New("no current schema"), err)
	}
	l.conn, l.key = conn, lockKey(leaderLockKey, schema.String)
	return nil
}

// drop ends the session (freeing the lock if it held it) and, if this
// instance led, makes it a follower.
func (l *Leadership) drop(why string, err error) {
	if l.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		l.conn.Close(ctx)
		cancel()
		l.conn = nil
	}
	switch {
	case l.leader.Load() && err == nil && why == "stopped":
		l.set(false)
		l.log.Info("leader election: this instance stopped leading", "id", l.identity, "db", l.store.path)
	case l.leader.Load():
		l.set(false)
		l.log.Warn("leader election: this instance no longer leads", "id", l.identity, "db", l.store.path, "why", why, "err", err)
	case err != nil:
		l.log.Warn("leader election: "+why, "id", l.identity, "db", l.store.path, "err", err)
	}
}

// set records a change; only the election's goroutine calls it, so the
// drain-then-send on changes never blocks.
func (l *Leadership) set(v bool) {
	if l.leader.Swap(v) == v {
		return
	}
	l.since.Store(time.Now().UnixNano())
	select {
	case <-l.changes:
	default:
	}
	l.changes <- v
	if l.onChange != nil {
		l.onChange(v)
	}
}

// LeaderIdentity is the identity of the instance leading the store's
// election now, "" if none does (or, on SQLite, this process's own).
func (l *Leadership) LeaderIdentity(ctx context.Context) (string, error) {
	if l.always {
		return l.identity, nil
	}
	var schema string
	if err := l.store.r.QueryRowContext(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		return "", classify(err, "leader")
	}
	var name sql.NullString
	err := l.store.r.QueryRowContext(ctx, `SELECT a.application_name FROM pg_locks k JOIN pg_stat_activity a ON a.pid = k.pid
		WHERE k.locktype = 'advisory' AND k.objsubid = 1 AND k.granted
		  AND k.database = (SELECT oid FROM pg_database WHERE datname = current_database())
		  AND ((k.classid::bigint << 32) | k.objid::bigint) = ?`, lockKey(leaderLockKey, schema)).Scan(&name)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", classify(err, "leader")
	}
	const prefix = "mdqs leader "
	if len(name.String) >= len(prefix) && name.String[:len(prefix)] == prefix {
		return name.String[len(prefix):], nil
	}
	return name.String, nil
}
