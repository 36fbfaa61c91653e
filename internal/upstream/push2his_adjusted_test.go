package upstream

import (
	"context"
	"net/http"
	"strconv"
	"testing"

	"mdqs/internal/market"
)

// KlinesAdjusted sends the same kline/get request as Klines with fqt=1 or
// 2 and reads the reply with the same parser. The replies are EastMoney's
// own fqt=1 captures; the hfq case replays the same bytes, since only the
// request differs.
func TestKlinesAdjusted(t *testing.T) {
	for _, fqt := range []Fqt{FqtQFQ, FqtHFQ} {
		t.Run("fqt="+strconv.Itoa(int(fqt)), func(t *testing.T) {
			srv, rec := stub(t, func(w http.ResponseWriter, r *http.Request, _ int) {
				write(w, 200, jsonCT, fixture(t, "push2his_kline_daily_688147_fqt1_2023-02-02.json"))
			})
			c := newTestHis(t, srv.URL)
			d := day("2023-02-02")
			bars, err := c.KlinesAdjusted(context.Background(), market.MustCode("688147.SH"), market.Daily, d, d, fqt)
			if err != nil {
				t.Fatal(err)
			}
			q := rec.req(0).URL.Query()
			if got, want := q.Get("fqt"), strconv.Itoa(int(fqt)); got != want {
				t.Errorf("fqt = %q, want %q", got, want)
			}
			if rec.req(0).URL.Path != "/api/qt/stock/kline/get" || q.Get("secid") != "1.688147" || q.Get("klt") != "101" ||
				q.Get("beg") != "20230202" || q.Get("end") != "20230202" || q.Get("ut") != utHis ||
				rec.req(0).Header.Get("Referer") != "https://quote.eastmoney.com/sh688147.html" {
				t.Errorf("request %s %v", rec.req(0).URL, rec.req(0).Header)
			}
			if len(bars) != 1 {
				t.Fatalf("%d bars, want 1", len(bars))
			}
			checkBar(t, bars[0], market.Bar{Day: d, TS: at("2023-02-02", 15, 0), Open: 33.01, Close: 38.10, High: 38.10, Low: 32.60,
				Volume: 7975600, Amount: 289881743, TurnoverRate: 21.22, LargeOrderNet: nan})
			if st := c.Status(); st.Calls != 1 {
				t.Errorf("status counts %d calls, want 1 (the same client and accounting as Klines)", st.Calls)
			}
		})
	}
}

// The adjusted route fails as Klines does: a truncated JSONP capture of
// fqt=1 is retried, then reported truncated.
func TestKlinesAdjustedTruncated(t *testing.T) {
	srv, rec := stub(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		write(w, 200, jsonCT, fixture(t, "push2his_kline_daily_000300_fqt1_2025-09-02_truncated.jsonp.txt"))
	})
	bars, err := newTestHis(t, srv.URL).KlinesAdjusted(context.Background(), market.MustCode("000300.SH"), market.Daily, 0, 0, FqtQFQ)
	e := wantErr(t, err, KindTruncated, 3, "")
	if bars != nil || e.Source != SourcePush2His {
		t.Errorf("bars %v, source %q", bars, e.Source)
	}
	for i := range rec.count() {
		if q := rec.req(i).URL.Query(); q.Get("fqt") != "1" || q.Get("beg") != "0" || q.Get("end") != "20500101" {
			t.Errorf("attempt %d: %s", i, rec.req(i).URL)
		}
	}
}

func TestKlinesAdjustedInvalidFqt(t *testing.T) {
	c := newTestHis(t, "http://127.0.0.1:1")
	for _, fqt := range []Fqt{FqtNone, 3, -1} {
		if _, err := c.KlinesAdjusted(context.Background(), market.MustCode("601872.SH"), market.Daily, 0, 0, fqt); market.KindOf(err) != market.KindInvalid {
			t.Errorf("fqt %d: err %v, want invalid", fqt, err)
		}
	}
	if st := c.Status(); st.Calls != 0 || st.Requests != 0 {
		t.Errorf("invalid fqt reached the upstream: %+v", st)
	}
}
