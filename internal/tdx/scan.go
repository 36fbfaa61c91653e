package tdx

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"mdqs/internal/market"
)

// File is one terminal file found by Open, with what an incremental import
// needs to tell whether it changed since the last run.
type File struct {
	Kind    Kind
	Path    string
	Code    market.Code     // bar files; zero otherwise
	Market  market.Exchange // bar and .tnf files; "" otherwise
	Size    int64
	ModTime time.Time
}

// Records is the number of whole 32-byte records of a bar file at scan time.
func (f File) Records() int64 {
	if !f.Kind.IsBars() {
		return 0
	}
	return f.Size / BarRecordSize
}

// Terminal is a scanned terminal folder. Files are found by name, never by
// terminal version, since builds and brokers differ in which files exist.
// Its methods only read the struct, so they may run concurrently, but not
// concurrently with Rescan.
type Terminal struct {
	Root  string
	Files []File // every recognised file, sorted by path
	// Problems lists what the scan could not use: unreadable folders, bar
	// files whose names do not parse or whose prefix contradicts their
	// folder. Each is an *fs.PathError; the scan went on past all of them.
	Problems []error
	// Clock dates the future-date check of bar decoding (records after
	// tomorrow are rejected); nil means the system clock.
	Clock market.Clock

	days map[market.Code]File // each code's .day file, for its minute files
	lc1  map[market.Code]File // each code's .lc1 file, for MinutesOn
}

// Open scans a terminal install folder such as C:\new_tdx. It fails only
// when the folder is missing or unreadable, or is not a terminal folder (has
// neither vipdoc nor T0002; errors.Is(err, ErrNotTerminal)). Folder and file
// names match case-insensitively. Files are only listed and stat'ed here;
// they are opened read-only when decoded, never locked.
func Open(dir string) (*Terminal, error) {
	t := &Terminal{Root: dir}
	if err := t.Rescan(); err != nil {
		return nil, err
	}
	return t, nil
}

// Rescan lists the folder again, replacing Files and Problems.
func (t *Terminal) Rescan() error {
	st, err := os.Stat(t.Root)
	if err != nil {
		return fmt.Errorf("tdx: terminal folder: %w", err)
	}
	if !st.IsDir() {
		return fmt.Errorf("tdx: %s is a file, not a folder: %w", t.Root, ErrNotTerminal)
	}
	root, err := os.ReadDir(t.Root)
	if err != nil {
		return fmt.Errorf("tdx: terminal folder: %w", err)
	}
	vipdoc, hasVip := findEntry(root, "vipdoc", true)
	t0002, hasT := findEntry(root, "T0002", true)
	if !hasVip && !hasT {
		return fmt.Errorf("tdx: %s: %w", t.Root, ErrNotTerminal)
	}
	s := scanner{}
	if e, ok := findEntry(root, "incon.dat", false); ok {
		s.add(t.Root, e, File{Kind: KindIncon})
	}
	if hasVip {
		s.vipdoc(filepath.Join(t.Root, vipdoc.Name()))
	}
	if hasT {
		dir := filepath.Join(t.Root, t0002.Name())
		entries := s.readDir(dir)
		s.hqCache(dir, entries)
		s.blockNew(dir, entries)
	}
	slices.SortFunc(s.files, func(a, b File) int { return cmp.Compare(a.Path, b.Path) })
	t.Files, t.Problems = s.files, s.problems
	t.days, t.lc1 = map[market.Code]File{}, map[market.Code]File{}
	for _, f := range t.Files {
		switch f.Kind {
		case KindDay:
			t.days[f.Code] = f
		case KindLC1:
			t.lc1[f.Code] = f
		}
	}
	return nil
}

// scanner accumulates one scan's findings.
type scanner struct {
	files    []File
	problems []error
}

func (s *scanner) problem(path string, err error) {
	s.problems = append(s.problems, &fs.PathError{Op: "scan", Path: path, Err: err})
}

// readDir lists a folder, recording a failure as a problem.
func (s *scanner) readDir(dir string) []os.DirEntry {
	entries, err := os.ReadDir(dir)
	if err != nil {
		s.problem(dir, err)
	}
	return entries
}

// add records a file with its size and mtime.
func (s *scanner) add(dir string, e os.DirEntry, f File) {
	f.Path = filepath.Join(dir, e.Name())
	info, err := e.Info()
	if err == nil && e.Type()&fs.ModeSymlink != 0 {
		info, err = os.Stat(f.Path)
	}
	if err != nil {
		s.problem(f.Path, err)
		return
	}
	if !info.Mode().IsRegular() {
		return
	}
	f.Size, f.ModTime = info.Size(), info.ModTime()
	s.files = append(s.files, f)
}

// vipdoc walks vipdoc/{sh,sz,bj}/{lday,minline,fzline}. Other markets
// (vipdoc/ds: futures, Hong Kong) use other layouts and are skipped.
func (s *scanner) vipdoc(dir string) {
	for _, m := range s.readDir(dir) {
		ex, ok := exchangeOfPrefix(m.Name())
		if !ok || !isDirEntry(dir, m) {
			continue
		}
		mdir := filepath.Join(dir, m.Name())
		sub := s.readDir(mdir)
		for _, want := range []string{"lday", "minline", "fzline"} {
			e, ok := findEntry(sub, want, true)
			if !ok {
				continue
			}
			s.bars(filepath.Join(mdir, e.Name()), ex)
		}
	}
}

func (s *scanner) bars(dir string, ex market.Exchange) {
	for _, e := range s.readDir(dir) {
		name := e.Name()
		code, kind, ok := ParseBarName(name)
		if !ok {
			if isBarExt(name) {
				s.problem(filepath.Join(dir, name), errors.New("bar file name is not <sh|sz|bj><6 digits>.<ext>"))
			}
			continue
		}
		if code.Exchange != ex {
			s.problem(filepath.Join(dir, name), fmt.Errorf("file prefix %s contradicts its folder %s", code.Exchange, ex))
			continue
		}
		s.add(dir, e, File{Kind: kind, Code: code, Market: ex})
	}
}

func isBarExt(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".day", ".lc1", ".lc5", ".1", ".5":
		return true
	}
	return false
}

// hqCacheKind maps a lower-case T0002/hq_cache file name to its kind.
func hqCacheKind(name string) (Kind, bool) {
	switch name {
	case "block_zs.dat":
		return KindBlockZS, true
	case "block_fg.dat":
		return KindBlockFG, true
	case "block_gn.dat":
		return KindBlockGN, true
	case "tdxzs.cfg":
		return KindZS, true
	case "tdxzs2.cfg":
		return KindZS2, true
	case "tdxzs3.cfg":
		return KindZS3, true
	case "tdxhy.cfg":
		return KindHY, true
	case "tdxbk.cfg":
		return KindBK, true
	case "infoharbor_block.dat":
		return KindInfoHarbor, true
	case "spblock.dat":
		return KindSPBlock, true
	case "incon.dat": // tdx.md puts it in the root; accepted here too
		return KindIncon, true
	case "gbbq":
		return KindGBBQ, true
	case "base.dbf":
		return KindBase, true
	}
	return "", false
}

func (s *scanner) hqCache(t0002 string, entries []os.DirEntry) {
	e, ok := findEntry(entries, "hq_cache", true)
	if !ok {
		return
	}
	dir := filepath.Join(t0002, e.Name())
	for _, e := range s.readDir(dir) {
		lower := strings.ToLower(e.Name())
		if k, ok := hqCacheKind(lower); ok {
			s.add(dir, e, File{Kind: k})
		} else if ex, _, ok := tnfName(lower); ok {
			s.add(dir, e, File{Kind: KindTNF, Market: ex})
		}
	}
}

func (s *scanner) blockNew(t0002 string, entries []os.DirEntry) {
	e, ok := findEntry(entries, "blocknew", true)
	if !ok {
		return
	}
	dir := filepath.Join(t0002, e.Name())
	for _, e := range s.readDir(dir) {
		lower := strings.ToLower(e.Name())
		switch {
		case lower == "blocknew.cfg":
			s.add(dir, e, File{Kind: KindBlockNew})
		case strings.HasSuffix(lower, ".blk"):
			s.add(dir, e, File{Kind: KindBLK})
		}
	}
}

// findEntry finds a name case-insensitively: Windows installs vary in case
// (T0002, t0002) and copies onto case-sensitive disks keep whatever it was.
func findEntry(entries []os.DirEntry, name string, dir bool) (os.DirEntry, bool) {
	for _, e := range entries {
		if strings.EqualFold(e.Name(), name) && (e.IsDir() == dir || e.Type()&fs.ModeSymlink != 0) {
			return e, true
		}
	}
	return nil, false
}

func isDirEntry(parent string, e os.DirEntry) bool {
	if e.IsDir() {
		return true
	}
	if e.Type()&fs.ModeSymlink != 0 {
		st, err := os.Stat(filepath.Join(parent, e.Name()))
		return err == nil && st.IsDir()
	}
	return false
}

// Find lists the files of the given kinds (all files when none given).
func (t *Terminal) Find(kinds ...Kind) []File {
	var out []File
	for _, f := range t.Files {
		if len(kinds) == 0 || slices.Contains(kinds, f.Kind) {
			out = append(out, f)
		}
	}
	return out
}

// First is the first file of a kind, for the kinds a terminal has once.
func (t *Terminal) First(kind Kind) (File, bool) {
	for _, f := range t.Files {
		if f.Kind == kind {
			return f, true
		}
	}
	return File{}, false
}

// NotAfter is the last plausible bar date: tomorrow in Shanghai, leaving a
// day of slack for a host clock that is slightly behind.
func (t *Terminal) NotAfter() market.Day {
	var now time.Time
	if t.Clock != nil {
		now = t.Clock.Now()
	} else {
		now = time.Now()
	}
	return market.DayOf(now).AddDays(1)
}

// Bars decodes one bar file found by the scan; see ReadBars for the errors.
func (t *Terminal) Bars(f File) (*BarFile, error) {
	if !f.Kind.IsBars() {
		return nil, fmt.Errorf("tdx: %s: %q is not a bar file", f.Path, f.Kind)
	}
	return readBars(f, ScaleFor(f.Code), t.NotAfter(), t.dayFileOf(f.Code))
}

// DayFile is the .day file of a code, if the scan found one. An index's
// minute bars are converted with it, so an importer re-reads them when it
// changes.
func (t *Terminal) DayFile(code market.Code) (File, bool) {
	f, ok := t.days[code]
	return f, ok
}

func (t *Terminal) dayFileOf(code market.Code) func() (File, bool) {
	return func() (File, bool) { return t.DayFile(code) }
}

// AllBars decodes every bar file of the given kinds (all bar kinds when
// none given) in path order. A file that fails yields its error next to
// whatever could be decoded (the *BarFile is nil if nothing could) and the
// sequence goes on with the next file.
func (t *Terminal) AllBars(kinds ...Kind) iter.Seq2[*BarFile, error] {
	return func(yield func(*BarFile, error) bool) {
		notAfter := t.NotAfter()
		for _, f := range t.Files {
			if !f.Kind.IsBars() || (len(kinds) > 0 && !slices.Contains(kinds, f.Kind)) {
				continue
			}
			if !yield(readBars(f, ScaleFor(f.Code), notAfter, t.dayFileOf(f.Code))) {
				return
			}
		}
	}
}

// Names reads the name files, one per market: the newer 360-byte file
// (shs/szs/bjs.tnf) where present, else the older 314-byte one. The error
// joins the per-file problems; the securities of every readable file are
// returned.
func (t *Terminal) Names() ([]Security, error) {
	secs, _, err := t.NamesOfDay()
	return secs, err
}

// NamesOfDay is Names and the day the name files are of: the date in
// their headers when every file read states the same one (the terminal
// wrote them in one refresh), else 0.
func (t *Terminal) NamesOfDay() ([]Security, market.Day, error) {
	best := map[market.Exchange]File{}
	bestLayout := map[market.Exchange]TNFLayout{}
	for _, f := range t.Find(KindTNF) {
		if _, layout, _ := tnfName(filepath.Base(f.Path)); layout > bestLayout[f.Market] {
			best[f.Market], bestLayout[f.Market] = f, layout
		}
	}
	var out []Security
	var errs []error
	day, same := market.Day(0), true
	for _, ex := range []market.Exchange{market.SH, market.SZ, market.BJ} {
		f, ok := best[ex]
		if !ok {
			continue
		}
		tf, err := ReadTNF(f.Path)
		if err != nil {
			errs = append(errs, err)
		}
		if tf != nil {
			out = append(out, tf.Securities...)
			same = same && tf.Header.Date != 0 && (day == 0 || day == tf.Header.Date)
			day = tf.Header.Date
		}
	}
	if !same || len(errs) > 0 {
		day = 0
	}
	return out, day, errors.Join(errs...)
}

// UserBlocks reads blocknew.cfg and each listed block's .blk file, then the
// watchlist ZXG.blk (named 自选股), which the cfg never lists. A listed
// block without a .blk file has no members and an empty Path; a .blk the
// cfg does not list (a deleted block's leftover, as the terminal shows it
// nowhere) is left out but stays in Files as KindBLK. The error joins the
// per-file problems; everything readable is returned.
func (t *Terminal) UserBlocks() ([]UserBlock, error) {
	blk := map[string]File{}
	for _, f := range t.Find(KindBLK) {
		stem := strings.TrimSuffix(filepath.Base(f.Path), filepath.Ext(f.Path))
		blk[strings.ToLower(stem)] = f
	}
	var blocks []UserBlock
	var errs []error
	if cfg, ok := t.First(KindBlockNew); ok {
		list, err := ReadBlockNewCfg(cfg.Path)
		if err != nil {
			errs = append(errs, err)
		}
		blocks = list
	}
	listed := map[string]bool{}
	for _, b := range blocks {
		listed[strings.ToLower(b.Stem)] = true
	}
	if _, ok := blk[strings.ToLower(WatchlistStem)]; ok && !listed[strings.ToLower(WatchlistStem)] {
		blocks = append(blocks, UserBlock{Name: "自选股", Stem: WatchlistStem})
	}
	for i := range blocks {
		f, ok := blk[strings.ToLower(blocks[i].Stem)]
		if !ok {
			continue
		}
		blocks[i].Path = f.Path
		codes, err := ReadBLK(f.Path)
		if err != nil {
			errs = append(errs, err)
		}
		blocks[i].Codes = codes
	}
	return blocks, errors.Join(errs...)
}
