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
