package upstream

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"net/url"
	"strconv"

	"mdqs/internal/market"
)

const (
	szseReportPath = "/api/report/ShowReport/data"
	// szseDelistedCatalog is the report of the page 暂停/终止上市公司;
	// its tab2 is 终止上市公司 (tab1, 暂停上市, lists suspensions).
	szseDelistedCatalog = "1793_ssgs"
	szseDelistedTab     = "tab2"
	szseReferer         = "https://www.szse.cn/market/stock/suspend/index.html"
)

func (c *Exchanges) szseDelisted(ctx context.Context) ([]Delisting, error) {
	req := func(page int) request {
		return request{path: szseReportPath, referer: szseReferer, query: url.Values{
			"SHOWTYPE":  {"JSON"},
			"CATALOGID": {szseDelistedCatalog},
			"TABKEY":    {szseDelistedTab},
			"PAGENO":    {strconv.Itoa(page)},
			// The page's script adds a random number against caches.
			"random": {strconv.FormatFloat(rand.Float64(), 'f', 16, 64)},
		}}
	}
	rows, err := walk(ctx, c.szse, c.cfg.MaxPages, c.szse.fullPath(szseReportPath), req, decodeSZSEDelisted)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, &Error{Kind: KindEmpty, Source: SourceSZSE, Path: c.szse.fullPath(szseReportPath), Detail: "the delisted list has no rows"}
	}
	return dedupe(c.szse, rows), nil
}

// decodeSZSEDelisted reads one page of the report (szseReport).
//
// Required per row: zqdm (证券代码, six digits), and the keys zqjc
// (证券简称), ssrq (上市日期) and zzrq (终止上市日期); a date "-" or empty
// is unknown (0). Cells may hold markup, which is stripped.
func decodeSZSEDelisted(body []byte, chk *check) (listPage[Delisting], error) {
	rep, err := szseReport(body, szseDelistedTab)
	if err != nil {
		return listPage[Delisting]{}, err
	}
	out := listPage[Delisting]{pages: rep.pages, records: rep.records, rows: make([]Delisting, 0, len(rep.rows))}
	for i, m := range rep.rows {
		r := row{m: m, where: "row " + strconv.Itoa(i), c: chk}
		d := Delisting{Code: r.listCode("zqdm", market.SZ), Name: r.listName("zqjc"),
			Listed: r.listDay("ssrq"), Delisted: r.listDay("zzrq"), Source: SourceSZSE}
		if chk.err != nil {
			return listPage[Delisting]{}, chk.err
		}
		if d.Listed != 0 && d.Delisted != 0 && d.Delisted < d.Listed {
			chk.note("zzrq", "before ssrq")
		}
		out.rows = append(out.rows, d)
	}
	return out, nil
}

// szseReportPage is the report of one tab on one page: its rows, not yet
// read, and its counts.
type szseReportPage struct {
	pages, records int
	rows           []map[string]json.RawMessage
}

// szseReport reads one page of SZSE's ShowReport/data: a JSON array of
// reports (one per tab of the page), each
// {"metadata":{"tabkey","pagecount","recordcount","pagesize",...},"data":[...]}.
// The report whose metadata.tabkey is tab is the one asked for.
func szseReport(body []byte, tab string) (szseReportPage, error) {
	var reports []json.RawMessage
	if err := decodeJSON(body, &reports); err != nil {
		return szseReportPage{}, err
	}
	var rep struct {
		Metadata map[string]json.RawMessage `json:"metadata"`
		Data     json.RawMessage            `json:"data"`
	}
	found := false
	for i, raw := range reports {
		var r struct {
			Metadata map[string]json.RawMessage `json:"metadata"`
			Data     json.RawMessage            `json:"data"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			return szseReportPage{}, schemaErr("["+strconv.Itoa(i)+"]", "not a report object")
		}
		if t, _ := strOf(r.Metadata["tabkey"]); t == tab {
			rep, found = r, true
			break
		}
	}
	if !found {
		return szseReportPage{}, schemaErr("metadata.tabkey", "no report of %s among %d", tab, len(reports))
	}
	if rep.Data == nil {
		return szseReportPage{}, schemaErr("data", "missing in the %s report", tab)
	}
	records, err := pageInt(rep.Metadata["recordcount"], "metadata.recordcount")
	if err != nil {
		return szseReportPage{}, err
	}
	pages, err := szsePages(rep.Metadata, records)
	if err != nil {
		return szseReportPage{}, err
	}
	objs, err := objects(rep.Data, "data")
	if err != nil {
		return szseReportPage{}, err
	}
	return szseReportPage{pages: pages, records: records, rows: objs}, nil
}

// szsePages is metadata.pagecount, or when it is missing the pages
// recordcount fills at metadata.pagesize rows.
func szsePages(md map[string]json.RawMessage, records int) (int, error) {
	if _, has := md["pagecount"]; has {
		return pageInt(md["pagecount"], "metadata.pagecount")
	}
	size, err := pageInt(md["pagesize"], "metadata.pagesize")
	if err != nil {
		return 0, schemaErr("metadata.pagecount", "missing, and no page size to count pages by")
	}
	if size == 0 {
		return 0, schemaErr("metadata.pagesize", "zero")
	}
	return (records + size - 1) / size, nil
}
