package upstream

import (
	"context"
	"math/rand/v2"
	"net/url"
	"strconv"

	"mdqs/internal/market"
)

const (
	// szseRenamesCatalog is the report of SZSE's page of renamed companies
	// (www.szse.cn/market/stock/changename/index.html): its tab1 lists
	// changes of the full company name (全称变更), its tab2 changes of the
	// short name (简称变更), the name quotes carry.
	szseRenamesCatalog = "SSGSGMXX"
	szseRenamesTab     = "tab2"
	szseRenamesReferer = "https://www.szse.cn/market/stock/changename/index.html"
)

// NameChange is one row of an exchange's list of short-name changes: on
// Day the code's short name went from Before to After. Day is 0 when the
// list says "-" or nothing; a name is "" when its cell is empty.
type NameChange struct {
	Code          market.Code
	Day           market.Day
	Before, After string
	Source        string // SourceSZSE
}

// NameChangeSources are the lists of short-name changes NameChangesFrom
// reads. SSE and BSE publish none that we know of.
func (c *Exchanges) NameChangeSources() []string { return []string{SourceSZSE} }

// NameChangesFrom reads one list of short-name changes whole, every page
// of it; a list that could not be read whole is an error and no rows,
// since a caller replaces its stored copy with what this returns.
func (c *Exchanges) NameChangesFrom(ctx context.Context, source string) (rows []NameChange, err error) {
	if source != SourceSZSE {
		return nil, market.Errorf(market.KindInvalid, "name-change list %q: only %s publishes one that mdqs knows of", source, SourceSZSE)
	}
	defer c.szse.observe(c.szse.clock.Now(), &err)
	req := func(page int) request {
		return request{path: szseReportPath, referer: szseRenamesReferer, query: url.Values{
			"SHOWTYPE":  {"JSON"},
			"CATALOGID": {szseRenamesCatalog},
			"TABKEY":    {szseRenamesTab},
			"PAGENO":    {strconv.Itoa(page)},
			"random":    {strconv.FormatFloat(rand.Float64(), 'f', 16, 64)},
		}}
	}
	rows, err = walk(ctx, c.szse, c.cfg.NameChangePages, c.szse.fullPath(szseReportPath), req, decodeSZSENameChanges)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, &Error{Kind: KindEmpty, Source: SourceSZSE, Path: c.szse.fullPath(szseReportPath), Detail: "the list of short-name changes has no rows"}
	}
	return dedupeChanges(c.szse, rows), nil
}

// decodeSZSENameChanges reads one page of the report (szseReport).
//
// Required per row: zqdm (证券代码, six digits), and the keys bgrq (变更日期,
// "-" or empty is unknown), bgqzqjc (变更前简称) and bghzqjc (变更后简称).
// zqjc, the code's short name today, is not read: the changes say more.
func decodeSZSENameChanges(body []byte, chk *check) (listPage[NameChange], error) {
	rep, err := szseReport(body, szseRenamesTab)
	if err != nil {
		return listPage[NameChange]{}, err
	}
	out := listPage[NameChange]{pages: rep.pages, records: rep.records, rows: make([]NameChange, 0, len(rep.rows))}
	for i, m := range rep.rows {
		r := row{m: m, where: "row " + strconv.Itoa(i), c: chk}
		n := NameChange{Code: r.listCode("zqdm", market.SZ), Day: r.listDay("bgrq"),
			Before: r.listName("bgqzqjc"), After: r.listName("bghzqjc"), Source: SourceSZSE}
		if chk.err != nil {
			return listPage[NameChange]{}, chk.err
		}
		// Kept all the same: the page's count includes them, and a row
		// dropped here would read as a list that shrank.
		switch {
		case n.After == "":
			chk.note("bghzqjc", "empty")
		case n.Before == n.After:
			chk.note("bghzqjc", "equal to bgqzqjc")
		}
		out.rows = append(out.rows, n)
	}
	return out, nil
}

// dedupeChanges keeps the first of rows that state the same change (code,
// day and new name): a repeat is drift, not a reason to refuse the list.
func dedupeChanges(f *fetcher, rows []NameChange) []NameChange {
	type key struct {
		code  market.Code
		day   market.Day
		after string
	}
	seen := make(map[key]bool, len(rows))
	out := rows[:0]
	for _, r := range rows {
		k := key{r.Code, r.Day, r.After}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, r)
	}
	if n := len(rows) - len(out); n > 0 {
		f.status.drift(f.clock.Now(), strconv.Itoa(n)+" repeated rows in the list of short-name changes")
	}
	return out
}
