-- mdqs schema: the single source of the database layout.
--
-- Each "-- version N" section is a migration. At open, every section whose
-- number is above PRAGMA user_version is applied in order, each in its own
-- transaction together with the user_version bump, so a crash leaves the
-- database at the previous version, never half-migrated. Sections are never
-- edited once released; a change is a new section.
--
-- Times are INTEGER Unix milliseconds unless a column says otherwise. SQL stays
-- plain so that the same tables can move to PostgreSQL later.

-- version 1
CREATE TABLE clients (
    id           TEXT PRIMARY KEY,
    secret_hash  TEXT NOT NULL,
    scopes       INTEGER NOT NULL,
    enabled      INTEGER NOT NULL DEFAULT 1,
    expires_at   INTEGER,
    api_key_hash TEXT,
    enable_log   INTEGER NOT NULL DEFAULT 0,
    created_at   INTEGER NOT NULL,
    updated_at   INTEGER NOT NULL
);

CREATE TABLE tokens (
    id         INTEGER PRIMARY KEY,
    hash       TEXT NOT NULL UNIQUE,
    client_id  TEXT NOT NULL REFERENCES clients(id) ON DELETE CASCADE,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
);
CREATE INDEX tokens_by_client ON tokens(client_id, created_at, id);
CREATE INDEX tokens_by_expiry ON tokens(expires_at);

-- Counters shared between processes on the same file; auth_revision moves
-- whenever a client changes, so a running server learns of a client disabled
-- from the command line.
CREATE TABLE counters (
    name  TEXT PRIMARY KEY,
    value INTEGER NOT NULL
);
INSERT INTO counters(name, value) VALUES ('auth_revision', 0);

-- version 2
-- One row per collection of one sector family from one source, and one row
-- per sector per collection. trade_day is the day the data is of (from the
-- upstream's own timestamp), as YYYYMMDD.
CREATE TABLE snapshot_runs (
    id           INTEGER PRIMARY KEY,
    kind         TEXT NOT NULL,
    source       TEXT NOT NULL,
    trade_day    INTEGER NOT NULL,
    as_of        INTEGER NOT NULL,
    collected_at INTEGER NOT NULL,
    row_count    INTEGER NOT NULL
);
CREATE INDEX snapshot_runs_latest ON snapshot_runs(kind, source, trade_day, collected_at);

-- Sectors are keyed by name within a collection: names are what the
-- ranking merges on, and an akshare row may lack a code.
CREATE TABLE sector_snapshots (
    run_id         INTEGER NOT NULL REFERENCES snapshot_runs(id) ON DELETE CASCADE,
    name           TEXT NOT NULL,
    code           TEXT NOT NULL,
    price          REAL,
    pct            REAL,
    amount         REAL,
    turnover       REAL,
    main_net       REAL,
    main_net_ratio REAL,
    up             INTEGER NOT NULL,
    down           INTEGER NOT NULL,
    flat           INTEGER NOT NULL,
    leader_code    TEXT NOT NULL,
    leader_name    TEXT NOT NULL,
    leader_pct     REAL,
    PRIMARY KEY (run_id, name)
) WITHOUT ROWID;

-- The end-of-day copy of each day's ranking lists (spec 4.3 rule 8).
CREATE TABLE daily_rankings (
    trade_day   INTEGER NOT NULL,
    list_type   TEXT NOT NULL,
    rank        INTEGER NOT NULL,
    sector_name TEXT NOT NULL,
    count       INTEGER NOT NULL,
    pct         REAL,
    turnover    REAL,
    main_net    REAL,
    flow        TEXT NOT NULL,
    signal      TEXT NOT NULL,
    signal_rank INTEGER NOT NULL,
    flow_tag    TEXT NOT NULL,
    source      TEXT NOT NULL,
    updated_ms  INTEGER NOT NULL,
    ts          INTEGER NOT NULL,
    PRIMARY KEY (trade_day, list_type, rank)
) WITHOUT ROWID;

-- Exchange holidays added after the build (mdqs calendar import).
CREATE TABLE exchange_holidays (
    day  INTEGER PRIMARY KEY,
    name TEXT NOT NULL
);

-- version 3
-- Movement events: the first time each sector reaches a movement threshold
-- on a trading day, one row per trigger. The unique key makes a later
-- crossing (and any replay after a restart) a no-op, so event_ms is written
-- once. event_ms is unique and increasing in commit order within a day, which
-- makes it a gap-free cursor for incremental pulling.
CREATE TABLE movement_events (
    id         INTEGER PRIMARY KEY,
    trade_day  INTEGER NOT NULL,
    kind       TEXT NOT NULL,
    source     TEXT NOT NULL,
    board_code TEXT NOT NULL,
    board_name TEXT NOT NULL,
    trigger    TEXT NOT NULL,
    direction  TEXT NOT NULL,
    pct        REAL,
    main_net   REAL,
    delta      REAL,
    event_ms   INTEGER NOT NULL,
    UNIQUE (trade_day, kind, source, board_name, trigger)
);
CREATE INDEX movement_events_timeline ON movement_events(trade_day, event_ms);

-- version 4
-- Bars of every frequency, keyed in the order they are read (one code's
-- series in time order), WITHOUT ROWID so the key is the table. Prices are
-- INTEGER ten-thousandths of a yuan (exact for every A-share tick size and
-- about 20 % smaller on disk than REAL), volumes INTEGER shares; NULL marks
-- an unknown optional measure. freq is the bar length in minutes (1, 5;
-- 1440 for a daily bar); ts is Unix seconds when the bar closes.
CREATE TABLE bars (
    code            TEXT NOT NULL,
    freq            INTEGER NOT NULL,
    ts              INTEGER NOT NULL,
    trade_date      INTEGER NOT NULL,
    open            INTEGER NOT NULL,
    high            INTEGER NOT NULL,
    low             INTEGER NOT NULL,
    close           INTEGER NOT NULL,
    volume          INTEGER NOT NULL,
    amount          REAL NOT NULL,
    turnover_rate   REAL,
    large_order_net REAL,
    source          TEXT NOT NULL,
    PRIMARY KEY (code, freq, ts)
) WITHOUT ROWID;

-- The span of trade days whose bars of a code and frequency are complete in
-- the store, so a query knows what it must fetch and a backfill where to
-- resume.
CREATE TABLE bar_coverage (
    code       TEXT NOT NULL,
    freq       INTEGER NOT NULL,
    first_day  INTEGER NOT NULL,
    last_day   INTEGER NOT NULL,
    source     TEXT NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (code, freq)
) WITHOUT ROWID;

-- The securities the service knows, from the quote list, the demo market or
-- the terminal's name files.
CREATE TABLE stocks (
    code         TEXT PRIMARY KEY,
    name         TEXT NOT NULL,
    exchange     TEXT NOT NULL,
    type         TEXT NOT NULL,
    industry     TEXT NOT NULL DEFAULT '',
    listed_day   INTEGER,
    float_shares REAL,
    source       TEXT NOT NULL,
    updated_at   INTEGER NOT NULL
) WITHOUT ROWID;

-- The daily derived-signal snapshot an end-of-day job fills per stock.
CREATE TABLE daily_signals (
    code                    TEXT NOT NULL,
    trade_date              INTEGER NOT NULL,
    close                   REAL,
    pct                     REAL,
    micro_vol_ratio         REAL,
    vol_acc                 REAL,
    time_adjusted_vol_ratio REAL,
    price_speed_ratio       REAL,
    trend_strength          REAL,
    computed_at             INTEGER NOT NULL,
    PRIMARY KEY (code, trade_date)
) WITHOUT ROWID;

-- Chip-distribution metrics per stock, day and window, from the end-of-day
-- job; keyed by day first, since queries list one day's snapshot.
CREATE TABLE chip_metrics (
    trade_date       INTEGER NOT NULL,
    window_days      INTEGER NOT NULL,
    code             TEXT NOT NULL,
    days             INTEGER NOT NULL,
    close            REAL,
    avg_cost         REAL,
    profit_ratio     REAL,
    cost70_low       REAL,
    cost70_high      REAL,
    concentration70  REAL,
    cost90_low       REAL,
    cost90_high      REAL,
    concentration90  REAL,
    peak_price       REAL,
    computed_at      INTEGER NOT NULL,
    PRIMARY KEY (trade_date, window_days, code)
) WITHOUT ROWID;
