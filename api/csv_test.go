package api

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"

	"mdqs/internal/hotrank"
	"mdqs/internal/kline"
)

// csvRefused are the endpoints whose JSON holds a list of records but
// which answer JSON only, and why: TestEveryListOffersCSV holds every
// other such endpoint to an entry in csvOf.
var csvRefused = map[string]string{
	"/v1/api/health/cache":       "the server's own state, read by monitors",
	"/v1/api/health/sources":     "the server's own state, read by monitors",
	"/readyz":                    "a probe, read by orchestrators",
	"/v1/api/quality":            "one day's report: several comparisons of different shapes, no one table",
	"/v1/api/securities/history": "one security's record: three histories of different shapes, no one table",
}

// TestEveryListOffersCSV walks every GET of openapi.json: one whose JSON
// answer holds a list of records (a member of its data, or of the answer
// itself, that is a list of objects) must offer CSV (csvOf) or say in
// csvRefused why not; one that offers it must document it (text/csv, the
// format and bom parameters), and its declared rows must be lists in its
// schema. So a new list endpoint cannot silently lack CSV.
func TestEveryListOffersCSV(t *testing.T) {
	doc, err := parseOrdered(openAPISource)
	if err != nil {
		t.Fatal(err)
	}
	var offered []string
	for _, path := range doc.at("paths").keys {
		op := doc.at("paths", path, "get")
		if op == nil {
			continue
		}
		_, ok := csvOf(path)
		lists := recordLists(doc, path)
		why, refused := csvRefused[path]
		switch {
		case len(lists) > 0 && !ok && !refused:
			t.Errorf("GET %s answers lists of records (%s) but offers no CSV: add it to csvOf (api/csv_rows.go), or say why not in csvRefused", path, strings.Join(lists, ", "))
		case ok && refused:
			t.Errorf("GET %s offers CSV and is refused it (%s)", path, why)
		case refused && len(lists) == 0:
			t.Errorf("GET %s is in csvRefused but answers no list of records", path)
		}
		csvDoc := doc.at("paths", path, "get", "responses", "200", "content", "text/csv")
		if !ok {
			if csvDoc != nil {
				t.Errorf("GET %s documents text/csv but offers no CSV", path)
			}
			continue
		}
		offered = append(offered, path)
		spec, _ := csvOf(path)
		if _, err := doc.rowColumns(path, spec); err != nil {
			t.Errorf("csvOf(%s): %v", path, err)
		}
		if len(csvColumns()[path]) == 0 {
			t.Errorf("GET %s: no columns for an answer without rows", path)
		}
		if csvDoc == nil {
			t.Errorf("GET %s offers CSV but its 200 answer documents no text/csv content", path)
		}
		var params []string
		for _, p := range op.at("parameters").list() {
			params = append(params, doc.resolve(p).str("name"))
		}
		for _, want := range []string{"format", "bom"} {
			if !slices.Contains(params, want) {
				t.Errorf("GET %s offers CSV but does not document the parameter %s", path, want)
			}
		}
	}
	// What the API answers as CSV, said once here so that a change to it
	// is a change to this test too.
	want := []string{"/v1/api/boards/top50", "/v1/api/strategy/auction/today", "/v1/api/market/stats/range",
		"/v1/api/boards/industry", "/v1/api/boards/concept", "/v1/api/market/movements", "/v1/api/market/movements/events",
		"/v1/api/kline", "/v1/api/kline/with_realtime", "/v1/api/kline/adjusted", "/v1/api/corporate_actions",
		"/v1/api/intraday/kline", "/v1/api/indicators/macd_bs", "/v1/api/indicators/micro_momentum",
		"/v1/api/monitor/chip_metrics", "/v1/api/securities", "/v1/api/archive/status", "/v1/api/meta/stocks",
		"/v1/api/blocks", "/v1/api/block/members", "/v1/api/minutes", "/v1/api/hot_rank", "/v1/api/hot_rank/detail",
		"/v1/api/hot_rank_list", "/v1/api/news/list", "/v1/api/financial-reports", "/v1/api/screener/queue/result",
		"/v1/api/screener/fields", "/v1/api/alerts", "/v1/api/alerts/events", "/v1/api/alerts/deliveries", "/v1/api/quotes", "/v1/api/bars/daily",
		"/v1/api/bars/minute", "/v1/api/index/members", "/v1/api/index/changes", "/v1/api/lhb", "/v1/api/lhb/seats",
		"/v1/api/limit_pool", "/v1/api/limit_ladder", "/v1/api/etfs", "/v1/api/calendar"}
	slices.Sort(want)
	slices.Sort(offered)
	if !slices.Equal(offered, want) {
		t.Errorf("the endpoints offering CSV are\n%v\nwant\n%v", offered, want)
	}
}

// recordLists are the members of GET path's JSON answer (of its data in
// the envelope, or of the answer itself) that are lists of objects.
func recordLists(doc *jnode, path string) []string {
	answer := doc.answerSchema(path)
	if answer == nil {
		return nil
	}
	holders := map[string]*jnode{"": answer}
	if data := doc.property(answer, "data"); data != nil {
		holders["data"] = data
	}
	var out []string
	for at, h := range holders {
		for _, name := range doc.propertyNames(h) {
			p := doc.property(h, name)
			if p == nil || !doc.isList(p) {
				continue
			}
			if items := doc.keyword(p, "items"); items != nil && (doc.keyword(items, "type") != nil && doc.keyword(items, "type").scalar == "object" || len(doc.propertyNames(items)) > 0) {
				out = append(out, strings.TrimPrefix(at+"."+name, "."))
			}
		}
	}
	slices.Sort(out)
	return out
}

// checkCSVTwin asks target again as CSV and holds the answer to the JSON
// one: the same rows in the same order, every JSON field a column whose
// cells are the JSON's values as the JSON wrote them.
func checkCSVTwin(t *testing.T, path string, jsonAnswer, csvAnswer response) {
	t.Helper()
	spec, _ := csvOf(path)
	if csvAnswer.status != http.StatusOK {
		t.Errorf("GET %s as CSV = %d, its JSON 200: %.300s", path, csvAnswer.status, csvAnswer.raw)
		return
	}
	if ct := csvAnswer.header.Get("Content-Type"); ct != csvType {
		t.Errorf("GET %s as CSV: Content-Type %q, want %q", path, ct, csvType)
	}
	records, err := csv.NewReader(bytes.NewReader(csvAnswer.raw)).ReadAll()
	if err != nil || len(records) == 0 {
		t.Errorf("GET %s as CSV: not CSV with a header row (%v): %.300s", path, err, csvAnswer.raw)
		return
	}
	header := records[0]
	rows, names := jsonRows(t, jsonAnswer.raw, spec)
	if len(rows) != len(records)-1 {
		t.Errorf("GET %s: %d CSV rows, %d JSON rows", path, len(records)-1, len(rows))
		return
	}
	if len(rows) == 0 && len(header) == 0 {
		t.Errorf("GET %s: an empty CSV without its header row", path)
	}
	for i, row := range rows {
		for k := range row {
			if !slices.Contains(header, k) {
				t.Errorf("GET %s row %d: the JSON's %q is no CSV column %v", path, i, k, header)
			}
		}
		for j, col := range header {
			got := records[i+1][j]
			if len(spec.rows) > 1 && col == "list" {
				if got != names[i] {
					t.Errorf("GET %s row %d: list %q, want %q", path, i, got, names[i])
				}
				continue
			}
			v, present := row[col]
			if want, ok := cellText(v); !present && got != "" || present && ok && got != want {
				t.Errorf("GET %s row %d %s: CSV %q, JSON %s", path, i, col, got, mustJSON(v))
			} else if present && !ok {
				var back any
				d := json.NewDecoder(strings.NewReader(got))
				d.UseNumber()
				if err := d.Decode(&back); err != nil || !reflect.DeepEqual(back, v) {
					t.Errorf("GET %s row %d %s: CSV %q is not the JSON's %s", path, i, col, got, mustJSON(v))
				}
			}
		}
	}
}

// jsonRows are spec's rows of a JSON answer, decoded with their numbers'
// digits kept, and the list each came from.
func jsonRows(t *testing.T, raw []byte, spec csvRows) ([]map[string]any, []string) {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	holder := v
	if spec.at != "" {
		for _, k := range strings.Split(spec.at, ".") {
			holder = holder.(map[string]any)[k]
		}
	}
	var rows []map[string]any
	var names []string
	found := false
	for _, name := range spec.rows {
		list, ok := holder.(map[string]any)[name].([]any)
		if !ok {
			continue
		}
		found = true
		for _, x := range list {
			row, ok := x.(map[string]any)
			if !ok {
				row = map[string]any{name: x}
			}
			rows = append(rows, row)
			names = append(names, name)
		}
	}
	if !found {
		if one, ok := holder.(map[string]any); ok {
			rows, names = append(rows, one), append(names, "")
		}
	}
	return rows, names
}

// cellText is a scalar JSON value as the CSV must hold it; ok is false
// for an object or a list.
func cellText(v any) (string, bool) {
	switch x := v.(type) {
	case nil:
		return "", true
	case string:
		return x, true
	case json.Number:
		return string(x), true
	case bool:
		if x {
			return "true", true
		}
		return "false", true
	}
	return "", false
}

func mustJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

// withParam adds a query parameter to a target.
func withParam(target, param string) string {
	if strings.Contains(target, "?") {
		return target + "&" + param
	}
	return target + "?" + param
}

// TestCSVAnswers asks a few endpoints of different shapes for CSV in each
// way it can be asked: the answer is the JSON's rows, with the answer's
// scalars as headers. (TestResponsesMatchOpenAPI asks every endpoint.)
func TestCSVAnswers(t *testing.T) {
	h := newInfoHarnessAt(t, t0)
	admin := h.admin
	if err := h.api.Klines.EndOfDay(context.Background(), h.harness.demo, kline.EODConfig{SeedDays: 60}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.api.Info.HotRank.Import(context.Background(), hotrank.ImportRequest{Day: 20261120}); err != nil {
		t.Fatal(err)
	}
	get := func(target string, hdr http.Header) response {
		t.Helper()
		sig := h.signedHeader(admin, nil)
		for k, v := range hdr {
			sig[k] = v
		}
		return h.raw(http.MethodGet, target, nil, sig)
	}
	for _, tc := range []struct {
		name, target string
		accept       string
		headers      map[string]string // a few of the headers the answer must carry
	}{
		{"kline rows", "/v1/api/kline?code=600519.SH&freq=D&start=2026-11-02&end=2026-11-20&indicators=ma5&format=csv", "",
			map[string]string{"X-Mdqs-Source": "store", "X-Mdqs-As-Of": "2026-11-20", "X-Mdqs-Code": "600519.SH", "X-Mdqs-Count": "15", "X-Mdqs-Final-Through": "2026-11-20"}},
		{"asked by Accept", "/v1/api/kline?code=600519.SH&freq=5m&start=2026-11-20&end=2026-11-20", "text/csv", map[string]string{"X-Mdqs-Freq": "5m"}},
		{"Accept prefers csv", "/v1/api/kline?code=600519.SH&freq=D&start=2026-11-16&end=2026-11-20", "application/json;q=0.5, text/csv", nil},
		{"the envelope's data and its meta", "/v1/api/boards/industry?format=csv", "",
			map[string]string{"X-Mdqs-Source": "push2", "X-Mdqs-As-Of": "2026-11-23 10:00:00", "X-Mdqs-Total": "12", "X-Mdqs-Type": "industry"}},
		{"the ranking's six lists", "/v1/api/boards/top50?top=3&format=csv", "", map[string]string{"X-Mdqs-Source": "push2", "X-Mdqs-As-Of": "2026-11-23 10:00:00", "X-Mdqs-Day": "20261123"}},
		{"paged", "/v1/api/monitor/chip_metrics?page=2&page_size=5&format=csv", "",
			map[string]string{"X-Mdqs-Page": "2", "X-Mdqs-Page-Size": "5", "X-Mdqs-Total": "299", "X-Mdqs-Source": "store"}},
		{"sources of the rows", "/v1/api/hot_rank?date=2026-11-20&page=1&size=5&format=csv", "", map[string]string{"X-Mdqs-Source": "demo", "X-Mdqs-Size": "5"}},
		{"nested values", "/v1/api/market/stats/range?start=20261116&end=20261123&top=3&format=csv", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var hdr http.Header
			if tc.accept != "" {
				hdr = http.Header{"Accept": {tc.accept}}
			}
			got := get(tc.target, hdr)
			u, _ := url.Parse(tc.target)
			q := u.Query()
			q.Del("format")
			u.RawQuery = q.Encode()
			checkCSVTwin(t, u.Path, get(u.String(), nil), got)
			for k, want := range tc.headers {
				if v := got.header.Get(k); v != want {
					t.Errorf("%s = %q, want %q", k, v, want)
				}
			}
			if got.header.Get("Etag") != "" || got.header.Get("Content-Encoding") != "" {
				t.Errorf("the JSON's ETag or encoding on the CSV: %v", got.header)
			}
		})
	}

	t.Run("the same digits as the JSON", func(t *testing.T) {
		target := "/v1/api/kline?code=600519.SH&freq=D&start=2026-11-02&end=2026-11-20&indicators=ma5,macd"
		js, cs := get(target, nil), get(target+"&format=csv", nil)
		// Each JSON number's text is in the CSV verbatim: no float noise
		// (1395.49 stays 1395.49, never 1395.4899999999998).
		var data struct {
			Rows []map[string]json.RawMessage `json:"rows"`
		}
		env := struct {
			Data *struct {
				Rows []map[string]json.RawMessage `json:"rows"`
			} `json:"data"`
		}{Data: &data}
		if err := json.Unmarshal(js.raw, &env); err != nil || len(data.Rows) == 0 {
			t.Fatalf("%v: %s", err, js.raw)
		}
		for _, f := range []string{"open", "close", "amount", "ma5", "macd_dif"} {
			if v := string(data.Rows[0][f]); !bytes.Contains(cs.raw, []byte(","+v+",")) && !bytes.Contains(cs.raw, []byte(","+v+"\n")) {
				t.Errorf("%s %s is not in the CSV's first row: %.200s", f, v, cs.raw)
			}
		}
	})

	t.Run("bom", func(t *testing.T) {
		r := get("/v1/api/boards/industry?format=csv&bom=1", nil)
		if !bytes.HasPrefix(r.raw, []byte(utf8BOM)) || bytes.HasPrefix(r.raw[3:], []byte(utf8BOM)) {
			t.Errorf("bom=1: %q", r.raw[:min(20, len(r.raw))])
		}
		if plain := get("/v1/api/boards/industry?format=csv", nil); bytes.HasPrefix(plain.raw, []byte(utf8BOM)) {
			t.Error("a BOM without bom=1")
		}
	})

	t.Run("one record where the list would be", func(t *testing.T) {
		created := h.signed(http.MethodPost, "/v1/api/alerts", admin, []byte(`{"expression":"pct > 5","name":"=cmd"}`))
		var a struct{ ID string }
		json.Unmarshal(created.data, &a)
		one := get("/v1/api/alerts?id="+a.ID+"&format=csv", nil)
		checkCSVTwin(t, "/v1/api/alerts", get("/v1/api/alerts?id="+a.ID, nil), one)
		// In Excel's form a text cell starting with "=" is kept from
		// becoming a formula; the plain form keeps it as it is.
		if excel := get("/v1/api/alerts?id="+a.ID+"&format=csv&bom=1", nil); !bytes.Contains(excel.raw, []byte(",'=cmd,")) {
			t.Errorf("bom=1 left a formula: %s", excel.raw)
		}
		if !bytes.Contains(one.raw, []byte(",=cmd,")) {
			t.Errorf("the plain CSV changed a value: %s", one.raw)
		}
	})

	t.Run("no rows: the header row alone", func(t *testing.T) {
		r := get("/v1/api/alerts/events?since=999999999&format=csv", nil)
		if r.status != 200 || !strings.HasPrefix(string(r.raw), "id,alert_id,alert_name,code,name,fired_at,fields\n") {
			t.Errorf("= %d %q", r.status, r.raw)
		}
	})

	t.Run("a Chinese header value is escaped", func(t *testing.T) {
		v := headerValue("沪深300 a%b\n")
		if v != "%E6%B2%AA%E6%B7%B1300 a%25b%0A" {
			t.Errorf("headerValue = %q", v)
		}
		if back, err := url.PathUnescape(v); err != nil || back != "沪深300 a%b\n" {
			t.Errorf("%q does not unescape back: %q %v", v, back, err)
		}
	})
}

// TestCSVFailuresStayJSON: whatever form was asked, a failure is the JSON
// envelope with its status, and a bad format is a 400 naming it.
func TestCSVFailuresStayJSON(t *testing.T) {
	h := newHarness(t)
	h.addClient("c", "secret-c", clientOpts{scopes: "*"})
	tok := h.token("c", "secret-c")
	for _, tc := range []struct {
		name, target string
		accept       string
		signed       bool
		status       int
		detail       string
	}{
		{"bad parameters", "/v1/api/kline?code=600519.SH&freq=2h&start=2026-11-02&end=2026-11-20&format=csv", "", true, 400, "freq"},
		{"not found", "/v1/api/boards/industry?code=BK9999&format=csv", "", true, 404, ""},
		{"unauthenticated", "/v1/api/boards/industry?format=csv", "", false, 401, ""},
		{"asked by Accept", "/v1/api/kline?code=600519.SH&freq=D", "text/csv", true, 400, ""},
		{"an unknown format", "/v1/api/boards/industry?format=xml", "", true, 400, "format must be one of json, csv"},
		{"a bad bom", "/v1/api/boards/industry?format=csv&bom=maybe", "", true, 400, "bom must be"},
		{"csv where only JSON is answered", "/v1/api/whoami?format=csv", "", true, 400, "answers JSON only"},
		{"on a public endpoint too", "/v1/api/health/db?format=csv", "", false, 400, "answers JSON only"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hdr := http.Header{}
			if tc.signed {
				hdr = h.signedHeader(tok, nil)
			}
			if tc.accept != "" {
				hdr.Set("Accept", tc.accept)
			}
			r := h.do(http.MethodGet, tc.target, nil, hdr) // fails unless the answer is JSON
			r.expect(t, tc.status, "")
			if !strings.Contains(r.detail, tc.detail) {
				t.Errorf("detail %q does not say %q", r.detail, tc.detail)
			}
		})
	}
	// Asking for JSON, or for CSV where only JSON is answered by Accept
	// (a preference), is JSON as before.
	for _, tc := range []struct{ target, accept string }{
		{"/v1/api/boards/industry?format=json", "text/csv"},
		{"/v1/api/boards/industry", "text/csv, application/json"},
		{"/v1/api/boards/industry", "*/*"},
		{"/v1/api/whoami", "text/csv"},
	} {
		hdr := h.signedHeader(tok, nil)
		hdr.Set("Accept", tc.accept)
		h.do(http.MethodGet, tc.target, nil, hdr).expect(t, 200, "")
	}
}

func TestPrefersCSV(t *testing.T) {
	for _, tc := range []struct {
		accept string
		want   bool
	}{
		{"", false},
		{"text/csv", true},
		{"TEXT/CSV; charset=utf-8", true},
		{"text/csv;q=0", false},
		{"text/csv, application/json", false},
		{"application/json;q=0.9, text/csv", true},
		{"text/csv;q=0.5, */*;q=0.1", true},
		{"text/csv;q=0.5, */*", false},
		{"text/html,application/xhtml+xml,*/*;q=0.8", false},
	} {
		if got := prefersCSV(tc.accept); got != tc.want {
			t.Errorf("prefersCSV(%q) = %v, want %v", tc.accept, got, tc.want)
		}
	}
}

// FuzzJSONToCSV feeds the CSV form's JSON walker (csv_scan.go) any bytes:
// it never panics, and on valid JSON it agrees with encoding/json: as
// many rows as the list holds, and the CSV parses back.
//
//	go test -run '^$' -fuzz FuzzJSONToCSV -fuzztime 1m ./api
func FuzzJSONToCSV(f *testing.F) {
	for _, s := range []string{
		`{"code":1,"message":"OK","data":{"source":"store","total":2,"items":[{"a":1,"b":"x"},{"b":"y\"z","c":null,"d":{"e":[1,2]}}]}}`,
		`{"data":{"items":[1,"two",null,true]}}`,
		`{"data":{"items":[]}}`,
		`{"data":{"id":"one","name":"=x"}}`,
		`{"data":{"items":[{"\u00e9":"\u4e2d","n":-1.5e-7}]} }`,
		` { "data" : { "items" : [ { "a" : 1 } , { "a" : 2 } ] } } `,
		`{"data":{"items":[{"a":1}`,
		`{"data":{"items":"no"}}`,
	} {
		f.Add([]byte(s))
	}
	spec := csvRows{at: "data", rows: []string{"items"}}
	f.Fuzz(func(t *testing.T, body []byte) {
		out, err := jsonToCSV(body, spec, false, http.Header{}, []string{"x"})
		// The oracle: encoding/json, names matched exactly (as the walker
		// does; encoding/json's structs would fold their case).
		var env, data map[string]json.RawMessage
		var items []json.RawMessage
		if !json.Valid(body) || json.Unmarshal(body, &env) != nil || json.Unmarshal(env["data"], &data) != nil ||
			json.Unmarshal(data["items"], &items) != nil || len(items) == 0 {
			return // any answer, or an error: only no panic
		}
		if err != nil {
			t.Fatalf("valid JSON with %d items: %v\n%s", len(items), err, body)
		}
		columns := false
		for _, it := range items {
			var obj map[string]json.RawMessage
			if json.Unmarshal(it, &obj) != nil || len(obj) > 0 {
				columns = true
			}
		}
		if !columns {
			return // rows of {} only: no column to write them in
		}
		records, err := csv.NewReader(bytes.NewReader(out)).ReadAll()
		if err != nil || len(records) != len(items)+1 {
			t.Fatalf("%d items gave %d records (%v):\n%s\n%s", len(items), len(records), err, body, out)
		}
	})
}
