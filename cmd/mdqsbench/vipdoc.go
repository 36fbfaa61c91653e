package main

import (
	"fmt"
	"io"
	"time"

	"mdqs/internal/tdx"
)

const vipdocAbout = `writes a generated terminal folder: -files daily-bar files (vipdoc/{sh,sz,bj}/lday/*.day)
of -bars weekday bars each, ending 2025-12-31, spread over stocks, funds, bonds and
indices as in a real install. Then time the import:
  mdqs import tdx -dir DIR -db /tmp/import.db`

func vipdoc(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("vipdoc", vipdocAbout, stderr)
	dir := fs.String("dir", "", "folder to write (required)")
	files := fs.Int("files", 5000, "number of .day files")
	bars := fs.Int("bars", 250, "bars per file")
	seed := fs.Int64("seed", 1, "generator seed")
	if err := parse(fs, args); err != nil {
		return err
	}
	switch {
	case *dir == "":
		return usageError{"vipdoc: -dir is required"}
	case *files < 1 || *bars < 1:
		return usageError{"vipdoc: -files and -bars must be positive"}
	}
	start := time.Now()
	written, err := tdx.GenerateVipdoc(*dir, *files, *bars, *seed)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %d files of %d bars under %s in %.1f s\n", len(written), *bars, *dir, time.Since(start).Seconds())
	return nil
}
