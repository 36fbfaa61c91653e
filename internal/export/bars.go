package export

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/sync/errgroup"

	"mdqs/db"
	"mdqs/internal/adjust"
	"mdqs/internal/market"
)

// BarStore is what a bar export reads: the store (db.Store).
type BarStore interface {
	EachBars(ctx context.Context, code market.Code, freq market.Freq, from, to market.Day, buf *db.SourcedBars, fn func(db.SourcedBars) error) error
	Coverage(ctx context.Context, code market.Code, freq market.Freq) (db.Span, string, bool, error)
}

// Filler makes the store cover a series over a range as the API would
// (kline.Service.Ensure): from the demo market in demo mode, from the
// sources live; a code the source does not know is KindNotFound.
type Filler interface {
	Ensure(ctx context.Context, code market.Code, freq market.Freq, from, to market.Day) error
}

// BarRequest is one export of bars.
type BarRequest struct {
	Codes    []market.Code
	Freq     market.Freq
	From, To market.Day // the trading days between them are exported
	Format   Format
	Out      string // the file; with Qlib, the folder
	// Adjust maps prices as /v1/api/kline/adjusted does (the terminal's
	// 前复权 or 后复权); adjust.None leaves them as stored.
	Adjust adjust.Mode
	// Qlib writes one CSV per code with qlib's columns (qlibfile.go).
	Qlib bool
	// StoreOnly exports what the store holds and fills nothing: a series
	// the store does not cover over the range is a MissingError, and no
	// file is written.
	StoreOnly bool
}

// BarDeps are a bar export's collaborators.
type BarDeps struct {
	Store    BarStore
	Calendar *market.Calendar
	Clock    market.Clock
	Fill     Filler // unused with StoreOnly
	// Adjustment is a code's schedule for a mode
	// (corpaction.Service.Adjustment); needed when Adjust is not None.
	Adjustment func(ctx context.Context, code market.Code, mode adjust.Mode) (adjust.Schedule, error)
	// Progress is called after each code: codes done, of total, rows so far.
	Progress func(done, total, rows int)
	// Skipped hears of a code the source does not know (nothing exported).
	Skipped func(code market.Code, err error)
	// Meta goes into every file's metadata after the export's own
	// (mdqs's version, the mode).
	Meta Meta
}

// Missing is a series the store lacks days of.
type Missing struct {
	Code  market.Code
	Spans []db.Span // the trading days missing, as spans
}

// MissingError is a store-only export's refusal: what the store lacks.
type MissingError struct {
	Missing []Missing
	Of      int // codes asked
	What    string
}

func (e *MissingError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "the store lacks %s of %d of %d codes:", e.What, len(e.Missing), e.Of)
	for i, m := range e.Missing {
		if i == 10 {
			fmt.Fprintf(&b, " and %d more", len(e.Missing)-i)
			break
		}
		var spans []string
		for _, s := range m.Spans {
			if s.First == s.Last {
				spans = append(spans, s.First.String())
			} else {
				spans = append(spans, s.First.String()+".."+s.Last.String())
			}
		}
		fmt.Fprintf(&b, " %s (%s)", m.Code, strings.Join(spans, ", "))
		if i < len(e.Missing)-1 && i < 9 {
			b.WriteByte(';')
		}
	}
	return b.String()
}

// ExportBars writes the bars of r's codes over r's trading days, a code
// at a time, to r.Out.
func ExportBars(ctx context.Context, d BarDeps, r BarRequest) (Summary, error) {
	days := d.Calendar.Between(r.From, r.To)
	if len(days) == 0 {
		return Summary{}, market.Errorf(market.KindInvalid, "no trading day between %v and %v", r.From, r.To)
	}
	first, last := days[0], days[len(days)-1]
	if r.Adjust != adjust.None && d.Adjustment == nil {
		return Summary{}, errors.New("export: an adjusted export needs the corporate actions")
	}
	if r.StoreOnly {
		if err := checkCovered(ctx, d, r, first, last); err != nil {
			return Summary{}, err
		}
	}
	out, err := newBarOutput(r)
	if err != nil {
		return Summary{}, err
	}
	defer out.abort()

	// The store is read (and filled) in one goroutine while the file is
	// written in this one: on two cores that is the time of the slower
	// of the two, not of both. Pieces go round between them through free,
	// so the memory is a few chunks whatever the rows.
	g, gctx := errgroup.WithContext(ctx)
	pieces, free := make(chan *piece, piecesInFlight), make(chan *piece, piecesInFlight)
	for range piecesInFlight {
		free <- &piece{}
	}
	g.Go(func() error {
		defer close(pieces)
		return readBars(gctx, d, r, first, last, pieces, free)
	})
	var sum Summary
	g.Go(func() error {
		var w barWriter
		var err error
		rows := 0
		for p := range pieces {
			if w == nil && !p.done && p.skipped == nil {
				if w, err = out.series(r.Codes[p.idx]); err != nil {
					return err
				}
			}
			q, _ := w.(*qlibFile)
			for k := range p.bars {
				if q != nil {
					q.rawClose = p.raw[k] // for qlib's factor
				}
				if err := w.add(p.name, &p.bars[k], p.sources[k]); err != nil {
					return err
				}
				sum.source(p.sources[k])
			}
			if n := len(p.bars); n > 0 {
				rows += n
				sum.day(p.bars[0].Day)
				sum.day(p.bars[n-1].Day)
			}
			if p.done {
				switch {
				case p.skipped != nil:
					if d.Skipped != nil {
						d.Skipped(r.Codes[p.idx], p.skipped)
					}
				default:
					if w == nil {
						if w, err = out.series(r.Codes[p.idx]); err != nil {
							return err
						}
					}
					if err := out.seriesDone(r.Codes[p.idx], rows); err != nil {
						return err
					}
					sum.Rows += rows
					if rows > 0 {
						sum.Series++
					}
				}
				w, rows = nil, 0
				if d.Progress != nil {
					d.Progress(p.idx+1, len(r.Codes), sum.Rows)
				}
			}
			free <- p
		}
		return nil
	})
	if err := g.Wait(); err != nil {
		return sum, err
	}
	meta := Meta{
		{"source", strings.Join(sum.Sources, ",")},
		{"as_of", market.FormatTime(d.Clock.Now())},
		{"final_through", dayText(sum.Last)},
		{"what", whatOf(r.Freq)},
		{"freq", string(r.Freq)},
		{"from", first.String()},
		{"to", last.String()},
		{"adj", r.Adjust.String()},
		{"codes", fmt.Sprint(sum.Series)},
		{"rows", fmt.Sprint(sum.Rows)},
		{"ts", "the bar's end, an instant (UTC-adjusted): 15:00 Asia/Shanghai for a daily bar; trade_date is the exchange's day in Asia/Shanghai"},
		{"prices", "yuan, as the store holds them (integer 1/10000 yuan, written as the double whose shortest decimal is that value)"},
	}
	for _, kv := range d.Meta {
		meta.Set(kv.Key, kv.Value)
	}
	files, bytes, err := out.finish(meta)
	sum.Files, sum.Bytes = files, bytes
	return sum, err
}

func dayText(d market.Day) string {
	if d == 0 {
		return ""
	}
	return d.String()
}

func whatOf(f market.Freq) string {
	if f == market.Daily {
		return "bars"
	}
	return "minutes"
}

// checkCovered is a store-only export's first step: every series must be
// covered over the range, or the export stops before writing anything.
func checkCovered(ctx context.Context, d BarDeps, r BarRequest, first, last market.Day) error {
	var missing []Missing
	for _, code := range r.Codes {
		cov, _, ok, err := d.Store.Coverage(ctx, code, r.Freq)
		if err != nil {
			return err
		}
		var spans []db.Span
		switch {
		case !ok:
			spans = []db.Span{{First: first, Last: last}}
		default:
			if first < cov.First {
				spans = append(spans, db.Span{First: first, Last: d.Calendar.Prev(cov.First)})
			}
			if last > cov.Last {
				spans = append(spans, db.Span{First: d.Calendar.Next(cov.Last), Last: last})
			}
		}
		if len(spans) > 0 {
			missing = append(missing, Missing{Code: code, Spans: spans})
		}
	}
	if len(missing) > 0 {
		return &MissingError{Missing: missing, Of: len(r.Codes), What: string(r.Freq) + " bars"}
	}
	return nil
}

// barOutput is where a bar export's rows go: one file, or (qlib) one file
// per code.
type barOutput interface {
	series(code market.Code) (barWriter, error)
	seriesDone(code market.Code, rows int) error
	finish(meta Meta) (files int, bytes int64, err error)
	abort()
}

func newBarOutput(r BarRequest) (barOutput, error) {
	if r.Qlib {
		return newQlibFolder(r.Out, r.Freq)
	}
	f, err := createAtomic(r.Out)
	if err != nil {
		return nil, err
	}
	o := &oneFile{f: f}
	switch r.Format {
	case Parquet:
		o.w = newParquetBars(f)
	default:
		if o.w, err = newCSVBars(f); err != nil {
			f.abort()
			return nil, err
		}
	}
	return o, nil
}

// oneFile is every series in one file.
type oneFile struct {
	f    *atomicFile
	w    barWriter
	done bool
}

func (o *oneFile) series(market.Code) (barWriter, error) { return o.w, nil }
func (o *oneFile) seriesDone(market.Code, int) error     { return nil }

func (o *oneFile) finish(meta Meta) (int, int64, error) {
	if err := o.w.finish(meta); err != nil {
		return 0, 0, err
	}
	if err := o.f.commit(); err != nil {
		return 0, 0, err
	}
	o.done = true
	return 1, fileSize(o.f.path), nil
}

func (o *oneFile) abort() {
	if !o.done {
		o.f.abort()
	}
}

// piecesInFlight bounds the chunks between the reader and the writer.
const piecesInFlight = 4

// piece is a run of one series' bars on its way from the store to the
// file.
type piece struct {
	idx     int    // the code's index in the request
	name    string // the code as the files write it
	bars    []market.Bar
	raw     []float64 // the stored closes (qlib's factor divides by them)
	sources []string
	done    bool  // the series' last piece, maybe empty
	skipped error // the source does not know the code (done too)
}

// readBars is the export's reading half: each code filled as the API
// would (unless store-only), adjusted if asked, and its bars sent on in
// pieces.
func readBars(ctx context.Context, d BarDeps, r BarRequest, first, last market.Day, pieces chan<- *piece, free <-chan *piece) error {
	get := func() (*piece, error) {
		select {
		case p := <-free:
			return p, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	send := func(p *piece) error {
		select {
		case pieces <- p:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	var buf db.SourcedBars
	for i, code := range r.Codes {
		name := code.String()
		if !r.StoreOnly {
			if err := d.Fill.Ensure(ctx, code, r.Freq, first, last); err != nil {
				if market.KindOf(err) != market.KindNotFound {
					return fmt.Errorf("filling %s %s bars %v..%v: %w", code, r.Freq, first, last, err)
				}
				p, err2 := get()
				if err2 != nil {
					return err2
				}
				*p = piece{idx: i, name: name, bars: p.bars[:0], raw: p.raw[:0], sources: p.sources[:0], done: true, skipped: err}
				if err := send(p); err != nil {
					return err
				}
				continue
			}
		}
		sched := adjust.Schedule{}
		if r.Adjust != adjust.None {
			var err error
			if sched, err = d.Adjustment(ctx, code, r.Adjust); err != nil {
				return fmt.Errorf("the %s adjustment of %s: %w", r.Adjust, code, err)
			}
		}
		err := d.Store.EachBars(ctx, code, r.Freq, first, last, &buf, func(c db.SourcedBars) error {
			p, err := get()
			if err != nil {
				return err
			}
			p.idx, p.name, p.done, p.skipped = i, name, false, nil
			p.bars = append(p.bars[:0], c.Bars...)
			p.sources = append(p.sources[:0], c.Sources...)
			p.raw = p.raw[:0]
			for _, b := range c.Bars {
				p.raw = append(p.raw, b.Close)
			}
			if r.Adjust != adjust.None {
				sched.ApplyTo(p.bars, p.bars)
			}
			return send(p)
		})
		if err != nil {
			return err
		}
		p, err := get()
		if err != nil {
			return err
		}
		*p = piece{idx: i, name: name, bars: p.bars[:0], raw: p.raw[:0], sources: p.sources[:0], done: true}
		if err := send(p); err != nil {
			return err
		}
	}
	return nil
}
