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
