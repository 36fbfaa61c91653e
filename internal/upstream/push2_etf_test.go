package upstream

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"mdqs/internal/market"
)

// The ETF fixtures are constructed (no real ETF clist reply was
// recorded): the clist envelope and key order of the real captures, the
// fields of akshare's fund_etf_spot_em. See testdata/README.md.

// etfServer answers each board's walk from made_push2_clist_etf_<board>
// fixtures; over lets a test replace one (board, page) answer.
func etfServer(t *testing.T, over func(board, pn string) (string, bool)) (*Push2, *recorder) {
	t.Helper()
	srv, rec := stub(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		q := r.URL.Query()
		board := strings.ToLower(strings.TrimPrefix(q.Get("fs"), "b:"))
		pn := q.Get("pn")
		if over != nil {
			if name, ok := over(board, pn); ok {
				write(w, 200, jsonCT, fixture(t, name))
				return
			}
		}
		name := "made_push2_clist_etf_" + board + ".json"
		if board == "mk0021" {
			name = "made_push2_clist_etf_mk0021_p" + pn + ".json"
		}
		write(w, 200, jsonCT, fixture(t, name))
	})
	return newTestPush2(t, srv.URL, 2), rec
}

func checkETF(t *testing.T, got, want market.ETF) {
	t.Helper()
	if got.Code != want.Code || got.Name != want.Name || got.Category != want.Category || got.Board != want.Board ||
		got.Volume != want.Volume || got.DataDate != want.DataDate || !got.At.Equal(want.At) {
		t.Errorf("etf %s: got %+v\nwant %+v", want.Code, got, want)
	}
	for _, f := range []struct {
		n    string
		g, w float64
	}{
		{"Price", got.Price, want.Price}, {"Pct", got.Pct, want.Pct}, {"Change", got.Change, want.Change},
		{"Open", got.Open, want.Open}, {"High", got.High, want.High}, {"Low", got.Low, want.Low},
		{"PrevClose", got.PrevClose, want.PrevClose}, {"Amount", got.Amount, want.Amount}, {"Turnover", got.Turnover, want.Turnover},
		{"MarketValue", got.MarketValue, want.MarketValue}, {"FloatValue", got.FloatValue, want.FloatValue},
		{"Shares", got.Shares, want.Shares}, {"IOPV", got.IOPV, want.IOPV}, {"DiscountRate", got.DiscountRate, want.DiscountRate},
	} {
		checkF(t, want.Code.String()+" "+f.n, f.g, f.w)
	}
}

func TestETFsEveryBoard(t *testing.T) {
	c, rec := etfServer(t, nil)
	etfs, err := c.ETFs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// MK0021 takes two pages at pz=2, every other board one.
	var boards []string
	for i := 0; i < rec.count(); i++ {
		q := rec.req(i).URL.Query()
		if q.Get("fields") != etfFields || q.Get("fid") != "f12" || q.Get("np") != "1" || q.Get("fltt") != "2" || q.Get("pz") != "2" {
			t.Errorf("request %d: %s", i, rec.req(i).URL)
		}
		boards = append(boards, q.Get("fs")+"/"+q.Get("pn"))
	}
	if got := strings.Join(boards, " "); got != "b:MK0021/1 b:MK0021/2 b:MK0022/1 b:MK0023/1 b:MK0024/1 b:MK0827/1" {
		t.Errorf("walks %s, want one per board in order", got)
	}
	var codes []string
	for _, e := range etfs {
		codes = append(codes, e.Code.String()+"="+e.Category)
	}
	// 518880 is on the gold board and again on the commodity one: kept once, as gold.
	want := "588000.SH=a_share 510300.SH=a_share 159915.SZ=a_share 511880.SH=money 520990.SH=cross_border " +
		"513100.SH=cross_border 518880.SH=gold 159985.SZ=commodity"
	if got := strings.Join(codes, " "); got != want {
		t.Fatalf("rows %s\nwant %s", got, want)
	}
	at := time.Date(2026, 7, 10, 15, 10, 0, 0, market.Shanghai())
	checkETF(t, etfs[1], market.ETF{Code: market.MustCode("510300.SH"), Name: "沪深300ETF", Category: market.ETFAShare, Board: "MK0021",
		Price: 3.912, Pct: 0.72, Change: 0.028, Open: 3.884, High: 3.925, Low: 3.871, PrevClose: 3.884, Volume: 935021100,
		Amount: 3644712248, Turnover: 2.48, MarketValue: 147490810800, FloatValue: 147490810800, Shares: 37702150000,
		IOPV: 3.9105, DiscountRate: -0.04, DataDate: 20260710, At: at})
	checkETF(t, etfs[2], market.ETF{Code: market.MustCode("159915.SZ"), Name: "创业板ETF", Category: market.ETFAShare, Board: "MK0021",
		Price: 2.187, Pct: -0.64, Change: -0.014, Open: 2.199, High: 2.214, Low: 2.175, PrevClose: 2.201, Volume: 1202445500,
		Amount: 2638165427, Turnover: 5.91, MarketValue: 44488194570, FloatValue: 44488194570, Shares: 20342110000,
		IOPV: 2.1892, DiscountRate: 0.1, DataDate: 20260710, At: at})
	// A money ETF without an IOPV: "-" is unknown, not 0.
	checkETF(t, etfs[3], market.ETF{Code: market.MustCode("511880.SH"), Name: "银华日利", Category: market.ETFMoney, Board: "MK0022",
		Price: 100.652, Pct: 0, Change: 0.002, Open: 100.65, High: 100.655, Low: 100.648, PrevClose: 100.65, Volume: 12034500,
		Amount: 1211284460, Turnover: 1.72, MarketValue: 7046847824, FloatValue: 7046847824, Shares: 70012000,
		IOPV: nan, DiscountRate: nan, DataDate: 20260710, At: at})
	// A fund with "-" in every value: every figure unknown.
	checkETF(t, etfs[4], market.ETF{Code: market.MustCode("520990.SH"), Name: "港股示例ETF", Category: market.ETFCrossBorder, Board: "MK0023",
		Price: nan, Pct: nan, Change: nan, Open: nan, High: nan, Low: nan, PrevClose: nan, Volume: -1, Amount: nan, Turnover: nan,
		MarketValue: nan, FloatValue: nan, Shares: nan, IOPV: nan, DiscountRate: nan, DataDate: 0, At: at})
	// The premium row: price 1.634 over IOPV 1.5962 and f402 -2.37.
	checkETF(t, etfs[5], market.ETF{Code: market.MustCode("513100.SH"), Name: "纳指ETF", Category: market.ETFCrossBorder, Board: "MK0023",
		Price: 1.634, Pct: 0.31, Change: 0.005, Open: 1.63, High: 1.641, Low: 1.622, PrevClose: 1.629, Volume: 854120000,
		Amount: 1393496780, Turnover: 9.12, MarketValue: 15303063600, FloatValue: 15303063600, Shares: 9365400000,
		IOPV: 1.5962, DiscountRate: -2.37, DataDate: 20260710, At: at})
	if st := c.Status(); st.Drift != "" || st.LastError != "" || st.Calls != 1 || st.Requests != 6 {
		t.Errorf("status %+v", st)
	}
}

// A board whose second page comes back data:null leaves the rows in hand
// with a KindPartial error naming the board; the other boards are walked.
func TestETFsPageCutShort(t *testing.T) {
	c, rec := etfServer(t, func(board, pn string) (string, bool) {
		return "made_push2_clist_data_null.json", board == "mk0021" && pn == "2"
	})
	etfs, err := c.ETFs(context.Background())
	e := wantErr(t, err, KindPartial, 0, "")
	if !strings.Contains(e.Detail, "MK0021: got 2 of 3 rows") {
		t.Errorf("detail %q", e.Detail)
	}
	if len(etfs) != 7 || rec.count() != 6 || etfs[0].Code.Symbol != "588000" || etfs[2].Code.Symbol != "511880" {
		t.Errorf("%d rows after %d requests: %+v", len(etfs), rec.count(), etfs)
	}
}

// An empty board is skipped; a board that fails after others answered
// leaves their rows with a KindPartial error; all boards empty is KindEmpty.
func TestETFsBoardFailures(t *testing.T) {
	t.Run("empty board", func(t *testing.T) {
		c, _ := etfServer(t, func(board, pn string) (string, bool) { return "made_push2_clist_empty.json", board == "mk0827" })
		etfs, err := c.ETFs(context.Background())
		if err != nil || len(etfs) != 7 {
			t.Errorf("%d rows, %v", len(etfs), err)
		}
	})
	t.Run("later board fails", func(t *testing.T) {
		c, _ := etfServer(t, func(board, pn string) (string, bool) { return "made_push2_clist_rc102.json", board == "mk0024" })
		etfs, err := c.ETFs(context.Background())
		e := wantErr(t, err, KindPartial, 0, "")
		// 518880 then arrives with the commodity board, the one that lists it too.
		if !strings.Contains(e.Detail, "MK0024: upstream push2") || !strings.Contains(e.Detail, "rc 102") || len(etfs) != 8 ||
			etfs[6].Code.Symbol != "518880" || etfs[6].Category != market.ETFCommodity {
			t.Errorf("%d rows, %v", len(etfs), err)
		}
	})
	t.Run("first board fails", func(t *testing.T) {
		c, rec := etfServer(t, func(board, pn string) (string, bool) { return "made_push2_clist_rc102.json", board == "mk0021" })
		etfs, err := c.ETFs(context.Background())
		wantErr(t, err, KindRC, 0, "")
		if etfs != nil || rec.count() != 1 {
			t.Errorf("%d rows after %d requests", len(etfs), rec.count())
		}
	})
	t.Run("all empty", func(t *testing.T) {
		c, _ := etfServer(t, func(board, pn string) (string, bool) { return "made_push2_clist_data_null.json", true })
		_, err := c.ETFs(context.Background())
		e := wantErr(t, err, KindEmpty, 0, "")
		if !strings.Contains(e.Detail, "MK0827") {
			t.Errorf("detail %q", e.Detail)
		}
	})
}

// Schema drift: an optional field renamed (f441 to f442) leaves the IOPV
// unknown and is reported in Status; a required one (f14) fails the call.
func TestETFsSchemaDrift(t *testing.T) {
	c, _ := etfServer(t, func(board, pn string) (string, bool) {
		return "made_push2_clist_etf_renamed_f441.json", board == "mk0021"
	})
	etfs, err := c.ETFs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if etfs[0].Code.Symbol != "510300" || etfs[0].Price != 3.912 || !eq(etfs[0].IOPV, nan) || etfs[0].DiscountRate != -0.04 {
		t.Errorf("row %+v", etfs[0])
	}
	if st := c.Status(); !strings.Contains(st.Drift, "f441 absent in 1 rows") {
		t.Errorf("drift %q", st.Drift)
	}

	c, _ = etfServer(t, func(board, pn string) (string, bool) {
		return "made_push2_clist_etf_renamed_f14.json", board == "mk0022"
	})
	etfs, err = c.ETFs(context.Background())
	wantErr(t, err, KindSchema, 1, "f14")
	if etfs != nil {
		t.Error("rows returned with a schema error")
	}
}

func TestETFsRowSchema(t *testing.T) {
	for _, tc := range []struct{ name, row, field string }{
		{"market id 2", `{"f2":1,"f12":"510300","f13":2,"f14":"x"}`, "f13"},
		{"code not six digits", `{"f2":1,"f12":"MK0021","f13":1,"f14":"x"}`, "f12"},
		{"price missing", `{"f12":"510300","f13":1,"f14":"x"}`, "f2"},
		{"name dash", `{"f2":1,"f12":"510300","f13":1,"f14":"-"}`, "f14"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := stub(t, func(w http.ResponseWriter, r *http.Request, _ int) {
				write(w, 200, jsonCT, []byte(`{"rc":0,"data":{"total":1,"diff":[`+tc.row+`]}}`))
			})
			etfs, err := newTestPush2(t, srv.URL, 0).ETFs(context.Background())
			wantErr(t, err, KindSchema, 1, tc.field)
			if etfs != nil {
				t.Error("rows with a schema error")
			}
		})
	}
}

func TestETFDataDate(t *testing.T) {
	for raw, want := range map[string]market.Day{`20260710`: 20260710, `"20260710"`: 20260710, `"-"`: 0, `20261340`: 0, `2026.5`: 0, `true`: 0} {
		chk := &check{}
		m := map[string]json.RawMessage{"f297": json.RawMessage(raw)}
		if got := etfDataDate(row{m: m, where: "row 0", c: chk}); got != want {
			t.Errorf("f297 %s = %v, want %v", raw, got, want)
		}
	}
}

func TestETFCategoryOf(t *testing.T) {
	for board, want := range map[string]string{"b:MK0021": "a_share", "MK0022": "money", "b:MK0023": "cross_border",
		"b:MK0024": "gold", " b:MK0827 ": "commodity", "b:MK9999": "other"} {
		if got := ETFCategoryOf(board); got != want {
			t.Errorf("ETFCategoryOf(%q) = %q, want %q", board, got, want)
		}
	}
}
