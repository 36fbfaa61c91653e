package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"regexp"
	"strings"
	"time"

	"mdqs/internal/market"
)

// Source names of the exchanges' own lists, in errors, Status and the
// store (each stored fact names the list that states it).
const (
	SourceSZSE = "szse" // 深交所, www.szse.cn
	SourceSSE  = "sse"  // 上交所, query.sse.com.cn
)

// ExchangesConfig configures the clients of the exchanges' lists of
// delisted companies (终止上市公司) and of SZSE's list of short-name changes
// (简称变更). The Beijing exchange publishes neither that we know of, SSE
// no list of name changes.
type ExchangesConfig struct {
	SZSE SourceConfig
	SSE  SourceConfig
	// MaxPages bounds one list's walk: a reply announcing more pages is
	// refused as a schema error rather than followed (the lists hold some
	// hundreds of rows: about 20 pages of SZSE's 20 rows, one of SSE's 500).
	MaxPages int
	// NameChangePages bounds the walk of SZSE's list of short-name changes
	// alike: it holds thousands of rows (some 7,500 by a public count, 375
	// pages of 20), so its bound is its own.
	NameChangePages int
}

// DefaultExchangesConfig: one request a second to each exchange, which is
// more than a weekly walk of a few dozen pages needs.
func DefaultExchangesConfig() ExchangesConfig {
	base := SourceConfig{
		Timeout:         20 * time.Second,
		Retries:         3,
		BackoffBase:     time.Second,
		BackoffMax:      10 * time.Second,
		Rate:            1,
		Burst:           2,
		UserAgent:       DefaultUserAgent,
		MaxBody:         8 << 20,
		BreakerFailures: 5,
		BreakerCooldown: 30 * time.Second,
	}
	sz, sh := base, base
	sz.BaseURL = "https://www.szse.cn"
	sh.BaseURL = "https://query.sse.com.cn"
	return ExchangesConfig{SZSE: sz, SSE: sh, MaxPages: 100, NameChangePages: 1000}
}

func (c ExchangesConfig) withDefaults() ExchangesConfig {
	d := DefaultExchangesConfig()
	c.SZSE = c.SZSE.withDefaults(d.SZSE)
	c.SSE = c.SSE.withDefaults(d.SSE)
	if c.MaxPages <= 0 {
		c.MaxPages = d.MaxPages
	}
	if c.NameChangePages <= 0 {
		c.NameChangePages = d.NameChangePages
	}
	return c
}

// Delisting is one row of an exchange's list of delisted companies: the
// code as it last traded, its last short name, and the days the list
// states (0 when it says "-" or nothing).
type Delisting struct {
	Code     market.Code
	Name     string
	Listed   market.Day
	Delisted market.Day
	Source   string // SourceSZSE or SourceSSE
}

// Exchanges reads the exchanges' lists of delisted companies and of
// short-name changes.
type Exchanges struct {
	szse, sse *fetcher
	cfg       ExchangesConfig
}

// NewExchanges builds the client; zero config fields take
// DefaultExchangesConfig(), and a nil clock is the system clock.
func NewExchanges(cfg ExchangesConfig, lims *Limiters, clock market.Clock) (*Exchanges, error) {
	cfg = cfg.withDefaults()
	sz, err := newFetcher(SourceSZSE, cfg.SZSE, lims, clock)
	if err != nil {
		return nil, err
	}
	sh, err := newFetcher(SourceSSE, cfg.SSE, lims, clock)
	if err != nil {
		return nil, err
	}
	return &Exchanges{szse: sz, sse: sh, cfg: cfg}, nil
}

// Sources are the lists Delisted reads, in the order it reads them.
func (c *Exchanges) Sources() []string { return []string{SourceSZSE, SourceSSE} }

// Statuses is each list's health.
func (c *Exchanges) Statuses() []Status { return []Status{c.szse.snapshot(), c.sse.snapshot()} }

// Delisted reads both lists. The rows of a list that failed are left out
// and its error is joined to the result, so a caller storing per source
// stores the list that answered; a nil error means both did.
func (c *Exchanges) Delisted(ctx context.Context) ([]Delisting, error) {
	var out []Delisting
	var errs []error
	for _, src := range c.Sources() {
		rows, err := c.DelistedFrom(ctx, src)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, rows...)
	}
	return out, errors.Join(errs...)
}

// DelistedFrom reads one list whole, every page of it; a list that could
// not be read whole is an error and no rows, since a caller replaces its
// stored copy with what this returns.
func (c *Exchanges) DelistedFrom(ctx context.Context, source string) (rows []Delisting, err error) {
	switch source {
	case SourceSZSE:
		defer c.szse.observe(c.szse.clock.Now(), &err)
		return c.szseDelisted(ctx)
	case SourceSSE:
		defer c.sse.observe(c.sse.clock.Now(), &err)
		return c.sseDelisted(ctx)
	}
	return nil, market.Errorf(market.KindInvalid, "delisted list %q: want %s or %s", source, SourceSZSE, SourceSSE)
}

// listPage is one decoded page of a list: its rows and what it says of
// the whole list (pages and rows in all; -1 when it does not say).
type listPage[T any] struct {
	pages, records int
	rows           []T
}

// walk reads pages 1..n of one list, n as page 1 announces it (at most
// maxPages), and checks the rows arrived: fewer than announced (the list
// moved between pages, or a page came back short) is KindPartial with no
// rows.
func walk[T any](ctx context.Context, f *fetcher, maxPages int, path string, req func(page int) request, decode func([]byte, *check) (listPage[T], error)) ([]T, error) {
	chk := &check{}
	var first listPage[T]
	var rows []T
	for page, pages := 1, 1; page <= pages; page++ {
		var p listPage[T]
		err := f.get(ctx, req(page), func(b []byte) error {
			var err error
			p, err = decode(b, chk)
			if err == nil && page == 1 && p.pages > maxPages {
				return schemaErr("pagecount", "%d pages announced, more than the bound of %d", p.pages, maxPages)
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		if page == 1 {
			first, pages = p, max(p.pages, 1)
		}
		if len(p.rows) == 0 && page > 1 {
			return nil, &Error{Kind: KindPartial, Source: f.source, Path: path,
				Detail: fmt.Sprintf("page %d of %d is empty", page, pages)}
		}
		rows = append(rows, p.rows...)
	}
	if first.records >= 0 && len(rows) < first.records {
		return nil, &Error{Kind: KindPartial, Source: f.source, Path: path,
			Detail: fmt.Sprintf("%d rows read of the %d announced", len(rows), first.records)}
	}
	f.noteDrift(chk)
	return rows, nil
}

// dedupe keeps each code's first row: a list naming a code twice is
// drift, not a reason to refuse it.
func dedupe(f *fetcher, rows []Delisting) []Delisting {
	seen := make(map[market.Code]bool, len(rows))
	out := rows[:0]
	repeated := 0
	for _, r := range rows {
		if seen[r.Code] {
			repeated++
			continue
		}
		seen[r.Code] = true
		out = append(out, r)
	}
	if repeated > 0 {
		f.status.drift(f.clock.Now(), fmt.Sprintf("%d repeated codes in the delisted list", repeated))
	}
	return out
}

var tagRE = regexp.MustCompile(`<[^>]*>`)

// listText reads a text cell of the exchanges' reports. SZSE's report
// cells may carry markup (a link around a name, <u>, &amp;): the tags go,
// entities are unescaped and spaces folded, as the public parsers of
// these reports do. "-" and "" are not applicable.
func listText(raw json.RawMessage) (string, state) {
	s, st := strOf(raw)
	if st != ok {
		return "", st
	}
	s = html.UnescapeString(tagRE.ReplaceAllString(s, ""))
	s = strings.Join(strings.Fields(strings.ReplaceAll(s, "\u00a0", " ")), " ")
	switch s {
	case "", "-", "--":
		return "", na
	}
	return s, ok
}

// listCode is a required six-digit code on ex.
func (r row) listCode(key string, ex market.Exchange) market.Code {
	s, st := listText(r.m[key])
	switch st {
	case absent:
		r.c.fail(key, "missing in %s", r.where)
	case na:
		r.c.fail(key, "empty or \"-\" in %s", r.where)
	case bad:
		r.c.fail(key, "not a string in %s: %s", r.where, clip(string(r.m[key]), 40))
	}
	if st != ok {
		return market.Code{}
	}
	if len(s) != 6 || strings.Trim(s, "0123456789") != "" {
		r.c.fail(key, "not a six-digit code in %s: %q", r.where, clip(s, 20))
		return market.Code{}
	}
	return market.Code{Symbol: s, Exchange: ex}
}

// listName is a short name whose key must be there; an empty value is
// kept as "" (the code still was delisted).
func (r row) listName(key string) string {
	s, st := listText(r.m[key])
	switch st {
	case absent:
		r.c.fail(key, "missing in %s", r.where)
	case bad:
		r.c.fail(key, "not a string in %s: %s", r.where, clip(string(r.m[key]), 40))
	}
	return s
}

// listDay is a date cell, YYYY-MM-DD or YYYYMMDD; "-" or empty is 0
// (unknown). The key must be there, and a date of another shape fails the
// call: a day read wrongly is worse than none.
func (r row) listDay(key string) market.Day {
	s, st := listText(r.m[key])
	switch st {
	case absent:
		r.c.fail(key, "missing in %s", r.where)
	case bad:
		r.c.fail(key, "not a string in %s: %s", r.where, clip(string(r.m[key]), 40))
	}
	if st != ok {
		return 0
	}
	d, err := market.ParseDay(s)
	if err != nil {
		r.c.fail(key, "not a date in %s: %q", r.where, clip(s, 20))
		return 0
	}
	return d
}

// pageInt reads a page or row count: a non-negative integer, as a number
// or a numeric string.
func pageInt(raw json.RawMessage, field string) (int, error) {
	v, st := numOf(raw)
	switch {
	case st == absent:
		return 0, schemaErr(field, "missing")
	case st != ok || v < 0 || v != float64(int64(v)) || v > 1e7:
		return 0, schemaErr(field, "not a count: %s", clip(string(raw), 20))
	}
	return int(v), nil
}
