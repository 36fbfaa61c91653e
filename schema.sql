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

-- version 5
-- Hot rank, news and financial reports (spec 2.5, 2.6, 4.6-4.8).
--
-- The hot rank (EastMoney's popularity list) of a day, one row per stock:
-- an import upserts by (trade_date, code), so the day keeps the last list
-- collected on it. trade_date is the Shanghai calendar day of the
-- collection as YYYYMMDD; code is canonical (600519.SH). heat is derived
-- from the rank (the upstream publishes ranks only; see hotrank.HeatOf).
CREATE TABLE hot_rank (
    trade_date INTEGER NOT NULL,
    code       TEXT NOT NULL,
    name       TEXT NOT NULL,
    rank       INTEGER NOT NULL,
    heat       INTEGER NOT NULL,
    source     TEXT NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (trade_date, code)
) WITHOUT ROWID;
CREATE INDEX hot_rank_by_rank ON hot_rank(trade_date, rank);
CREATE INDEX hot_rank_by_code ON hot_rank(code, trade_date);

-- One row per import run of hot rank, news or financial reports: what it
-- asked for (scope: the date, the feeds or the period), what it stored and
-- which pages failed. Jobs read it to know whether a run is still due.
CREATE TABLE info_imports (
    id          INTEGER PRIMARY KEY,
    kind        TEXT NOT NULL,
    source      TEXT NOT NULL,
    scope       TEXT NOT NULL,
    started_at  INTEGER NOT NULL,
    finished_at INTEGER NOT NULL,
    pages       INTEGER NOT NULL,
    failed      INTEGER NOT NULL,
    fetched     INTEGER NOT NULL,
    inserted    INTEGER NOT NULL,
    updated     INTEGER NOT NULL,
    unchanged   INTEGER NOT NULL,
    removed     INTEGER NOT NULL,
    complete    INTEGER NOT NULL,
    error       TEXT NOT NULL
);
CREATE INDEX info_imports_latest ON info_imports(kind, scope, finished_at);

-- News items, unique per upstream item (feed, upstream_id), so a re-fetch
-- updates instead of duplicating. type: 1 flash news, 2 company
-- announcement (see news.Types). tags and codes are JSON arrays of text;
-- news_codes indexes the codes for the code filter. published_day is the
-- Shanghai day of published_at (ms), for the date filter.
CREATE TABLE news (
    id            INTEGER PRIMARY KEY,
    feed          TEXT NOT NULL,
    upstream_id   TEXT NOT NULL,
    type          INTEGER NOT NULL,
    title         TEXT NOT NULL,
    summary       TEXT NOT NULL,
    body          TEXT NOT NULL,
    url           TEXT NOT NULL,
    tags          TEXT NOT NULL,
    codes         TEXT NOT NULL,
    published_at  INTEGER NOT NULL,
    published_day INTEGER NOT NULL,
    fetched_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL,
    UNIQUE (feed, upstream_id)
);
CREATE INDEX news_by_time ON news(published_at, id);
CREATE INDEX news_by_type ON news(type, published_at, id);
CREATE INDEX news_by_day ON news(published_day, published_at, id);

CREATE TABLE news_codes (
    code    TEXT NOT NULL,
    news_id INTEGER NOT NULL REFERENCES news(id) ON DELETE CASCADE,
    PRIMARY KEY (code, news_id)
) WITHOUT ROWID;
CREATE INDEX news_codes_by_news ON news_codes(news_id);

-- Full-text index of news titles and bodies; rowid is news.id. FTS5's
-- tokenizer keeps a run of Chinese characters as one token, so the store
-- writes the text segmented (each CJK character a token, see
-- db.ftsSegment) and a query becomes a phrase of the same tokens: a
-- substring search that uses the index. db/news.go keeps it in step with
-- news in the same transaction as every write.
CREATE VIRTUAL TABLE news_fts USING fts5(title, body, tokenize = 'unicode61 remove_diacritics 2');

-- Main indicators of the periodic reports, one row per stock and report
-- period (period is the period-end day YYYYMMDD: 20240930 is 2024Q3).
-- Values are cumulative for the year to date, as the reports publish
-- them; NULL is unknown. Money in yuan, ratios and growth in percent.
CREATE TABLE financial_reports (
    code           TEXT NOT NULL,
    period         INTEGER NOT NULL,
    name           TEXT NOT NULL,
    notice_date    INTEGER,
    revenue        REAL,
    revenue_yoy    REAL,
    revenue_qoq    REAL,
    net_profit     REAL,
    net_profit_yoy REAL,
    net_profit_qoq REAL,
    eps            REAL,
    eps_deducted   REAL,
    bps            REAL,
    roe            REAL,
    gross_margin   REAL,
    ocf_per_share  REAL,
    industry       TEXT NOT NULL,
    source         TEXT NOT NULL,
    updated_at     INTEGER NOT NULL,
    PRIMARY KEY (code, period)
) WITHOUT ROWID;
CREATE INDEX financial_reports_by_period ON financial_reports(period, code);

-- version 6
-- Blocks from the terminal (and any later source): one row per block, its
-- members in block_members. A refresh swaps a source's whole set at once.
CREATE TABLE blocks (
    kind         TEXT NOT NULL,
    name         TEXT NOT NULL,
    full_name    TEXT NOT NULL DEFAULT '',
    code         TEXT NOT NULL DEFAULT '',
    parent       TEXT NOT NULL DEFAULT '',
    truncated    INTEGER NOT NULL DEFAULT 0,
    member_count INTEGER NOT NULL,
    source       TEXT NOT NULL,
    updated_at   INTEGER NOT NULL,
    PRIMARY KEY (kind, name)
) WITHOUT ROWID;

CREATE TABLE block_members (
    kind   TEXT NOT NULL,
    block  TEXT NOT NULL,
    code   TEXT NOT NULL,
    source TEXT NOT NULL,
    PRIMARY KEY (kind, block, code)
) WITHOUT ROWID;
CREATE INDEX block_members_by_code ON block_members(code);

-- What the last terminal import saw of each file (path relative to the
-- terminal folder), so the next one reads only files whose size or
-- modification time changed.
CREATE TABLE tdx_files (
    path        TEXT PRIMARY KEY,
    kind        TEXT NOT NULL,
    size        INTEGER NOT NULL,
    mtime       INTEGER NOT NULL,
    records     INTEGER NOT NULL,
    error       TEXT NOT NULL DEFAULT '',
    imported_at INTEGER NOT NULL
) WITHOUT ROWID;

-- version 7
-- Screener jobs and their results. A client's idempotency key names one
-- job; the partial index lets jobs without a key repeat freely.
CREATE TABLE screener_jobs (
    id              TEXT PRIMARY KEY,
    client_id       TEXT NOT NULL,
    state           TEXT NOT NULL,
    expression      TEXT NOT NULL,
    universe        TEXT NOT NULL,
    sort            TEXT NOT NULL,
    row_limit       INTEGER NOT NULL,
    idempotency_key TEXT NOT NULL,
    fields          TEXT NOT NULL,
    done            INTEGER NOT NULL,
    total           INTEGER NOT NULL,
    matched         INTEGER NOT NULL,
    error           TEXT NOT NULL,
    created_at      INTEGER NOT NULL,
    started_at      INTEGER,
    finished_at     INTEGER
);
CREATE INDEX screener_jobs_by_client ON screener_jobs(client_id, state);
CREATE UNIQUE INDEX screener_jobs_idempotency ON screener_jobs(client_id, idempotency_key) WHERE idempotency_key != '';

CREATE TABLE screener_results (
    job_id      TEXT NOT NULL REFERENCES screener_jobs(id) ON DELETE CASCADE,
    rank        INTEGER NOT NULL,
    code        TEXT NOT NULL,
    name        TEXT NOT NULL,
    fields_json TEXT NOT NULL,
    PRIMARY KEY (job_id, rank)
) WITHOUT ROWID;

-- version 8
-- Facts about the store itself. 'market' is what it holds: 'demo' (the
-- built-in synthetic market) or 'live' (upstreams and the terminal),
-- recorded when a server or command first opens it for one of them (an
-- older file's is inferred from its rows) and checked at every open after,
-- so the demo market's synthetic rows are never served as live numbers.
CREATE TABLE store_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

-- version 9
-- How far a day's movement timeline of a source that can replay its
-- session (the demo market) is complete: every minute through through_ms
-- was checked, so the events endpoint replays only what comes after, and
-- a past day's timeline is made once.
CREATE TABLE movement_timelines (
    trade_day  INTEGER NOT NULL,
    source     TEXT NOT NULL,
    through_ms INTEGER NOT NULL,
    PRIMARY KEY (trade_day, source)
) WITHOUT ROWID;

-- version 10
-- Screens shared by several instances on one store. A running job has an
-- owner (the instance evaluating it) and a lease it renews while it
-- evaluates; a job whose lease ended is its owner's loss (a crash) and goes
-- back to the queue, counted in attempts, and fails at the third loss. An
-- owner that stops cleanly gives its lease up (owner '', lease 0), which
-- requeues the job at once without counting it.
ALTER TABLE screener_jobs ADD COLUMN owner TEXT NOT NULL DEFAULT '';
ALTER TABLE screener_jobs ADD COLUMN lease_until INTEGER NOT NULL DEFAULT 0;
ALTER TABLE screener_jobs ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
CREATE INDEX screener_jobs_by_state ON screener_jobs(state, lease_until);

-- version 11
-- Corporate actions as their source gives them (a terminal's gbbq:
-- category 1 除权除息, the others share-capital changes), kept whole per
-- source so adjusted prices can be recomputed whenever the file changes.
-- f1..f4 are the record's float32 values widened exactly. seq numbers
-- records that share (code, day, category) in file order: the bundled files
-- never have two, but a key that rejected a newer file's would lose it.
-- actions_revision moves with every change, so adjusted series cached
-- against one version of the actions are recomputed.
CREATE TABLE corporate_actions (
    code     TEXT NOT NULL,
    source   TEXT NOT NULL,
    day      INTEGER NOT NULL,
    category INTEGER NOT NULL,
    seq      INTEGER NOT NULL,
    f1       REAL NOT NULL,
    f2       REAL NOT NULL,
    f3       REAL NOT NULL,
    f4       REAL NOT NULL,
    PRIMARY KEY (code, source, day, category, seq)
) WITHOUT ROWID;
INSERT INTO counters(name, value) VALUES ('actions_revision', 0);

-- version 12
-- Standing screens: a client's expression over a universe, evaluated at
-- every quote refresh inside the trading window. A code's first match
-- fires an event, and the code stays quiet for the alert's cooldown
-- (alert_fires keeps the last firing per alert and code). Events are
-- numbered for a since= cursor, as movement events are.
CREATE TABLE alerts (
    id          TEXT PRIMARY KEY,
    client_id   TEXT NOT NULL,
    name        TEXT NOT NULL,
    expression  TEXT NOT NULL,
    universe    TEXT NOT NULL,
    cooldown_ms INTEGER NOT NULL,
    created_at  INTEGER NOT NULL,
    deleted_at  INTEGER
);
CREATE INDEX alerts_by_client ON alerts(client_id);

CREATE TABLE alert_fires (
    alert_id TEXT NOT NULL REFERENCES alerts(id) ON DELETE CASCADE,
    code     TEXT NOT NULL,
    fired_ms INTEGER NOT NULL,
    PRIMARY KEY (alert_id, code)
) WITHOUT ROWID;

CREATE TABLE alert_events (
    id        INTEGER PRIMARY KEY,
    alert_id  TEXT NOT NULL,
    client_id TEXT NOT NULL,
    code      TEXT NOT NULL,
    name      TEXT NOT NULL,
    fired_ms  INTEGER NOT NULL,
    fields    TEXT NOT NULL
);
CREATE INDEX alert_events_by_client ON alert_events(client_id, id);

-- version 13
-- The nonces of signed requests that must outlive this process (issue 27):
-- a lone server writes here only the requests dated ahead of its clock,
-- the ones its start-up rule cannot refuse after a restart. key is the
-- token's hash prefix and the nonce; expires_at (Unix ms) is when the
-- request's timestamp stops passing the skew check.
CREATE TABLE nonces (
    key        TEXT PRIMARY KEY,
    expires_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX nonces_by_expiry ON nonces(expires_at);

-- version 14
-- Listing days as each source states them (issue 28): the terminal's
-- base.dbf (SSDATE) knows many that its gbbq has no listing record for.
-- An import replaces its source's rows whole.
CREATE TABLE listing_days (
    code   TEXT NOT NULL,
    source TEXT NOT NULL,
    day    INTEGER NOT NULL,
    PRIMARY KEY (code, source)
) WITHOUT ROWID;

-- version 15
-- The security master's timeline (issue 28): what each code was on each
-- day a source recorded. A span says field had value from first_day to
-- last_day, both recorded days of source; last_day is NULL while the span
-- goes on (to the source's last recorded day), so a day on which nothing
-- changes writes nothing but its security_days row. field: listed (value
-- ''), name, st ('ST' or '*ST'), suspended (value ''). security_days
-- lists the days each source recorded, so a day it missed is known.
CREATE TABLE security_spans (
    code      TEXT NOT NULL,
    field     TEXT NOT NULL,
    value     TEXT NOT NULL,
    first_day INTEGER NOT NULL,
    last_day  INTEGER,
    source    TEXT NOT NULL,
    PRIMARY KEY (code, field, source, first_day)
) WITHOUT ROWID;
CREATE INDEX security_spans_by_day ON security_spans(source, last_day, first_day);

CREATE TABLE security_days (
    day         INTEGER NOT NULL,
    source      TEXT NOT NULL,
    codes       INTEGER NOT NULL,
    recorded_at INTEGER NOT NULL,
    PRIMARY KEY (day, source)
) WITHOUT ROWID;

-- version 16
-- The exchanges' lists of delisted companies (issue 28), as each states
-- them: source is the list (szse, sse), name the last short name it gives,
-- listed_day and delisted_day its days (NULL where it says "-"),
-- fetched_at (Unix ms) when the list was read. A fetch replaces its
-- source's rows whole.
CREATE TABLE delistings (
    code         TEXT NOT NULL,
    source       TEXT NOT NULL,
    name         TEXT NOT NULL,
    listed_day   INTEGER,
    delisted_day INTEGER,
    fetched_at   INTEGER NOT NULL,
    PRIMARY KEY (code, source)
) WITHOUT ROWID;

-- version 17
-- The exchanges' lists of short-name changes (issue 28), as each states
-- them: on day (0 where the list says "-") code's short name went from
-- name_before to name_after; source is the list (szse), fetched_at (Unix
-- ms) when it was read. A code may change twice on one day, so the new
-- name is part of the key. A fetch replaces its source's rows whole.
CREATE TABLE name_changes (
    code        TEXT NOT NULL,
    source      TEXT NOT NULL,
    day         INTEGER NOT NULL,
    name_before TEXT NOT NULL,
    name_after  TEXT NOT NULL,
    fetched_at  INTEGER NOT NULL,
    PRIMARY KEY (code, source, day, name_after)
) WITHOUT ROWID;

-- version 18
-- The packed minute store (issue 29): one record per code, frequency
-- (minutes a bar) and trading day, the day's bars in internal/minutepack's
-- layout, whose header states its own version. A rowid table (its key an
-- index beside it), not WITHOUT ROWID: a day's record is 1.5 to 2.5 KB,
-- and a WITHOUT ROWID table keeps at most about a quarter page of a row
-- in its leaf, spilling the rest into overflow pages of their own (19.4
-- bytes a bar measured, against 9.2 this way for the same records).
CREATE TABLE minute_days (
    code   TEXT NOT NULL,
    freq   INTEGER NOT NULL,
    day    INTEGER NOT NULL,
    bars   INTEGER NOT NULL,
    data   BLOB NOT NULL,
    source TEXT NOT NULL,
    PRIMARY KEY (code, freq, day)
);

-- version 19
-- A day's records of every code (issue 29's cross-section at one minute,
-- GET /v1/api/bars/minute): one index scan of the day rather than a
-- primary-key lookup per code. An entry is a few bytes for a record of
-- 240 bars, so it weighs about 0.1 byte a bar.
CREATE INDEX minute_days_day ON minute_days(day, freq);

-- version 20
-- The intraday rows of bars (1m, 5m) move into minute_days (issue 29):
-- each code's days packed into records by the Go step below, the rows
-- deleted, in this version's one transaction. From here on IngestBars and
-- Bars keep intraday bars in minute_days; bars holds the daily ones.
-- go: pack_minute_rows

-- version 21
-- The minute archive's record (issue 30): one row per trading day and code
-- the archive job has dealt with, written in the same transaction as the
-- day's bars, so a job killed anywhere resumes at the first code without
-- a row. status: archived (checked and kept), flagged (kept, but a check
-- failed: reason says which), gap (no source had the day: reason says
-- why). freq: 1 for 1-minute bars, 5 for 5-minute only, 0 for a gap.
-- opens: 1 when the source gave every bar's open, 0 when they were
-- derived (trends2 gives 0.00 opens for every day but its latest).
-- checked_at: Unix ms.
CREATE TABLE archive_days (
    day        INTEGER NOT NULL,
    code       TEXT NOT NULL,
    status     TEXT NOT NULL,
    freq       INTEGER NOT NULL,
    bars       INTEGER NOT NULL,
    opens      INTEGER NOT NULL,
    source     TEXT NOT NULL,
    reason     TEXT NOT NULL,
    checked_at INTEGER NOT NULL,
    PRIMARY KEY (day, code)
) WITHOUT ROWID;

-- version 22
-- The day index carries each record's bar count, so the minute store's
-- bars are counted from the index alone (GET /v1/api/archive/status): a
-- sum over the table reads every 1.7 KB row, 0.55 s for five days of a
-- whole market.
DROP INDEX minute_days_day;
CREATE INDEX minute_days_day ON minute_days(day, freq, bars);

-- version 23
-- Where an archive record came from: '' for this install's own archive
-- job, else the other archive `mdqs archive merge -from` filled the day
-- from (a file, or a server's URL without its password). source still
-- names the upstream the bars first came from.
ALTER TABLE archive_days ADD COLUMN origin TEXT NOT NULL DEFAULT '';

-- version 24
-- Index membership with history (issue 31). index_observations lists each
-- day an index's member list was seen: the store's source (tdx, demo), the
-- file it came from (spblock.dat, infoharbor_block.dat, block_zs.dat, or
-- "demo market"), the block's name there, how many members, whether that
-- file caps its lists at 400 (block_zs.dat) and when it was recorded (Unix
-- ms). index_member_spans says code was a member from first_day to
-- last_day, both observed days of the index; last_day is NULL while the
-- member is in the latest observation, so an observation that changes
-- nothing writes only its index_observations row. A member in on one
-- observation and out on the next left between the two.
CREATE TABLE index_observations (
    index_code  TEXT NOT NULL,
    day         INTEGER NOT NULL,
    source      TEXT NOT NULL,
    file        TEXT NOT NULL,
    block       TEXT NOT NULL,
    members     INTEGER NOT NULL,
    capped      INTEGER NOT NULL,
    recorded_at INTEGER NOT NULL,
    PRIMARY KEY (index_code, day)
) WITHOUT ROWID;

CREATE TABLE index_member_spans (
    index_code TEXT NOT NULL,
    code       TEXT NOT NULL,
    first_day  INTEGER NOT NULL,
    last_day   INTEGER,
    PRIMARY KEY (index_code, code, first_day)
) WITHOUT ROWID;
CREATE INDEX index_member_spans_open ON index_member_spans(index_code, last_day);

-- version 25
-- The dragon-tiger list, 龙虎榜 (issue 31). lhb_days has one row per
-- trading day whose list was imported: a day without a row is not
-- imported yet, a row with listings = 0 is a day that had no list. An
-- import replaces the day's rows of all three tables in one transaction.
-- lhb_listings: one row per stock and listing reason (the exchanges' 上榜
-- 原因), amounts in yuan, rates in percent. lhb_seats: one row per seat and
-- side of a stock-day, the rows a seat repeats under each reason merged
-- (reasons: the reasons' texts joined by newlines; seq tells apart two
-- rows of one seat that are different trades, such as two 机构专用
-- seats, or a one-day and a three-day reason). imported_at: Unix ms.
CREATE TABLE lhb_days (
    day         INTEGER PRIMARY KEY,
    listings    INTEGER NOT NULL,
    stocks      INTEGER NOT NULL,
    seats       INTEGER NOT NULL,
    source      TEXT NOT NULL,
    imported_at INTEGER NOT NULL
);
CREATE TABLE lhb_listings (
    day         INTEGER NOT NULL,
    code        TEXT NOT NULL,
    reason      TEXT NOT NULL,
    reason_code TEXT NOT NULL,
    trade_id    TEXT NOT NULL,
    name        TEXT NOT NULL,
    reading     TEXT NOT NULL,
    board       TEXT NOT NULL,
    close       REAL,
    change_pct  REAL,
    turnover    REAL,
    buy         REAL,
    sell        REAL,
    net         REAL,
    deal        REAL,
    amount      REAL,
    net_pct     REAL,
    deal_pct    REAL,
    float_cap   REAL,
    PRIMARY KEY (day, code, reason)
) WITHOUT ROWID;
CREATE INDEX lhb_listings_code ON lhb_listings(code, day);
CREATE TABLE lhb_seats (
    day       INTEGER NOT NULL,
    code      TEXT NOT NULL,
    side      TEXT NOT NULL,
    seq       INTEGER NOT NULL,
    seat_code TEXT NOT NULL,
    seat_name TEXT NOT NULL,
    stock_name TEXT NOT NULL,
    buy       REAL,
    sell      REAL,
    net       REAL,
    buy_pct   REAL,
    sell_pct  REAL,
    reasons   TEXT NOT NULL,
    PRIMARY KEY (day, code, side, seq)
) WITHOUT ROWID;
CREATE INDEX lhb_seats_name ON lhb_seats(seat_name, day);

-- version 26
-- EastMoney's published limit pools (push2ex, issue 31), kept per trading
-- day to compare with the pools mdqs derives. published_pool_days has one
-- row per day and kind (up, broken, down, yesterday) imported: day is the
-- pool's own day (the reply's qdate, never merely the date asked, which
-- is asked), total its row count (tc), imported_at Unix ms. A day's import
-- replaces all its kinds in one transaction. published_pool_rows: one row
-- per stock of a pool, prices in yuan (the wire's price x 1000 divided
-- back), seal times in seconds after midnight Shanghai as the source gives
-- them (to the second), NULL where the pool does not send the field.
CREATE TABLE published_pool_days (
    day         INTEGER NOT NULL,
    kind        TEXT NOT NULL,
    total       INTEGER NOT NULL,
    asked       INTEGER NOT NULL,
    source      TEXT NOT NULL,
    imported_at INTEGER NOT NULL,
    PRIMARY KEY (day, kind)
) WITHOUT ROWID;
CREATE TABLE published_pool_rows (
    day          INTEGER NOT NULL,
    kind         TEXT NOT NULL,
    code         TEXT NOT NULL,
    name         TEXT NOT NULL,
    industry     TEXT NOT NULL,
    price        REAL,
    limit_price  REAL,
    change_pct   REAL,
    amount       REAL,
    float_cap    REAL,
    turnover     REAL,
    seal_fund    REAL,
    boards       INTEGER,
    first_seal   INTEGER,
    last_seal    INTEGER,
    opened_times INTEGER,
    count_days   INTEGER,
    count_up     INTEGER,
    PRIMARY KEY (day, kind, code)
) WITHOUT ROWID;

-- version 27
-- Every terminal file is read again at the next refresh (issue 32): the
-- import now stores the values the files hold as float32 (gbbq values,
-- .day and minute amounts) as their shortest decimals, 84.78 rather than
-- 84.77999877929688, and a repo's volumes in pieces of 100 yuan, record by
-- record. Forgetting the recorded files makes the next import read and
-- rewrite what was imported before; until then the rows stay as they were.
DELETE FROM tdx_files;

-- version 28
-- The day's stats of GET /v1/api/market/stats/range (issue 32): the first
-- names of five lists of a day's stored ranking, kept beside it so a
-- year's range reads one row a day instead of every day's whole ranking
-- (1.2 s a year at real scale). Written with the day's ranking, in the same
-- transaction (the end-of-day job, a past day built on first demand), or
-- from a ranking stored before this version the first time a range asks
-- for its day. Each list is a JSON array of sector names, in rank order,
-- at most 100 (the endpoint's largest top); source and updated_ms are the
-- ranking's.
CREATE TABLE daily_stats (
    trade_day    INTEGER PRIMARY KEY,
    source       TEXT NOT NULL,
    updated_ms   INTEGER NOT NULL,
    industry_in  TEXT NOT NULL,
    concept_in   TEXT NOT NULL,
    industry_out TEXT NOT NULL,
    concept_out  TEXT NOT NULL,
    sectors_in   TEXT NOT NULL
);

-- version 29
-- Alert webhooks through an outbox (issue 36). An alert may name a webhook
-- (url, format: generic | dingtalk | wecom | feishu, and the secret it
-- signs with, kept in clear because signing needs it; the API never shows
-- it). An evaluation that fires events of such an alert writes one row of
-- alert_deliveries in the same transaction and links its events to it
-- (alert_events.delivery_id): a burst of codes is one chat message. The
-- leader's worker claims a due row (state 'sending', claim its random
-- token, next_ms the claim's end), sends it and records each try in
-- alert_delivery_attempts (vendor_code: the chat app's errcode or code,
-- NULL for a generic receiver or no answer); a failed try sets it 'pending' again with next_ms the back-off's end, until the
-- retry time has passed ('failed'); success is 'sent'; a deleted alert's
-- unsent rows are 'canceled'. A claim left by a process that died ends at
-- next_ms and the row is sent again. Times are Unix ms.
ALTER TABLE alerts ADD COLUMN webhook_url TEXT NOT NULL DEFAULT '';
ALTER TABLE alerts ADD COLUMN webhook_format TEXT NOT NULL DEFAULT '';
ALTER TABLE alerts ADD COLUMN webhook_secret TEXT NOT NULL DEFAULT '';
ALTER TABLE alert_events ADD COLUMN delivery_id INTEGER;
CREATE INDEX alert_events_by_delivery ON alert_events(delivery_id) WHERE delivery_id IS NOT NULL;
CREATE TABLE alert_deliveries (
    id         INTEGER PRIMARY KEY,
    alert_id   TEXT NOT NULL,
    client_id  TEXT NOT NULL,
    events     INTEGER NOT NULL,
    created_ms INTEGER NOT NULL,
    state      TEXT NOT NULL,
    next_ms    INTEGER NOT NULL,
    attempts   INTEGER NOT NULL DEFAULT 0,
    claim      TEXT NOT NULL DEFAULT '',
    done_ms    INTEGER,
    last_error TEXT NOT NULL DEFAULT ''
);
CREATE INDEX alert_deliveries_due ON alert_deliveries(state, next_ms);
CREATE INDEX alert_deliveries_by_alert ON alert_deliveries(alert_id, id);
CREATE TABLE alert_delivery_attempts (
    delivery_id INTEGER NOT NULL REFERENCES alert_deliveries(id) ON DELETE CASCADE,
    attempt     INTEGER NOT NULL,
    at_ms       INTEGER NOT NULL,
    duration_ms INTEGER NOT NULL,
    http_status INTEGER NOT NULL,
    vendor_code INTEGER,
    message     TEXT NOT NULL,
    ok          INTEGER NOT NULL,
    PRIMARY KEY (delivery_id, attempt)
) WITHOUT ROWID;
