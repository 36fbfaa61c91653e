package upstream

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"mdqs/internal/market"
)

// akRoutes serves AKTools functions from fixtures by path.
func akRoutes(t *testing.T, files map[string]string) func(w http.ResponseWriter, r *http.Request, n int) {
	return func(w http.ResponseWriter, r *http.Request, _ int) {
		fn := strings.TrimPrefix(r.URL.Path, "/api/public/")
		name, ok := files[fn]
		if !ok {
			write(w, 404, jsonCT, fixture(t, "made_aktools_404_error.json"))
			return
		}
		switch {
		case strings.HasSuffix(name, "500.txt"):
			write(w, 500, "text/plain; charset=utf-8", fixture(t, name))
		case strings.HasSuffix(name, "404_error.json"):
			write(w, 404, jsonCT, fixture(t, name))
		default:
			write(w, 200, jsonCT, fixture(t, name))
		}
	}
}

func TestAKShareSectors(t *testing.T) {
	for _, kind := range []market.SectorKind{market.Industry, market.Concept} {
		t.Run(string(kind), func(t *testing.T) {
			srv, rec := stub(t, akRoutes(t, map[string]string{
				"stock_sector_fund_flow_rank":  "made_aktools_stock_sector_fund_flow_rank_industry.json",
				"stock_board_industry_name_em": "made_aktools_stock_board_industry_name_em.json",
				"stock_board_concept_name_em":  "made_aktools_stock_board_industry_name_em.json",
			}))
			c := newTestAK(t, srv.URL)
			snap, err := c.Sectors(context.Background(), kind)
			if err != nil {
				t.Fatal(err)
			}
			flowType, boardFn := "行业资金流", "/api/public/stock_board_industry_name_em"
			if kind == market.Concept {
				flowType, boardFn = "概念资金流", "/api/public/stock_board_concept_name_em"
			}
			if rec.count() != 2 {
				t.Fatalf("%d requests", rec.count())
			}
			q := rec.req(0).URL.Query()
			if rec.req(0).URL.Path != "/api/public/stock_sector_fund_flow_rank" || q.Get("indicator") != "今日" || q.Get("sector_type") != flowType {
				t.Errorf("request %s", rec.req(0).URL)
			}
			if rec.req(1).URL.Path != boardFn || rec.req(1).URL.RawQuery != "" {
				t.Errorf("request %s", rec.req(1).URL)
			}
			if snap.Kind != kind || snap.Source != "akshare" || !snap.At.IsZero() || len(snap.Sectors) != 4 {
				t.Fatalf("snapshot %+v", snap)
			}
			// In fund-flow order; joined by name with the board list.
			checkSector(t, snap.Sectors[0], market.Sector{Code: "BK0459", Name: "电子元件", Price: 35063.87, Pct: 1.9, Amount: nan,
				Turnover: 2.21, MainNet: 2672467968, MainNetRatio: 1.88, Up: 38, Down: 12, Flat: -1, LeaderName: "胜宏科技", LeaderPct: 12.46})
			// Not in the board list: kept, without code or board fields.
			checkSector(t, snap.Sectors[1], market.Sector{Code: "", Name: "通信设备", Price: nan, Pct: 1.56, Amount: nan,
				Turnover: nan, MainNet: 2602910976, MainNetRatio: 1.99, Up: -1, Down: -1, Flat: -1, LeaderPct: nan})
			// null (NaN in pandas) turnover in the board list.
			checkSector(t, snap.Sectors[2], market.Sector{Code: "BK1037", Name: "消费电子", Price: 1987.6, Pct: 1.54, Amount: nan,
				Turnover: nan, MainNet: 2465783296, MainNetRatio: 2.52, Up: 71, Down: 18, Flat: -1, LeaderName: "立讯精密", LeaderPct: 10})
			// null main ratio in the fund flow.
			checkSector(t, snap.Sectors[3], market.Sector{Code: "BK1027", Name: "小金属", Price: 3109.46, Pct: 2.39, Amount: nan,
				Turnover: 2.05, MainNet: 2056189696, MainNetRatio: nan, Up: 22, Down: 3, Flat: -1, LeaderName: "厦门钨业", LeaderPct: 7.71})
			st := c.Status()
			if !strings.Contains(st.Drift, "join:stock_board_") || !strings.Contains(st.Drift, "join:stock_sector_fund_flow_rank no fund-flow row for the board in 1 rows") ||
				st.Failures != 0 || st.Requests != 2 {
				t.Errorf("status %+v", st)
			}
		})
	}
}

func TestAKShareBroken(t *testing.T) {
	for _, tc := range []struct {
		name     string
		flow     string
		board    string
		kind     Kind
		attempts int
		field    string
		detail   string
	}{
		{"404 unknown function, not retried", "made_aktools_404_error.json", "made_aktools_stock_board_industry_name_em.json", KindHTTPStatus, 1, "", "未找到该接口"},
		{"500 from akshare, retried", "made_aktools_500.txt", "made_aktools_stock_board_industry_name_em.json", KindHTTPStatus, 3, "", "Internal Server Error"},
		{"empty DataFrame", "made_aktools_empty.json", "made_aktools_stock_board_industry_name_em.json", KindEmpty, 1, "", "no rows"},
		{"board list empty", "made_aktools_stock_sector_fund_flow_rank_industry.json", "made_aktools_empty.json", KindEmpty, 1, "", ""},
		{"renamed main net column", "made_aktools_stock_sector_fund_flow_rank_renamed.json", "made_aktools_stock_board_industry_name_em.json", KindSchema, 0, "今日主力净流入-净额", "missing"},
		{"no name joins", "made_aktools_stock_sector_fund_flow_rank_industry.json", "aktools_stock_zh_a_spot_em_first_record.json", KindSchema, 0, "板块名称", ""},
		{"object instead of records", "push2his_trends2_error_rc100_data_null.json", "made_aktools_stock_board_industry_name_em.json", KindSchema, 1, "(top level)", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := stub(t, akRoutes(t, map[string]string{
				"stock_sector_fund_flow_rank":  tc.flow,
				"stock_board_industry_name_em": tc.board,
			}))
			c := newTestAK(t, srv.URL)
			snap, err := c.Sectors(context.Background(), market.Industry)
			e := wantErr(t, err, tc.kind, tc.attempts, tc.field)
			if !strings.Contains(e.Detail, tc.detail) || e.Source != "akshare" || !strings.HasPrefix(e.Path, "/api/public/stock_") {
				t.Errorf("error %+v", e)
			}
			if snap.Sectors != nil {
				t.Error("rows with an error")
			}
			if st := c.Status(); st.Failures != 1 || st.LastErrorKind != tc.kind {
				t.Errorf("status %+v", st)
			}
		})
	}
}

// A fund-flow list whose names match no board at all means the join key
// changed: a schema error, not a snapshot without codes.
func TestAKShareNoMatch(t *testing.T) {
	srv, _ := stub(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		if strings.HasSuffix(r.URL.Path, "stock_sector_fund_flow_rank") {
			write(w, 200, jsonCT, fixture(t, "made_aktools_stock_sector_fund_flow_rank_industry.json"))
			return
		}
		write(w, 200, jsonCT, []byte(`[{"排名":1,"板块名称":"贵金属","板块代码":"BK0732"}]`))
	})
	_, err := newTestAK(t, srv.URL).Sectors(context.Background(), market.Industry)
	wantErr(t, err, KindSchema, 0, "名称")
}

// The one real AKTools capture: integral floats without ".0", Chinese keys.
func TestAKShareRecordsRealCapture(t *testing.T) {
	srv, rec := stub(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		write(w, 200, jsonCT, fixture(t, "aktools_stock_zh_a_spot_em_first_record.json"))
	})
	c := newTestAK(t, srv.URL+"/prefix/")
	rows, err := c.records(context.Background(), "stock_zh_a_spot_em", nil)
	if err != nil || len(rows) != 1 {
		t.Fatalf("%v %d", err, len(rows))
	}
	if rec.req(0).URL.Path != "/prefix/api/public/stock_zh_a_spot_em" {
		t.Errorf("path %s", rec.req(0).URL.Path)
	}
	chk := &check{}
	r := row{m: rows[0], where: "row 0", c: chk}
	if r.reqStr("代码") != "831445" || r.reqStr("名称") != "龙竹科技" || r.reqNum("市净率") != 2 || r.reqNum("涨速") != 0 ||
		r.reqNum("成交量") != 34693 || !eq(r.reqNum("成交额"), 16598786.95) || chk.err != nil {
		t.Errorf("record %v (%v)", rows[0], chk.err)
	}
	if _, err := c.records(context.Background(), "../admin", nil); err == nil {
		t.Error("a function name with a path must be refused")
	}
}
