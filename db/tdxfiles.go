package db

import (
	"context"
	"database/sql"
	"time"
)

// FileState is what the last import saw of one terminal file, so the next
// one imports only files whose size or modification time changed.
type FileState struct {
	Path    string // relative to the terminal folder, slash-separated
	Kind    string
	Size    int64
	ModTime time.Time
	Records int
	Error   string // the problem the import met, "" if none
}

// FileStates reads every recorded file state by path.
func (s *Store) FileStates(ctx context.Context) (map[string]FileState, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT path, kind, size, mtime, records, error FROM tdx_files`)
	if err != nil {
		return nil, classify(err, "read file states")
	}
	defer rows.Close()
	out := map[string]FileState{}
	for rows.Next() {
		var f FileState
		var mtime int64
		if err := rows.Scan(&f.Path, &f.Kind, &f.Size, &mtime, &f.Records, &f.Error); err != nil {
			return nil, classify(err, "read file states")
		}
		f.ModTime = time.UnixMilli(mtime)
		out[f.Path] = f
	}
	return out, classify(rows.Err(), "read file states")
}

// IngestFiles stores bars and the states of the files they came from in one
// transaction, so a crash mid-import leaves every file either imported and
// recorded, or neither (and the next import does it again).
func (s *Store) IngestFiles(ctx context.Context, batches []BarBatch, files []FileState, now time.Time) (IngestCounts, error) {
	var total IngestCounts
	err := s.writeTxn(ctx, func(t *txn) (err error) {
		if total, err = ingestBatches(ctx, t, batches); err != nil {
			return err
		}
		return saveFileStates(ctx, t.Tx, files, now)
	})
	return total, err
}

// SaveFileStates records file states on their own (names and block files).
func (s *Store) SaveFileStates(ctx context.Context, files []FileState, now time.Time) error {
	return s.write(ctx, func(tx *sql.Tx) error { return saveFileStates(ctx, tx, files, now) })
}

func saveFileStates(ctx context.Context, tx *sql.Tx, files []FileState, now time.Time) error {
	for _, f := range files {
		if _, err := tx.ExecContext(ctx, `INSERT INTO tdx_files(path, kind, size, mtime, records, error, imported_at)
			VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(path) DO UPDATE SET kind = excluded.kind, size = excluded.size,
			mtime = excluded.mtime, records = excluded.records, error = excluded.error, imported_at = excluded.imported_at`,
			f.Path, f.Kind, f.Size, f.ModTime.UnixMilli(), f.Records, f.Error, now.UnixMilli()); err != nil {
			return classify(err, "save file state")
		}
	}
	return nil
}
