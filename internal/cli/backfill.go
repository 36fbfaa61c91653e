package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"mdqs/db"
	"mdqs/internal/kline"
	"mdqs/internal/market"
	"mdqs/internal/sources"
)

const backfillUsage = "usage: mdqs backfill -codes 600519.SH,000001.SZ|all -freq D|1m|5m -from YYYY-MM-DD [-to YYYY-MM-DD] [-db FILE] [-config FILE] [-create]"

// minuteWindowDays bounds one fetch of minute bars: the demo market serves
// at most 250 trading days of them per request (push2his keeps far fewer),
// so a longer minute backfill runs as consecutive windows, oldest first,
// each widening the coverage the previous one left.
const minuteWindowDays = 250

// Backfill runs `mdqs backfill`: it makes the store hold every named code's
// bars of one frequency over a range, fetching from the configured source
// (the demo market in demo mode, else push2his with its fund flow) only
// what the store's coverage lacks. Each code's bars and coverage commit
// together, so an interrupted run (Ctrl-C stops between codes) resumes
// where it stopped when run again, and a repeated run writes nothing.
func Backfill(ctx context.Context, env Env, args []string) error {
	return backfill(ctx, env, args, nil)
}

// backfillRequest is the validated command line.
type backfillRequest struct {
	all      bool
	codes    []market.Code
	freq     market.Freq
	from, to market.Day // to is 0 when not given: the last complete day
}

// backfill is Backfill with a hook called after each code, which tests use
// to interrupt a run at a known point.
func backfill(ctx context.Context, env Env, args []string, afterCode func(done int)) error {
	fs := newFlags("backfill", backfillUsage[len("usage: mdqs "):], env)
	codesArg := fs.String("codes", "", "comma-separated codes (600519.SH, sh600519 or 600519), or all: every stock the source knows (required)")
	freqArg := fs.String("freq", "D", "bar frequency: D, 1m or 5m")
	fromArg := fs.String("from", "", "first trade day, YYYY-MM-DD (required)")
	toArg := fs.String("to", "", "last trade day, YYYY-MM-DD (default: the last complete trading day)")
	sf := addStoreFlags(fs, true)
	if err := ParseFlags(env, fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return Usage("mdqs backfill: unexpected argument %q\n%s", fs.Arg(0), backfillUsage)
	}
	req, err := parseBackfill(*codesArg, *freqArg, *fromArg, *toArg)
	if err != nil {
		return err
	}

	cfg, store, err := openConfigured(ctx, env, sf, 2)
	if err != nil {
		return err
	}
	defer store.Close()
	cal, err := LoadCalendar(ctx, cfg, store)
	if err != nil {
		return err
	}
	clock := market.SystemClock{}
	src, err := sources.New(cfg, cal, clock)
	if err != nil {
		return err
	}
	logTo := &meterLog{w: env.Stderr}
	log := slog.New(slog.NewTextHandler(logTo, &slog.HandlerOptions{Level: slog.LevelWarn}))
	svc, err := kline.FromConfig(cfg, store, src, cal, clock, log, nil)
	if err != nil {
		return err
	}

	// The last complete day bounds every backfill: later bars are not final.
	last := svc.LastCompleteDay()
	to := req.to
	if to == 0 || to > last {
		to = last
	}
	windows := backfillWindows(cal, req.freq, req.from, to)
	if len(windows) == 0 {
		return &ExitError{Code: 1, Err: fmt.Errorf("no complete trading day between %v and %v", req.from, to)}
	}
	codes := req.codes
	if req.all {
		if codes, err = allCodes(ctx, src, store); err != nil {
			return err
		}
	}
	if len(codes) == 0 {
		return &ExitError{Code: 1, Err: errors.New("the source lists no stocks: nothing to backfill")}
	}
	_, srcName := src.Bars()
	fmt.Fprintf(env.Stdout, "backfill %s bars of %d codes, %v to %v, from %s into %s\n", req.freq, len(codes), req.from, to, srcName, db.Redact(cfg.Server.DB))

	unit := "codes"
	if len(windows) > 1 {
		unit = "code-windows"
		fmt.Fprintf(env.Stdout, "minute bars run as %d windows of up to %d trading days each\n", len(windows), minuteWindowDays)
	}
	m := newMeter(env.Stdout, len(codes)*len(windows), unit, "written", time.Now())
	logTo.m = m
	// Say at once that Ctrl-C was heard: the code being fetched still
	// finishes (its bars and coverage commit together).
	noted := make(chan struct{})
	stopNote := context.AfterFunc(ctx, func() {
		defer close(noted)
		m.note("interrupted: stopping after the current code")
	})
	tally := newBackfillTally()
	var runErr error
	for wi, w := range windows {
		base := wi * len(codes)
		_, runErr = svc.Backfill(ctx, codes, req.freq, w.First, w.Last, func(done, _ int, code market.Code, c db.IngestCounts) {
			// The stored count after the code tells the bars it already
			// held; counted even when the run is being interrupted.
			stored, err := store.BarCount(context.WithoutCancel(ctx), code, req.freq)
			if err != nil {
				stored = -1
			}
			tally.add(code, c.Written, stored)
			m.update(base+done, tally.written)
			if afterCode != nil {
				afterCode(base + done)
			}
		})
		if runErr != nil {
			break
		}
	}
	if !stopNote() {
		<-noted // the note is being written: let it finish before the summary
	}
	m.finish()
	elapsed := m.elapsed()
	unchanged := tally.unchanged()
	speed := ""
	if r, ok := rate(tally.written, elapsed); ok {
		speed = ", " + group(r) + " bars/s"
	}
	fmt.Fprintf(env.Stdout, "done: %d of %d codes (%d unknown to the source), %s bars written, %s unchanged (already stored), %.1f s%s\n",
		tally.codes(), len(codes), unknownCodes(runErr, len(codes), tally.codes()), group(tally.written), group(unchanged),
		elapsed.Seconds(), speed)
	switch {
	case runErr == nil:
		if unknown := tally.unvisited(codes); len(unknown) > 0 {
			return &ExitError{Code: 1, Err: fmt.Errorf("%s unknown to %s: nothing stored for %s", plural(len(unknown), "code is", "codes are"), srcName, listCodes(unknown, 10))}
		}
		return nil
	case ctx.Err() != nil:
		return &ExitError{Code: 130, Err: fmt.Errorf("interrupted after %d of %d codes: run the same command again to resume", tally.codes(), len(codes))}
	}
	return &ExitError{Code: 1, Err: fmt.Errorf("%w (bars stored so far are kept; run the same command again to resume)", runErr)}
}

func parseBackfill(codesArg, freqArg, fromArg, toArg string) (backfillRequest, error) {
	var req backfillRequest
	switch c := strings.TrimSpace(codesArg); {
	case c == "":
		return req, Usage("mdqs backfill: -codes is required (codes separated by commas, or all)\n%s", backfillUsage)
	case strings.EqualFold(c, "all"):
		req.all = true
	default:
		for _, s := range strings.Split(c, ",") {
			if strings.TrimSpace(s) == "" {
				return req, Usage("mdqs backfill: -codes %q has an empty entry", codesArg)
			}
			code, err := market.ParseCode(s)
			if err != nil {
				return req, Usage("mdqs backfill: -codes: %v", err)
			}
			if !slices.Contains(req.codes, code) {
				req.codes = append(req.codes, code)
			}
		}
	}
	freq, err := market.ParseFreq(strings.TrimSpace(freqArg))
	if err != nil {
		return req, Usage("mdqs backfill: -freq: %v", err)
	}
	req.freq = freq
	if fromArg == "" {
		return req, Usage("mdqs backfill: -from is required (YYYY-MM-DD)\n%s", backfillUsage)
	}
	if req.from, err = market.ParseDay(fromArg); err != nil {
		return req, Usage("mdqs backfill: -from: %v", err)
	}
	if toArg != "" {
		if req.to, err = market.ParseDay(toArg); err != nil {
			return req, Usage("mdqs backfill: -to: %v", err)
		}
		if req.to < req.from {
			return req, Usage("mdqs backfill: -from %v is after -to %v", req.from, req.to)
		}
	}
	return req, nil
}

// backfillWindows splits [from, to] into the spans fetched one after the
// other: the whole range for daily bars, at most minuteWindowDays trading
// days for minute bars. No trading day in the range is no window.
func backfillWindows(cal *market.Calendar, freq market.Freq, from, to market.Day) []db.Span {
	days := cal.Between(from, to)
	if len(days) == 0 {
		return nil
	}
	if freq == market.Daily {
		return []db.Span{{First: from, Last: to}}
	}
	var out []db.Span
	for start := 0; start < len(days); start += minuteWindowDays {
		end := min(start+minuteWindowDays, len(days)) - 1
		out = append(out, db.Span{First: days[start], Last: days[end]})
	}
	return out
}

// allCodes is every stock the configured source knows, in code order (the
// store's key order, which makes the inserts cheapest): the demo market's
// universe, else the stocks table, else the push2 quote list.
func allCodes(ctx context.Context, src *sources.Set, store *db.Store) ([]market.Code, error) {
	var codes []market.Code
	switch {
	case src.IsDemo():
		for _, s := range src.Demo.Stocks() {
			codes = append(codes, s.Code)
		}
	default:
		names, err := store.StockNames(ctx)
		if err != nil {
			return nil, err
		}
		for c := range names {
			if code, err := market.ParseCode(c); err == nil {
				codes = append(codes, code)
			}
		}
		if len(codes) == 0 {
			quotes, err := src.Quotes().Quotes(ctx)
			if err != nil {
				return nil, fmt.Errorf("listing every stock (the stocks table is empty, so from the quote list): %w", err)
			}
			for _, q := range quotes {
				if !q.Code.IsZero() {
					codes = append(codes, q.Code)
				}
			}
		}
	}
	slices.SortFunc(codes, func(a, b market.Code) int { return strings.Compare(a.String(), b.String()) })
	return slices.Compact(codes), nil
}

// backfillTally adds up a run per code: a minute backfill visits each code
// once per window.
type backfillTally struct {
	written int
	perCode map[market.Code]*codeTally
}

type codeTally struct {
	written int
	stored  int // after the code's last window; -1 unknown
}

func newBackfillTally() *backfillTally { return &backfillTally{perCode: map[market.Code]*codeTally{}} }

func (t *backfillTally) add(code market.Code, written, stored int) {
	c, ok := t.perCode[code]
	if !ok {
		c = &codeTally{}
		t.perCode[code] = c
	}
	c.written += written
	c.stored = stored
	t.written += written
}

func (t *backfillTally) codes() int { return len(t.perCode) }

// unvisited is the codes of the run the source did not know: the service
// skips them without a word to the progress callback.
func (t *backfillTally) unvisited(codes []market.Code) []market.Code {
	var out []market.Code
	for _, c := range codes {
		if _, ok := t.perCode[c]; !ok {
			out = append(out, c)
		}
	}
	return out
}

// listCodes names the first max codes and counts the rest.
func listCodes(codes []market.Code, max int) string {
	var names []string
	for _, c := range codes[:min(len(codes), max)] {
		names = append(names, c.String())
	}
	s := strings.Join(names, ", ")
	if len(codes) > max {
		s += fmt.Sprintf(" and %d more", len(codes)-max)
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// unchanged is the bars the visited series held before the run: their
// stored count now less what the run wrote.
func (t *backfillTally) unchanged() int {
	n := 0
	for _, c := range t.perCode {
		if c.stored >= 0 {
			n += max(0, c.stored-c.written)
		}
	}
	return n
}

// unknownCodes counts the codes the source did not know (Service.Backfill
// skips them), which only a completed run can tell.
func unknownCodes(runErr error, total, visited int) int {
	if runErr != nil {
		return 0
	}
	return total - visited
}

// group writes n with thousands separators: bar counts run to millions.
func group(n int) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
