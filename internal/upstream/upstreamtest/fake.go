// Package upstreamtest runs fake EastMoney push2 and AKTools servers on
// 127.0.0.1 that answer in the exact upstream shapes (push2 clist pages,
// AKTools record arrays with Chinese column names), with contents and
// failures a test controls. Other packages' tests point the real upstream
// clients at them, so no test touches the internet.
package upstreamtest

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"mdqs/internal/market"
)

// Server is a fake upstream holding one sector list per family.
type Server struct {
	*httptest.Server

	mu       sync.Mutex
	sectors  map[market.SectorKind][]market.Sector
	at       map[market.SectorKind]time.Time
	failing  map[market.SectorKind]int // HTTP status to answer, 0 = healthy
	requests map[market.SectorKind]int
}

func newServer(t testing.TB, h func(s *Server) http.Handler) *Server {
	s := &Server{
		sectors:  map[market.SectorKind][]market.Sector{},
		at:       map[market.SectorKind]time.Time{},
		failing:  map[market.SectorKind]int{},
		requests: map[market.SectorKind]int{},
	}
	s.Server = httptest.NewServer(h(s))
	t.Cleanup(s.Close)
	return s
}

// SetSectors replaces a family's list and the time the upstream says it is
// of (push2 f124).
func (s *Server) SetSectors(kind market.SectorKind, at time.Time, list []market.Sector) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sectors[kind] = append([]market.Sector(nil), list...)
	s.at[kind] = at
}

// Fail makes requests for a family answer status (0 heals it).
func (s *Server) Fail(kind market.SectorKind, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failing[kind] = status
}

// Requests counts the requests a family received.
func (s *Server) Requests(kind market.SectorKind) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[kind]
}

func (s *Server) take(kind market.SectorKind) (list []market.Sector, at time.Time, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests[kind]++
	return s.sectors[kind], s.at[kind], s.failing[kind]
}

// NewPush2 serves GET /api/qt/clist/get like push2 with fltt=2 and np=1:
// industry boards for fs "m:90 t:2...", concept boards for "m:90 t:3...",
// paged by pn/pz.
func NewPush2(t testing.TB) *Server {
	return newServer(t, func(s *Server) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/api/qt/clist/get" {
				http.NotFound(w, r)
				return
			}
			fs := r.URL.Query().Get("fs")
			kind := market.Industry
			if strings.Contains(fs, "t:3") {
				kind = market.Concept
			}
			list, at, status := s.take(kind)
			if status != 0 {
				w.WriteHeader(status)
				fmt.Fprint(w, "<html><body><h1>502 Bad Gateway</h1></body></html>")
				return
			}
			pn, _ := strconv.Atoi(r.URL.Query().Get("pn"))
			pz, _ := strconv.Atoi(r.URL.Query().Get("pz"))
			pn, pz = max(pn, 1), min(max(pz, 1), 100)
			lo, hi := min((pn-1)*pz, len(list)), min(pn*pz, len(list))
			rows := make([]string, 0, hi-lo)
			for _, x := range list[lo:hi] {
				rows = append(rows, push2Row(x, at))
			}
			w.Header().Set("Content-Type", "application/json; charset=UTF-8")
			if len(rows) == 0 {
				fmt.Fprint(w, `{"rc":0,"rt":6,"svr":181669432,"lt":1,"full":1,"dlmkts":"","data":null}`)
				return
			}
			fmt.Fprintf(w, `{"rc":0,"rt":6,"svr":181669432,"lt":1,"full":1,"dlmkts":"","data":{"total":%d,"diff":[%s]}}`,
				len(list), strings.Join(rows, ","))
		})
	})
}

// push2Row renders a board row with its keys in ascending f-code order,
// f140/f141 after f128 and before f136, as push2 sends them.
func push2Row(x market.Sector, at time.Time) string {
	num := func(v float64) string {
		if math.IsNaN(v) {
			return `"-"`
		}
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	count := func(v int) string {
		if v < 0 {
			return `"-"`
		}
		return strconv.Itoa(v)
	}
	str := func(v string) string {
		if v == "" {
			return `"-"`
		}
		b, _ := json.Marshal(v)
		return string(b)
	}
	return fmt.Sprintf(`{"f1":2,"f2":%s,"f3":%s,"f6":%s,"f8":%s,"f12":%s,"f13":90,"f14":%s,"f62":%s,"f104":%s,"f105":%s,"f106":%s,"f124":%d,"f128":%s,"f140":%s,"f141":0,"f136":%s,"f184":%s}`,
		num(x.Price), num(x.Pct), num(x.Amount), num(x.Turnover), str(x.Code), str(x.Name), num(x.MainNet),
		count(x.Up), count(x.Down), count(x.Flat), at.Unix(), str(x.LeaderName), str(x.LeaderCode), num(x.LeaderPct), num(x.MainNetRatio))
}

// NewAKTools serves GET /api/public/stock_sector_fund_flow_rank and
// /api/public/stock_board_{industry,concept}_name_em like AKTools: arrays
// of records keyed by akshare's Chinese column names, NaN as null.
func NewAKTools(t testing.TB) *Server {
	return newServer(t, func(s *Server) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fn, ok := strings.CutPrefix(r.URL.Path, "/api/public/")
			if !ok {
				http.NotFound(w, r)
				return
			}
			kind := market.Industry
			if strings.Contains(fn, "concept") || r.URL.Query().Get("sector_type") == "概念资金流" {
				kind = market.Concept
			}
			list, _, status := s.take(kind)
			if status != 0 {
				w.WriteHeader(status)
				fmt.Fprint(w, "Internal Server Error")
				return
			}
			var records []map[string]any
			for i, x := range list {
				switch fn {
				case "stock_sector_fund_flow_rank":
					records = append(records, map[string]any{
						"序号": i + 1, "名称": x.Name, "今日涨跌幅": nullable(x.Pct),
						"今日主力净流入-净额": nullable(x.MainNet), "今日主力净流入-净占比": nullable(x.MainNetRatio),
						"今日主力净流入最大股": x.LeaderName,
					})
				case "stock_board_industry_name_em", "stock_board_concept_name_em":
					records = append(records, map[string]any{
						"排名": i + 1, "板块名称": x.Name, "板块代码": x.Code, "最新价": nullable(x.Price),
						"涨跌额": nil, "涨跌幅": nullable(x.Pct), "总市值": nil, "换手率": nullable(x.Turnover),
						"上涨家数": x.Up, "下跌家数": x.Down, "领涨股票": x.LeaderName, "领涨股票-涨跌幅": nullable(x.LeaderPct),
					})
				default:
					w.WriteHeader(http.StatusNotFound)
					fmt.Fprint(w, `{"error":"未找到该接口，请升级 AKShare 到最新版本"}`)
					return
				}
			}
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(records)
		})
	})
}

func nullable(v float64) any {
	if math.IsNaN(v) {
		return nil
	}
	return v
}

// Sectors makes n plausible sectors named prefix+i whose main net inflow
// falls with i (so prefix0 ranks first).
func Sectors(prefix string, n int) []market.Sector {
	out := make([]market.Sector, n)
	for i := range out {
		mainNet := float64(n/2-i) * 1e8
		out[i] = market.Sector{
			Code: fmt.Sprintf("BK%04d", 100+i), Name: fmt.Sprintf("%s%d", prefix, i),
			Price: 1000 + float64(i), Pct: float64(n/2-i) * 0.5, Amount: 5e9, Turnover: 1.5,
			MainNet: mainNet, MainNetRatio: mainNet / 5e9 * 100,
			Up: 10 + i, Down: 5, Flat: 1, LeaderCode: "600519", LeaderName: "贵州茅台", LeaderPct: 3.2,
		}
	}
	return out
}
