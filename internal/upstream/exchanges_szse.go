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
	rows, err := c.walk(ctx, c.szse, c.szse.fullPath(szseReportPath), req, decodeSZSEDelisted)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, &Error{Kind: KindEmpty, Source: SourceSZSE, Path: c.szse.fullPath(szseReportPath), Detail: "the delisted list has no rows"}
	}
	return dedupe(c.szse, rows), nil
}

// decodeSZSEDelisted reads one page of the report: a JSON array of
// reports (one per tab of the page), each
// {"metadata":{"tabkey","pagecount","recordcount","pagesize",...},"data":[...]}.
// The report whose metadata.tabkey is tab2 is the one asked for.
//
// Required per row: zqdm (证券代码, six digits), and the keys zqjc
// (证券简称), ssrq (上市日期) and zzrq (终止上市日期); a date "-" or empty
// is unknown (0). Cells may hold markup, which is stripped.
func decodeSZSEDelisted(body []byte, chk *check) (listPage, error) {
	var reports []json.RawMessage
	if err := decodeJSON(body, &reports); err != nil {
		return listPage{}, err
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
			return listPage{}, schemaErr("["+strconv.Itoa(i)+"]", "not a report object")
		}
		if tab, _ := strOf(r.Metadata["tabkey"]); tab == szseDelistedTab {
			rep, found = r, true
			break
		}
	}
	if !found {
		return listPage{}, schemaErr("metadata.tabkey", "no report of %s among %d", szseDelistedTab, len(reports))
	}
	if rep.Data == nil {
		return listPage{}, schemaErr("data", "missing in the %s report", szseDelistedTab)
	}
	records, err := pageInt(rep.Metadata["recordcount"], "metadata.recordcount")
	if err != nil {
		return listPage{}, err
	}
	pages, err := szsePages(rep.Metadata, records)
	if err != nil {
		return listPage{}, err
	}
	objs, err := objects(rep.Data, "data")
	if err != nil {
		return listPage{}, err
	}
	out := listPage{pages: pages, records: records, rows: make([]Delisting, 0, len(objs))}
	for i, m := range objs {
		r := row{m: m, where: "row " + strconv.Itoa(i), c: chk}
		d := Delisting{Code: r.listCode("zqdm", market.SZ), Name: r.listName("zqjc"),
			Listed: r.listDay("ssrq"), Delisted: r.listDay("zzrq"), Source: SourceSZSE}
		if chk.err != nil {
			return listPage{}, chk.err
		}
		if d.Listed != 0 && d.Delisted != 0 && d.Delisted < d.Listed {
			chk.note("zzrq", "before ssrq")
		}
		out.rows = append(out.rows, d)
	}
	return out, nil
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
