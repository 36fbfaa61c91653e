package upstream

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"

	"mdqs/internal/market"
)

const (
	sseQueryPath = "/commonQuery.do"
	// sseDelistedSQL is the query of the page 终止上市 (the sqlId its own
	// script asks for that list); COMPANY_STATUS 3 is 终止上市.
	sseDelistedSQL = "COMMON_SSE_CP_GPJCTPZ_GPLB_ZZGP_L"
	// SSE refuses a query without a Referer of its own site.
	sseReferer  = "https://www.sse.com.cn/"
	ssePageSize = 500
)

// sseStockTypes are the boards whose lists are read: 1 the main board's
// A shares, 8 the STAR Market (科创板).
var sseStockTypes = []string{"1", "8"}

func (c *Exchanges) sseDelisted(ctx context.Context) ([]Delisting, error) {
	var all []Delisting
	for _, typ := range sseStockTypes {
		req := func(page int) request {
			p := strconv.Itoa(page)
			return request{path: sseQueryPath, referer: sseReferer, query: url.Values{
				"sqlId":              {sseDelistedSQL},
				"type":               {"inParams"},
				"isPagination":       {"true"},
				"STOCK_CODE":         {""},
				"CSRC_CODE":          {""},
				"REG_PROVINCE":       {""},
				"STOCK_TYPE":         {typ},
				"COMPANY_STATUS":     {"3"},
				"pageHelp.pageSize":  {strconv.Itoa(ssePageSize)},
				"pageHelp.pageNo":    {p},
				"pageHelp.beginPage": {p},
				"pageHelp.cacheSize": {"1"},
				"pageHelp.endPage":   {strconv.Itoa(page*10 + 1)},
			}}
		}
		rows, err := walk(ctx, c.sse, c.cfg.MaxPages, c.sse.fullPath(sseQueryPath), req, decodeSSEDelisted)
		if err != nil {
			return nil, err
		}
		all = append(all, rows...)
	}
	// A board may have no delisted company; the exchange as a whole has
	// hundreds, so nothing at all is a failure.
	if len(all) == 0 {
		return nil, &Error{Kind: KindEmpty, Source: SourceSSE, Path: c.sse.fullPath(sseQueryPath), Detail: "the delisted lists have no rows"}
	}
	return dedupe(c.sse, all), nil
}

// decodeSSEDelisted reads one page of commonQuery.do:
// {"pageHelp":{"data":[...],"total","pageSize","pageNo","pageCount",...},
// "result":[...],"success",...}. The rows are read from result (what the
// site's script and akshare read), else from pageHelp.data, which holds
// the same rows. success false is an RC error.
//
// Required per row: COMPANY_CODE (or A_STOCK_CODE; six digits), and the
// keys COMPANY_ABBR, LIST_DATE and DELIST_DATE (YYYYMMDD or YYYY-MM-DD;
// "-" or empty is unknown). QIANYI_DATE, which some scripts read, is a
// migration time, not a delisting day, and is not read.
func decodeSSEDelisted(body []byte, chk *check) (listPage[Delisting], error) {
	var env struct {
		PageHelp map[string]json.RawMessage `json:"pageHelp"`
		Result   json.RawMessage            `json:"result"`
		Success  json.RawMessage            `json:"success"`
		Message  json.RawMessage            `json:"message"`
	}
	if err := decodeJSON(body, &env); err != nil {
		return listPage[Delisting]{}, err
	}
	if s := string(env.Success); s == "false" || s == `"false"` {
		msg, _ := strOf(env.Message)
		return listPage[Delisting]{}, &Error{Kind: KindRC, RC: -1, Detail: clip("success false: "+msg, 120)}
	}
	if env.PageHelp == nil {
		return listPage[Delisting]{}, schemaErr("pageHelp", "missing")
	}
	rowsRaw := env.Result
	if isNull(rowsRaw) {
		rowsRaw = env.PageHelp["data"]
	}
	objs, err := objects(rowsRaw, "result")
	if err != nil {
		return listPage[Delisting]{}, err
	}
	total, err := pageInt(env.PageHelp["total"], "pageHelp.total")
	if err != nil {
		return listPage[Delisting]{}, err
	}
	pages, err := ssePages(env.PageHelp, total)
	if err != nil {
		return listPage[Delisting]{}, err
	}
	out := listPage[Delisting]{pages: pages, records: total, rows: make([]Delisting, 0, len(objs))}
	for i, m := range objs {
		r := row{m: m, where: "row " + strconv.Itoa(i), c: chk}
		key := "COMPANY_CODE"
		if _, has := m[key]; !has {
			if _, alt := m["A_STOCK_CODE"]; alt {
				key = "A_STOCK_CODE"
			}
		}
		d := Delisting{Code: r.listCode(key, market.SH), Name: r.listName("COMPANY_ABBR"),
			Listed: r.listDay("LIST_DATE"), Delisted: r.listDay("DELIST_DATE"), Source: SourceSSE}
		if chk.err != nil {
			return listPage[Delisting]{}, chk.err
		}
		if d.Listed != 0 && d.Delisted != 0 && d.Delisted < d.Listed {
			chk.note("DELIST_DATE", "before LIST_DATE")
		}
		out.rows = append(out.rows, d)
	}
	return out, nil
}

// ssePages is pageHelp.pageCount, or when it is missing the pages total
// fills at pageHelp.pageSize rows.
func ssePages(ph map[string]json.RawMessage, total int) (int, error) {
	if raw, has := ph["pageCount"]; has && !isNull(raw) {
		return pageInt(raw, "pageHelp.pageCount")
	}
	size, err := pageInt(ph["pageSize"], "pageHelp.pageSize")
	if err != nil || size == 0 {
		return 0, schemaErr("pageHelp.pageCount", "missing, and no page size to count pages by")
	}
	return (total + size - 1) / size, nil
}
