package db_test

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/market"
)

var lhbAt = time.Date(2026, 9, 8, 18, 30, 0, 0, market.Shanghai())

func lhbListing(day market.Day, code, reason string, buy float64) db.LHBListing {
	return db.LHBListing{Day: day, Code: market.MustCode(code), Name: "n" + code, Reason: reason, ReasonCode: "137001002001001",
		TradeID: "100409471", Reading: "普通席位买入，成功率36.00%", Board: "深交所主板", Close: 3.44, ChangePct: 9.9042, Turnover: 27.6488,
		Buy: buy, Sell: 25138378, Net: buy - 25138378, Deal: buy + 25138378, Amount: 2179212480, NetPct: math.NaN(), DealPct: 39.1,
		FloatCap: 5169541941.84}
}

func lhbSeat(day market.Day, code, side string, seq int, name string, amount float64, reasons ...string) db.LHBSeat {
	s := db.LHBSeat{Day: day, Code: market.MustCode(code), Side: side, Seq: seq, SeatCode: "1002361" + string(rune('0'+seq)), SeatName: name, StockName: "n" + code,
		Buy: math.NaN(), Sell: math.NaN(), BuyPct: math.NaN(), SellPct: math.NaN(), Reasons: reasons}
	if side == "buy" {
		s.Buy, s.Net, s.BuyPct = amount, amount, 1.9
	} else {
		s.Sell, s.Net, s.SellPct = amount, -amount, 1.1
	}
	return s
}

// A day's import replaces that day whole and only that day; an empty day
// is recorded (imported, no list) and told apart from a day never
// imported; NaN survives as unknown.
func TestLHBReplaceDay(t *testing.T) {
	s := dbtest.Open(t)
	ctx := context.Background()
	d1, d2 := market.Day(20260907), market.Day(20260908)
	first := []db.LHBListing{lhbListing(d2, "000560.SZ", "日换手率达到20%的前5只证券", 83902522), lhbListing(d2, "600611.SH", "r1", 1),
		lhbListing(d2, "600611.SH", "r2", 2)}
	seats := []db.LHBSeat{lhbSeat(d2, "600611.SH", "buy", 1, "国泰君安证券股份有限公司总部", 37521554.1, "r1", "r2"),
		lhbSeat(d2, "600611.SH", "sell", 1, "机构专用", 1000, "r1"), lhbSeat(d2, "600611.SH", "sell", 2, "机构专用", 900, "r1")}
	if err := s.ReplaceLHBDay(ctx, db.LHBDay{Day: d2, Listings: 3, Stocks: 2, Seats: 3, Source: "datacenter-lhb", ImportedAt: lhbAt}, first, seats); err != nil {
		t.Fatal(err)
	}
	other := []db.LHBListing{lhbListing(d1, "000001.SZ", "r", 5)}
	if err := s.ReplaceLHBDay(ctx, db.LHBDay{Day: d1, Listings: 1, Stocks: 1, Source: "datacenter-lhb", ImportedAt: lhbAt}, other, nil); err != nil {
		t.Fatal(err)
	}
	got, err := s.LHBListings(ctx, market.Code{}, d2, d2)
	if err != nil || len(got) != 3 || got[0].Code.String() != "000560.SZ" || got[1].Reason != "r1" || got[2].Reason != "r2" {
		t.Fatalf("LHBListings(%v) = %+v, %v", d2, got, err)
	}
	l := got[0]
	if l.Buy != 83902522 || l.Reading != "普通席位买入，成功率36.00%" || l.TradeID != "100409471" || !math.IsNaN(l.NetPct) ||
		l.FloatCap != 5169541941.84 || l.Board != "深交所主板" {
		t.Errorf("listing %+v", l)
	}
	st, total, err := s.LHBSeats(ctx, db.LHBSeatQuery{Code: market.MustCode("600611.SH"), From: d2, To: d2})
	if err != nil || total != 3 || len(st) != 3 || st[0].Side != "buy" || !slices.Equal(st[0].Reasons, []string{"r1", "r2"}) ||
		!math.IsNaN(st[0].Sell) || st[0].Buy != 37521554.1 || st[2].Seq != 2 || st[2].Net != -900 || st[0].StockName != "n600611.SH" {
		t.Fatalf("seats %+v (%d), %v", st, total, err)
	}

	// Re-import of d2: fewer rows, nothing of the old import left; d1 untouched.
	again := []db.LHBListing{lhbListing(d2, "000560.SZ", "日换手率达到20%的前5只证券", 1)}
	if err := s.ReplaceLHBDay(ctx, db.LHBDay{Day: d2, Listings: 1, Stocks: 1, Source: "datacenter-lhb", ImportedAt: lhbAt.Add(time.Hour)}, again, nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.LHBListings(ctx, market.Code{}, d2, d2); len(got) != 1 || got[0].Buy != 1 {
		t.Errorf("after the re-import: %+v", got)
	}
	if st, n, _ := s.LHBSeats(ctx, db.LHBSeatQuery{From: d2, To: d2}); n != 0 || len(st) != 0 {
		t.Errorf("seats left from the old import: %+v", st)
	}
	if got, _ := s.LHBListings(ctx, market.Code{}, d1, d1); len(got) != 1 {
		t.Errorf("d1 touched: %+v", got)
	}
	rec, err := s.LHBDayRecord(ctx, d2)
	if err != nil || rec.Listings != 1 || !rec.ImportedAt.Equal(lhbAt.Add(time.Hour)) || rec.Source != "datacenter-lhb" {
		t.Errorf("record %+v, %v", rec, err)
	}

	// A day with no list is recorded; a day never imported is not found.
	empty := market.Day(20260909)
	if err := s.ReplaceLHBDay(ctx, db.LHBDay{Day: empty, Source: "datacenter-lhb", ImportedAt: lhbAt}, nil, nil); err != nil {
		t.Fatal(err)
	}
	if rec, err := s.LHBDayRecord(ctx, empty); err != nil || rec.Listings != 0 {
		t.Errorf("empty day: %+v, %v", rec, err)
	}
	if _, err := s.LHBDayRecord(ctx, 20260910); market.KindOf(err) != market.KindNotFound {
		t.Errorf("a day never imported: %v, want not found", err)
	}
	days, err := s.LHBDays(ctx, 0, 0)
	if err != nil || len(days) != 3 || days[0].Day != d1 || days[2].Day != empty {
		t.Errorf("days %+v, %v", days, err)
	}
}

// A failing import leaves the day as it was: the transaction is all or
// nothing (a seat row of another day is refused before anything is
// written; a duplicate key fails inside the transaction).
func TestLHBReplaceIsAtomic(t *testing.T) {
	s := dbtest.Open(t)
	ctx := context.Background()
	d := market.Day(20260908)
	keep := []db.LHBListing{lhbListing(d, "000560.SZ", "r", 7)}
	if err := s.ReplaceLHBDay(ctx, db.LHBDay{Day: d, Listings: 1, Stocks: 1, Source: "x", ImportedAt: lhbAt}, keep, nil); err != nil {
		t.Fatal(err)
	}
	dup := []db.LHBListing{lhbListing(d, "600611.SH", "r", 1), lhbListing(d, "600611.SH", "r", 2)}
	if err := s.ReplaceLHBDay(ctx, db.LHBDay{Day: d, Listings: 2, Stocks: 1, Source: "x", ImportedAt: lhbAt}, dup, nil); err == nil {
		t.Fatal("a duplicate listing key was stored")
	}
	bad := []db.LHBSeat{lhbSeat(d+1, "600611.SH", "buy", 1, "x", 1)}
	if err := s.ReplaceLHBDay(ctx, db.LHBDay{Day: d, Source: "x", ImportedAt: lhbAt}, nil, bad); market.KindOf(err) != market.KindInvalid {
		t.Fatalf("a seat of another day: %v", err)
	}
	if got, _ := s.LHBListings(ctx, market.Code{}, d, d); len(got) != 1 || got[0].Code.String() != "000560.SZ" || got[0].Buy != 7 {
		t.Errorf("after failed imports the day holds %+v, want the first import", got)
	}
}

// A seat is found by a part of its name, case-insensitively, with % and _
// taken as text; one stock's listings over a range come by day.
func TestLHBQueries(t *testing.T) {
	s := dbtest.Open(t)
	ctx := context.Background()
	for i, d := range []market.Day{20260907, 20260908, 20260909} {
		ls := []db.LHBListing{lhbListing(d, "600611.SH", "r", float64(i))}
		st := []db.LHBSeat{lhbSeat(d, "600611.SH", "buy", 1, "华泰证券股份有限公司拉萨东环路第二证券营业部", float64(100+i), "r"),
			lhbSeat(d, "600611.SH", "sell", 1, "Seat_50%", 5, "r")}
		if err := s.ReplaceLHBDay(ctx, db.LHBDay{Day: d, Listings: 1, Stocks: 1, Seats: 2, Source: "x", ImportedAt: lhbAt}, ls, st); err != nil {
			t.Fatal(err)
		}
	}
	got, total, err := s.LHBSeats(ctx, db.LHBSeatQuery{Name: "拉萨东环路", From: 20260908, To: 20260930})
	if err != nil || total != 2 || got[0].Day != 20260908 || got[1].Buy != 102 {
		t.Errorf("by name: %+v (%d), %v", got, total, err)
	}
	if got, total, _ := s.LHBSeats(ctx, db.LHBSeatQuery{Name: "seat_50%", From: 20260901, To: 20260930, Limit: 2, Offset: 2}); total != 3 || len(got) != 1 {
		t.Errorf("case-insensitive, paged: %+v (%d)", got, total)
	}
	if _, total, _ := s.LHBSeats(ctx, db.LHBSeatQuery{Name: "seat%50", From: 20260901, To: 20260930}); total != 0 {
		t.Errorf("%% must be text, not a wildcard: %d rows", total)
	}
	ls, err := s.LHBListings(ctx, market.MustCode("600611.SH"), 20260908, 20260909)
	if err != nil || len(ls) != 2 || ls[0].Day != 20260908 {
		t.Errorf("by code: %+v, %v", ls, err)
	}
}
