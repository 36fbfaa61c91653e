// Package hotranktest runs a fake EastMoney popularity list on 127.0.0.1:
// POST /stockrank/getAllCurrentList answers in emappdata's envelope and
// GET /api/qt/ulist.np/get gives the names, as push2 does. Tests point the
// real upstream client at it, set the list, and make pages fail.
package hotranktest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"mdqs/internal/market"
)

// Stock is one row of the fake list, in rank order.
type Stock struct {
	Code market.Code
	Name string
}

// Server is the fake upstream.
type Server struct {
	*httptest.Server

	mu       sync.Mutex
	list     []Stock
	failPage map[int]int // page -> HTTP status
	posts    int
}

// New starts the fake with list as the current popularity list.
func New(t testing.TB, list []Stock) *Server {
	s := &Server{list: list, failPage: map[int]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// SetList replaces the list.
func (s *Server) SetList(list []Stock) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.list = append([]Stock(nil), list...)
}

// FailPage makes a page answer status (0 heals it).
func (s *Server) FailPage(page, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failPage[page] = status
}

// Posts counts the list requests received.
func (s *Server) Posts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.posts
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	switch r.URL.Path {
	case "/stockrank/getAllCurrentList":
		s.posts++
		var body struct {
			PageNo   int `json:"pageNo"`
			PageSize int `json:"pageSize"`
		}
		if r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&body) != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		if st := s.failPage[body.PageNo]; st != 0 {
			w.WriteHeader(st)
			fmt.Fprint(w, "<html><body><h1>502 Bad Gateway</h1></body></html>")
			return
		}
		var rows []string
		lo := (body.PageNo - 1) * body.PageSize
		for i := lo; i >= 0 && i < min(lo+body.PageSize, len(s.list)); i++ {
			rows = append(rows, fmt.Sprintf(`{"sc":"%s","rk":%d,"rc":0,"hisRc":0}`, prefixed(s.list[i].Code), i+1))
		}
		fmt.Fprintf(w, `{"globalId":"786e4c21-70dc-435a-93bb-38","message":"OK","status":0,"code":0,"data":[%s]}`, strings.Join(rows, ","))
	case "/api/qt/ulist.np/get":
		want := map[string]bool{}
		for _, id := range strings.Split(r.URL.Query().Get("secids"), ",") {
			want[id] = true
		}
		var rows []string
		for _, st := range s.list {
			m := 0
			if st.Code.Exchange == market.SH {
				m = 1
			}
			if want[fmt.Sprintf("%d.%s", m, st.Code.Symbol)] {
				name, _ := json.Marshal(st.Name)
				rows = append(rows, fmt.Sprintf(`{"f12":"%s","f13":%d,"f14":%s}`, st.Code.Symbol, m, name))
			}
		}
		fmt.Fprintf(w, `{"rc":0,"rt":11,"svr":181669432,"lt":1,"full":1,"dlmkts":"","data":{"total":%d,"diff":[%s]}}`, len(rows), strings.Join(rows, ","))
	default:
		http.NotFound(w, r)
	}
}

// prefixed is the list's code form: SH or SZ, Beijing filed under SZ.
func prefixed(c market.Code) string {
	if c.Exchange == market.SH {
		return "SH" + c.Symbol
	}
	return "SZ" + c.Symbol
}

// Stocks makes n listed-looking stocks named 股票<i>, alternating SH, SZ
// and BJ codes.
func Stocks(n int) []Stock {
	out := make([]Stock, n)
	for i := range out {
		var code string
		switch i % 3 {
		case 0:
			code = fmt.Sprintf("%06d.SH", 600000+i)
		case 1:
			code = fmt.Sprintf("%06d.SZ", 1+i)
		default:
			code = fmt.Sprintf("%06d.BJ", 920000+i)
		}
		out[i] = Stock{Code: market.MustCode(code), Name: fmt.Sprintf("股票%d", i)}
	}
	return out
}
