package db_test

import (
	"context"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
)

// A store imported before issue 32 holds the terminal's float32s widened
// (84.77999877929688 for 84.78) and 204001.SH's volumes in the wrong
// unit; version 27 forgets every recorded terminal file, so the next
// refresh reads them all again and rewrites those rows as they are read
// now. Nothing else is touched.
func TestMigrationForgetsTheImportedFiles(t *testing.T) {
	ctx := context.Background()
	target := dbtest.Target(t)
	s := dbtest.OpenAt(t, target)
	now := time.Date(2026, 11, 20, 16, 0, 0, 0, time.UTC)
	if err := s.SaveFileStates(ctx, []db.FileState{
		{Path: "T0002/hq_cache/gbbq", Kind: "gbbq", Size: 29*2 + 4, ModTime: now, Records: 2},
		{Path: "vipdoc/sh/lday/sh204001.day", Kind: "day", Size: 32, ModTime: now, Records: 1},
	}, now); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ReplaceActions(ctx, "tdx", actionsFixture()); err != nil {
		t.Fatal(err)
	}
	if err := s.SetSchemaVersion(ctx, 26, dbtest.UndoAfter(t, 26)); err != nil {
		t.Fatal(err)
	}
	s.Close()

	s = dbtest.OpenAt(t, target)
	if states, err := s.FileStates(ctx); err != nil || len(states) != 0 {
		t.Errorf("file states after the migration: %v, %v; want none", states, err)
	}
	if v, err := s.ReadSchemaVersion(ctx); err != nil || v < 27 {
		t.Errorf("schema version %d, %v", v, err)
	}
	if got := actionsOf(t, s, "600519.SH"); len(got) != 3 {
		t.Errorf("the actions are the next import's to replace, not the migration's: %+v", got)
	}
}
