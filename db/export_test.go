package db

import "context"

// ReaderExec lets tests prove the reader pool refuses writes.
func (s *Store) ReaderExec(ctx context.Context, q string) error {
	_, err := s.r.ExecContext(ctx, q)
	return err
}

// ReaderPragma reads a pragma through the reader pool.
func (s *Store) ReaderPragma(ctx context.Context, name string) (int, error) {
	var v int
	err := s.r.QueryRowContext(ctx, "PRAGMA "+name).Scan(&v)
	return v, err
}

// OpenReadOnly opens path the way Open does when the file (or, with
// folder, its folder) is not writable: tests run as root, for whom every
// file is writable, so the permission probe cannot be made to say so.
// A schema "" is the built-in one.
func OpenReadOnly(ctx context.Context, path, schema string, folder bool) (*Store, error) {
	if schema == "" {
		schema = sqliteSchema
	}
	migrations, err := parseSchema(schema)
	if err != nil {
		return nil, err
	}
	a := readOnlyFile
	if folder {
		a = readOnlyFolder
	}
	return openReadOnly(ctx, path, migrations, Options{}, a)
}

// WriterExec runs a statement through the writer: tests make a trigger
// that fails a transaction at its end, the way a full disk or a lost
// connection would, in the store's own dialect.
func (s *Store) WriterExec(ctx context.Context, q string) error {
	_, err := s.w.ExecContext(ctx, q)
	return err
}

// IsPostgresStore reports the store's dialect, for a test's own SQL.
func (s *Store) IsPostgresStore() bool { return s.dialect == postgresDialect }

// QueryInt reads one number through the writer, for a test's own SQL.
func (s *Store) QueryInt(ctx context.Context, q string) (int64, error) {
	var n int64
	err := s.w.QueryRowContext(ctx, q).Scan(&n)
	return n, err
}
