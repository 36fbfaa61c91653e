package upstream

import (
	"context"
	"math"
	"net/http"
	"testing"

	"mdqs/internal/market"
)

func newTestPush2Ex(t *testing.T, base string, pageSize int) *Push2Ex {
	t.Helper()
	c, err := NewPush2Ex(Push2ExConfig{SourceConfig: testSource(base), PageSize: pageSize}, NewLimiters(), market.NewFixedClock(testNow()))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// serveFixture answers every request with one fixture.
func serveFixture(t *testing.T, name string) (*Push2Ex, *recorder) {
	t.Helper()
	body := fixture(t, name)
	srv, rec := stub(t, func(w http.ResponseWriter, r *http.Request, _ int) { write(w, 200, jsonCT, body) })
	return newTestPush2Ex(t, srv.URL, 0), rec
}

// The real limit-up pool of 2024-09-23 (page 0 of pagesize 20, tc 54),
// as JSON and as the JSONP the web page received: every row read by key,
// p as price x 1000, fbt/lbt as HHMMSS ints without the leading zero,
// zttj as an object, names and industries with their spaces. The rest of
// the pool was not recorded, so the client, paging on, gets an empty
// page 1 and says the pool is partial, with the 20 rows that came.
func TestPush2ExZTPoolRealCapture(t *testing.T) {
	for _, name := range []string{"push2ex_getTopicZTPool_2024-09-23_pagesize20.json", "push2ex_getTopicZTPool_2024-09-23_pagesize20.jsonp.txt"} {
		body := fixture(t, name)
		empty := []byte(`{"rc":0,"rt":110,"svr":177618277,"lt":1,"full":0,"data":{"tc":54,"qdate":20240923,"pool":[]}}`)
		srv, rec := stub(t, func(w http.ResponseWriter, r *http.Request, _ int) {
			if r.URL.Query().Get("Pageindex") == "0" {
				write(w, 200, "text/javascript; charset=UTF-8", body)
				return
			}
			write(w, 200, jsonCT, empty)
		})
		c := newTestPush2Ex(t, srv.URL, 20)
		p, err := c.Pool(context.Background(), PoolUp, 20240923)
		if KindOf(err) != KindPartial {
			t.Fatalf("%s: err %v, want partial (20 of tc 54)", name, err)
		}
		if p.Day != 20240923 || p.Asked != 20240923 || p.Total != 54 || len(p.Rows) != 20 || p.Kind != PoolUp {
			t.Fatalf("%s: pool day %v asked %v total %d rows %d", name, p.Day, p.Asked, p.Total, len(p.Rows))
		}
		r := p.Rows[0]
		if r.Code != market.MustCode("000004.SZ") || r.Name != "国华网安" || r.Price != 16.06 || r.Boards != 4 ||
			r.FirstSeal != 9*3600+25*60 || r.LastSeal != 9*3600+25*60 || r.OpenedTimes != 0 || r.Industry != "软件开发" ||
			r.CountDays != 4 || r.CountUp != 4 || r.SealFund != 192332954 || r.Amount != 21155838 || !math.IsNaN(r.LimitPrice) {
			t.Errorf("%s: row 0 %+v", name, r)
		}
		checkF(t, "row 0 float cap", r.FloatCap, 2028186773.58)
		checkF(t, "row 0 turnover", r.Turnover, 1.0430911779403687)
		if got := p.Rows[4]; got.Code != market.MustCode("600198.SH") || got.Name != "大 唐电信" || got.Price != 8.5 {
			t.Errorf("%s: row 4 (a name with a space) %+v", name, got)
		}
		if got := p.Rows[11]; got.Code != market.MustCode("600619.SH") || got.LastSeal != 14*3600+42*60+29 || got.CountDays != 8 || got.CountUp != 5 {
			t.Errorf("%s: row 11 (lbt 144229) %+v", name, got)
		}
		if got := p.Rows[19]; got.OpenedTimes != 30 || got.Industry != "酿酒行业" || got.Code != market.MustCode("600696.SH") {
			t.Errorf("%s: row 19 (zbc 30, industry with a leading space) %+v", name, got)
		}
		if got := p.Rows[18]; got.Code != market.MustCode("300149.SZ") || got.Price != 5.14 {
			t.Errorf("%s: row 18 (ChiNext) %+v", name, got)
		}
		q := rec.req(0).URL.Query()
		if rec.req(0).URL.Path != "/getTopicZTPool" || q.Get("date") != "20240923" || q.Get("Pageindex") != "0" || q.Get("pagesize") != "20" ||
			q.Get("sort") != "fbt:asc" || q.Get("ut") != push2exUT || q.Get("dpt") != "wz.ztzt" || q.Has("cb") {
			t.Errorf("%s: request %s", name, rec.req(0).URL)
		}
		if rec.count() != 2 || rec.req(1).URL.Query().Get("Pageindex") != "1" {
			t.Errorf("%s: %d requests, want page 0 then page 1", name, rec.count())
		}
		if st := c.Status(); st.Source != SourcePush2Ex || st.Drift != "" {
			t.Errorf("%s: status %+v", name, st)
		}
	}
}

// Paging: tc 3 at pagesize 2 is two pages, Pageindex from 0, every row once.
// (Constructed pages: the real capture's first three rows split in two.)
func TestPush2ExPaging(t *testing.T) {
	p0, p1 := fixture(t, "made_push2ex_getTopicZTPool_2024-09-23_p0.json"), fixture(t, "made_push2ex_getTopicZTPool_2024-09-23_p1.json")
	srv, rec := stub(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		if r.URL.Query().Get("Pageindex") == "0" {
			write(w, 200, jsonCT, p0)
			return
		}
		write(w, 200, jsonCT, p1)
	})
	p, err := newTestPush2Ex(t, srv.URL, 2).Pool(context.Background(), PoolUp, 20240923)
	if err != nil || len(p.Rows) != 3 || p.Total != 3 || rec.count() != 2 || p.Rows[2].Code != market.MustCode("002693.SZ") || p.Rows[2].Boards != 7 {
		t.Fatalf("pool %+v, %v, %d requests", p, err, rec.count())
	}
}

// The other pools, constructed in the key sets eastmoney-part2.md a.3
// gives from client code (no real reply of them was recorded): each
// kind's own keys land in the shared fields.
func TestPush2ExOtherPoolsConstructed(t *testing.T) {
	c, rec := serveFixture(t, "made_push2ex_getTopicZBPool_2024-09-23.json")
	p, err := c.Pool(context.Background(), PoolBroken, 20240923)
	if err != nil || p.Day != 20240923 || len(p.Rows) != 2 {
		t.Fatalf("broken: %+v %v", p, err)
	}
	if r := p.Rows[0]; r.Code != market.MustCode("600776.SH") || r.Price != 10.42 || r.LimitPrice != 10.66 || r.FirstSeal != 9*3600+30*60+26 ||
		r.OpenedTimes != 5 || r.Boards != -1 || r.LastSeal != -1 || r.CountDays != 2 {
		t.Errorf("broken row 0 %+v", r)
	}
	if q := rec.req(0).URL; q.Path != "/getTopicZBPool" || q.Query().Get("sort") != "fbt:asc" || q.Query().Get("pagesize") != "10000" {
		t.Errorf("broken request %s", q)
	}

	c, rec = serveFixture(t, "made_push2ex_getTopicDTPool_2024-09-23.json")
	p, err = c.Pool(context.Background(), PoolDown, 20240923)
	if err != nil || len(p.Rows) != 1 {
		t.Fatalf("down: %+v %v", p, err)
	}
	if r := p.Rows[0]; r.Code != market.MustCode("002713.SZ") || r.Price != 3.15 || r.Boards != 2 || r.OpenedTimes != 1 ||
		r.LastSeal != 14*3600+55*60+12 || r.FirstSeal != -1 || r.SealFund != 45678901 {
		t.Errorf("down row %+v", r)
	}
	if q := rec.req(0).URL; q.Path != "/getTopicDTPool" || q.Query().Get("sort") != "fund:asc" {
		t.Errorf("down request %s", q)
	}

	c, rec = serveFixture(t, "made_push2ex_getYesterdayZTPool_2024-09-23.json")
	p, err = c.Pool(context.Background(), PoolYesterday, 20240923)
	if err != nil || len(p.Rows) != 2 {
		t.Fatalf("yesterday: %+v %v", p, err)
	}
	if r := p.Rows[1]; r.Code != market.MustCode("603316.SH") || r.Boards != 1 || r.FirstSeal != 14*3600+2*60+11 || r.LimitPrice != 4.61 ||
		r.Industry != "工程 建设" {
		t.Errorf("yesterday row 1 %+v", r)
	}
	if q := rec.req(0).URL; q.Path != "/getYesterdayZTPool" || q.Query().Get("sort") != "zs:desc" {
		t.Errorf("yesterday request %s", q)
	}

	// The strong pool's 是否新高 and 入选理由 keys are not known: the
	// fixture names them nh and cc, and they are not read.
	c, rec = serveFixture(t, "made_push2ex_getTopicQSPool_2024-09-23.json")
	p, err = c.Pool(context.Background(), PoolStrong, 20240923)
	if err != nil || p.Day != 20240923 || len(p.Rows) != 2 {
		t.Fatalf("strong: %+v %v", p, err)
	}
	if r := p.Rows[1]; r.Code != market.MustCode("000004.SZ") || r.Price != 16.06 || r.LimitPrice != 17.67 || r.ChangePct != 4.2 ||
		r.CountDays != 4 || r.CountUp != 2 || r.Boards != -1 || r.FirstSeal != -1 {
		t.Errorf("strong row 1 %+v", r)
	}
	if q := rec.req(0).URL; q.Path != "/getTopicQSPool" || q.Query().Get("sort") != "zdp:desc" {
		t.Errorf("strong request %s", q)
	}
}

// No pool: data:null, data.pool:null (a date too far back, akshare PR
// #5133) and rc 102 with data:null are empty pools, not errors; only
// data.pool:null names its day. (Constructed replies.)
func TestPush2ExNoPool(t *testing.T) {
	for _, tc := range []struct {
		file string
		day  market.Day
	}{
		{"made_push2ex_data_null.json", 0},
		{"made_push2ex_pool_null_2024-01-05.json", 20240105},
		{"made_push2ex_rc102.json", 0},
	} {
		c, _ := serveFixture(t, tc.file)
		p, err := c.Pool(context.Background(), PoolUp, 20240105)
		if err != nil || p.Day != tc.day || p.Rows == nil || len(p.Rows) != 0 || p.Total != 0 {
			t.Errorf("%s: pool %+v, %v; want empty of day %v", tc.file, p, err, tc.day)
		}
	}
	// Another rc is an error, never an empty pool.
	srv, _ := stub(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		write(w, 200, jsonCT, []byte(`{"rc":100,"rt":110,"svr":177618277,"lt":1,"full":0,"data":null}`))
	})
	if _, err := newTestPush2Ex(t, srv.URL, 0).Pool(context.Background(), PoolUp, 20240105); KindOf(err) != KindRC {
		t.Errorf("rc 100: err %v, want an RC error", err)
	}
}

// A Sunday asked answers Friday's pool: Pool reports the qdate it got, so
// the caller files the rows under 2024-09-20, never under the date asked;
// the name padded with spaces comes as sent. (Constructed reply; the row
// is capture 70981660500's 英 力 特 with invented values.)
func TestPush2ExQDateIsNotTheDateAsked(t *testing.T) {
	c, rec := serveFixture(t, "made_push2ex_getTopicZTPool_asked_2024-09-22_qdate_2024-09-20.json")
	p, err := c.Pool(context.Background(), PoolUp, 20240922)
	if err != nil || p.Asked != 20240922 || p.Day != 20240920 || len(p.Rows) != 1 || p.Rows[0].Name != "英 力 特" || p.Rows[0].Price != 7.22 {
		t.Fatalf("pool %+v, %v", p, err)
	}
	if rec.req(0).URL.Query().Get("date") != "20240922" {
		t.Errorf("asked %s", rec.req(0).URL)
	}
}

// Schema: the limit-up pool's required keys, codes and times.
func TestPush2ExSchema(t *testing.T) {
	for _, tc := range []struct{ body, field string }{
		{`{"rc":0,"data":{"tc":1,"qdate":20240923,"pool":[{"c":"000004","m":0,"n":"x","lbc":1,"fbt":92500}]}}`, "p"},
		{`{"rc":0,"data":{"tc":1,"qdate":20240923,"pool":[{"c":"000004","m":0,"n":"x","p":1,"fbt":92500}]}}`, "lbc"},
		{`{"rc":0,"data":{"tc":1,"qdate":20240923,"pool":[{"c":"000004","m":0,"n":"x","p":1,"lbc":1,"fbt":96100}]}}`, "fbt"},
		{`{"rc":0,"data":{"tc":1,"qdate":20240923,"pool":[{"c":4,"m":0,"n":"x","p":1,"lbc":1,"fbt":92500}]}}`, "c"},
		{`{"rc":0,"data":{"tc":1,"qdate":20240923,"pool":[{"c":"000004","m":2,"n":"x","p":1,"lbc":1,"fbt":92500}]}}`, "m"},
		{`{"rc":0,"data":{"tc":1,"qdate":20241332,"pool":[]}}`, "data.qdate"},
		{`{"rc":0,"data":{"tc":"many","qdate":20240923,"pool":[]}}`, "data.tc"},
	} {
		_, err := decodePool([]byte(tc.body), PoolUp, &check{})
		if e, ok := err.(*Error); !ok || e.Kind != KindSchema || e.Field != tc.field {
			t.Errorf("decode %s: err %v, want a schema error on %s", tc.body, err, tc.field)
		}
	}
	// A bad time on another pool is drift, not a failure.
	chk := &check{}
	got, err := decodePool([]byte(`{"rc":0,"data":{"tc":1,"qdate":20240923,"pool":[{"c":"000004","m":0,"n":"x","p":1000,"fbt":99999}]}}`), PoolBroken, chk)
	if err != nil || len(got.rows) != 1 || got.rows[0].FirstSeal != -1 || chk.driftText() == "" {
		t.Errorf("broken with fbt 99999: %+v %v drift %q", got, err, chk.driftText())
	}
}

func TestSecondsOfHHMMSS(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want int
		ok   bool
	}{{92500, 33900, true}, {144229, 52949, true}, {150000, 54000, true}, {93160, 0, false}, {96000, 0, false}, {240000, 0, false}, {925.5, 0, false}} {
		got, ok := secondsOfHHMMSS(tc.v)
		if ok != tc.ok || ok && got != tc.want {
			t.Errorf("secondsOfHHMMSS(%v) = %d, %v, want %d, %v", tc.v, got, ok, tc.want, tc.ok)
		}
	}
}

func FuzzPush2ExPool(f *testing.F) {
	for _, name := range []string{"push2ex_getTopicZTPool_2024-09-23_pagesize20.json", "push2ex_getTopicZTPool_2024-09-23_pagesize20.jsonp.txt",
		"made_push2ex_getTopicZBPool_2024-09-23.json", "made_push2ex_getTopicDTPool_2024-09-23.json", "made_push2ex_getYesterdayZTPool_2024-09-23.json",
		"made_push2ex_getTopicQSPool_2024-09-23.json", "made_push2ex_data_null.json", "made_push2ex_pool_null_2024-01-05.json", "made_push2ex_rc102.json"} {
		f.Add(fixture(f, name))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, kind := range PoolKinds {
			got, err := decodePool(body, kind, &check{})
			if err != nil {
				typed(t, err)
				continue
			}
			if got.total < 0 || got.day != 0 && market.Day(got.day).Year() < 1990 {
				t.Fatalf("pool total %d day %v", got.total, got.day)
			}
			for _, r := range got.rows {
				if len(r.Code.Symbol) != 6 || r.Name == "" || r.FirstSeal < -1 || r.FirstSeal >= 86400 || r.LastSeal < -1 || r.LastSeal >= 86400 {
					t.Fatalf("row %+v", r)
				}
				if kind == PoolUp && (r.Boards < 0 || r.FirstSeal < 0 && r.FirstSeal != -1) {
					t.Fatalf("up row %+v", r)
				}
			}
		}
	})
}
