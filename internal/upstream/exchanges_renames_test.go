package upstream

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"mdqs/internal/market"
)

func TestSZSENameChangesWalkEveryPage(t *testing.T) {
	c, rec := newTestExchanges(t, exchangePages{szse: szsePage(t, "made_szse_renames_p")})
	rows, err := c.NameChangesFrom(context.Background(), SourceSZSE)
	if err != nil {
		t.Fatal(err)
	}
	want := []NameChange{
		{Code: market.MustCode("000005.SZ"), Day: 20240506, Before: "世纪星源", After: "ST星源", Source: "szse"},
		{Code: market.MustCode("000001.SZ"), Day: 20120802, Before: "深发展Ａ", After: "平安银行", Source: "szse"},
		{Code: market.MustCode("000001.SZ"), Day: 20070620, Before: "S深发展A", After: "深发展Ａ", Source: "szse"},
		// "-" is an unknown day; entities and no-break spaces fold to one space.
		{Code: market.MustCode("200012.SZ"), Day: 0, Before: "S&T 玻璃Ｂ", After: "南 玻Ｂ", Source: "szse"},
	}
	if len(rows) != len(want) {
		t.Fatalf("rows %+v, want %d", rows, len(want))
	}
	for i := range want {
		if rows[i] != want[i] {
			t.Errorf("row %d = %+v, want %+v", i, rows[i], want[i])
		}
	}
	if rec.count() != 2 {
		t.Fatalf("requests = %d, want 2 (pagecount 2)", rec.count())
	}
	for i := range 2 {
		r := rec.req(i)
		q := r.URL.Query()
		if r.URL.Path != "/api/report/ShowReport/data" || q.Get("SHOWTYPE") != "JSON" || q.Get("CATALOGID") != "SSGSGMXX" ||
			q.Get("TABKEY") != "tab2" || q.Get("PAGENO") != []string{"1", "2"}[i] || q.Get("random") == "" {
			t.Errorf("request %d: %s", i, r.URL)
		}
		if r.Header.Get("Referer") != "https://www.szse.cn/market/stock/changename/index.html" {
			t.Errorf("request %d Referer %q", i, r.Header.Get("Referer"))
		}
	}
	if st := c.Statuses()[0]; st.Source != "szse" || st.Calls != 1 || st.Requests != 2 || st.Failures != 0 || st.Drift != "" {
		t.Errorf("status %+v", st)
	}
}

func TestNameChangesMalformedReplies(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		kind       Kind
		field      string
		requests   int
	}{
		{"renamed bghzqjc", "made_szse_renames_renamed_bghzqjc.json", KindSchema, "bghzqjc", 1},
		{"date of another shape", "made_szse_renames_bad_date.json", KindSchema, "bgrq", 1},
		{"absurd page count", "made_szse_renames_pagecount_absurd.json", KindSchema, "pagecount", 1},
		{"without its tab2 report", "made_szse_renames_tab1_only.json", KindSchema, "metadata.tabkey", 1},
		// The delisted list's report where this one belongs: its rows
		// have none of these keys.
		{"another report's rows", "made_szse_delisted_p1.json", KindSchema, "bgrq", 1},
		{"HTML page", "made_nginx_502.html", KindHTML, "", 1},
		{"truncated", "made_szse_renames_p1.json#cut", KindTruncated, "", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, rec := newTestExchanges(t, exchangePages{szse: func(w http.ResponseWriter, _ *http.Request) {
				name, cut := strings.CutSuffix(tc.body, "#cut")
				b := fixture(t, name)
				if cut {
					b = b[:len(b)/2]
				}
				ct := jsonCT
				if strings.HasSuffix(name, ".html") {
					ct = "text/html"
				}
				write(w, 200, ct, b)
			}})
			rows, err := c.NameChangesFrom(context.Background(), SourceSZSE)
			e := wantErr(t, err, tc.kind, 0, tc.field)
			if e.Source != "szse" {
				t.Errorf("error %q does not name szse", err)
			}
			if len(rows) != 0 {
				t.Errorf("a failed list returned rows %+v", rows)
			}
			if rec.count() != tc.requests {
				t.Errorf("requests = %d, want %d", rec.count(), tc.requests)
			}
		})
	}
}

// A list that shrinks under the walk is refused whole; one that repeats a
// change keeps it once and says so.
func TestNameChangesShrinkAndRepeat(t *testing.T) {
	for _, tc := range []struct {
		name      string
		page2     func(string) string
		wantErr   Kind
		wantRows  int
		wantDrift string
	}{
		{"page 2 empty", func(b string) string {
			return strings.Replace(b, b[strings.Index(b, `"data":[{"bgrq":"2007`):], `"data":[]}]`, 1)
		}, KindPartial, 0, ""},
		{"page 2 repeats page 1", func(string) string { return string(fixture(t, "made_szse_renames_p1.json")) }, KindNone, 2, "2 repeated rows"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := newTestExchanges(t, exchangePages{szse: func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Query().Get("PAGENO") == "2" {
					write(w, 200, jsonCT, []byte(tc.page2(string(fixture(t, "made_szse_renames_p2.json")))))
					return
				}
				write(w, 200, jsonCT, fixture(t, "made_szse_renames_p1.json"))
			}})
			rows, err := c.NameChangesFrom(context.Background(), SourceSZSE)
			if tc.wantErr != KindNone {
				wantErr(t, err, tc.wantErr, 0, "")
			} else if err != nil {
				t.Fatal(err)
			}
			if len(rows) != tc.wantRows {
				t.Errorf("rows %+v, want %d", rows, tc.wantRows)
			}
			if st := c.Statuses()[0]; !strings.Contains(st.Drift, tc.wantDrift) {
				t.Errorf("drift %q, want %q", st.Drift, tc.wantDrift)
			}
		})
	}
}

// Rows that change nothing are kept (the page's count includes them) and
// noted as drift.
func TestNameChangesOddRowsAreDrift(t *testing.T) {
	b := strings.NewReplacer(`"bghzqjc":"ST星源"`, `"bghzqjc":"世纪星源"`, `"bghzqjc":"平安银行"`, `"bghzqjc":"-"`).
		Replace(string(fixture(t, "made_szse_renames_p1.json")))
	chk := &check{}
	p, err := decodeSZSENameChanges([]byte(b), chk)
	if err != nil || len(p.rows) != 2 || p.rows[1].After != "" {
		t.Fatalf("page %+v, %v", p, err)
	}
	if d := chk.driftText(); !strings.Contains(d, "bghzqjc") {
		t.Errorf("drift %q, want bghzqjc named", d)
	}
}

func TestNameChangesOnlySZSE(t *testing.T) {
	c, rec := newTestExchanges(t, exchangePages{})
	if got := c.NameChangeSources(); len(got) != 1 || got[0] != "szse" {
		t.Errorf("NameChangeSources = %v", got)
	}
	for _, src := range []string{"sse", "bse", ""} {
		if _, err := c.NameChangesFrom(context.Background(), src); market.KindOf(err) != market.KindInvalid {
			t.Errorf("NameChangesFrom(%q) = %v, want invalid", src, err)
		}
	}
	if rec.count() != 0 {
		t.Errorf("requests = %d, want none", rec.count())
	}
	if d := DefaultExchangesConfig(); d.NameChangePages != 1000 {
		t.Errorf("default NameChangePages = %d", d.NameChangePages)
	}
}
