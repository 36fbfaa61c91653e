package main

import (
	"context"

	"mdqs/db"
	"mdqs/internal/checkout"
)

// openStore opens a store with the schema of the checkout it runs in
// (schema.sql at the root): package main of mdqs, which embeds that file,
// cannot be imported.
func openStore(ctx context.Context, path string, opt db.Options) (*db.Store, error) {
	schema, err := checkout.SQLiteSchema()
	if err != nil {
		return nil, err
	}
	opt.SQLiteSchema = schema
	return db.Open(ctx, path, opt)
}
