package demo

import (
	"context"
	"math"
	"testing"

	"mdqs/internal/market"
	"mdqs/internal/upstream"
)

// The demo's dragon-tiger list follows its own bars: every listed stock's
// daily bar meets the reason it is listed for, at most five stocks per
// rule and exchange, the seats add up to the listing's amounts, and each
// seat repeats once per reason, as the data centre sends them.
func TestLHBFollowsTheBars(t *testing.T) {
	m, _ := newMarket(t, smallConfig(7), at(infoDay, 20, 0, 0))
	ctx := context.Background()
	total, multi := 0, 0
	for _, day := range []market.Day{20261116, 20261117, 20261118, 20261119, 20261120} {
		rows, pages, err := m.Listings(ctx, day, 1)
		if err != nil || pages != 1 || len(rows) == 0 {
			t.Fatalf("Listings(%v) = %d rows, %d pages, %v", day, len(rows), pages, err)
		}
		perRule := map[string]int{}
		reasons := map[market.Code]int{}
		for _, l := range rows {
			total++
			perRule[l.ReasonCode+string(l.Code.Exchange)]++
			reasons[l.Code]++
			bars := klines(t, m, l.Code, market.Daily, day, day)
			if len(bars) != 1 || bars[0].Close != l.Close || bars[0].Amount != l.Amount || bars[0].TurnoverRate != l.Turnover {
				t.Fatalf("%v %v: listing %+v, bar %+v", day, l.Code, l, bars)
			}
			thr := 7.0
			if limitsOf(m, l.Code) > 10 {
				thr = 15
			}
			switch l.ReasonCode {
			case lhbRules[0].code:
				if l.ChangePct < thr {
					t.Errorf("%v %v listed for a rise at %.2f%%", day, l.Code, l.ChangePct)
				}
			case lhbRules[1].code:
				if l.ChangePct > -thr {
					t.Errorf("%v %v listed for a fall at %.2f%%", day, l.Code, l.ChangePct)
				}
			case lhbRules[2].code:
				if l.Turnover < 19.99 {
					t.Errorf("%v %v listed for turnover at %.2f%%", day, l.Code, l.Turnover)
				}
			default:
				t.Errorf("reason code %q", l.ReasonCode)
			}
			var buy, sell float64
			for _, side := range []upstream.LHBSide{upstream.LHBBuy, upstream.LHBSell} {
				seats, _, err := m.Seats(ctx, day, l.Code, side, 1)
				if err != nil || len(seats) != 5*reasons[l.Code] && len(seats)%5 != 0 {
					t.Fatalf("Seats(%v, %v, %v) = %d rows, %v", day, l.Code, side, len(seats), err)
				}
				for _, s := range seats[:5] {
					if s.Reason != seats[0].Reason || s.Side != side || s.SeatName == "" {
						t.Fatalf("seat %+v", s)
					}
					buy += zeroNaN(s.Buy)
					sell += zeroNaN(s.Sell)
				}
			}
			if math.Abs(buy-l.Buy) > 0.05 || math.Abs(sell-l.Sell) > 0.05 || math.Abs(l.Net-(l.Buy-l.Sell)) > 0.01 || l.Buy <= 0 || l.Sell <= 0 ||
				l.Deal > l.Amount*0.6 {
				t.Errorf("%v %v: seats buy %.2f sell %.2f, listing %+v", day, l.Code, buy, sell, l)
			}
		}
		for k, n := range perRule {
			if n > 5 {
				t.Errorf("%v: %d stocks for rule %s, at most 5", day, n, k)
			}
		}
		for _, n := range reasons {
			if n > 1 {
				multi++
			}
		}
	}
	if total < 10 {
		t.Errorf("%d listings in a week: too few to be a list", total)
	}
	t.Logf("%d listings in 5 days, %d stock-days with more than one reason", total, multi)
}

// Before 18:00 today has no list, as upstream; a holiday has none either.
func TestLHBNotBeforePublication(t *testing.T) {
	m, _ := newMarket(t, smallConfig(7), at(infoDay, 17, 59, 0))
	if rows, pages, err := m.Listings(context.Background(), infoDay, 1); err != nil || len(rows) != 0 || pages != 0 {
		t.Errorf("today at 17:59: %d rows, %d pages, %v", len(rows), pages, err)
	}
	if rows, _, _ := m.Listings(context.Background(), 20261121, 1); len(rows) != 0 {
		t.Errorf("a Saturday: %d rows", len(rows))
	}
	if rows, _, _ := m.Listings(context.Background(), 20261119, 1); len(rows) == 0 {
		t.Errorf("yesterday: no rows")
	}
}

func zeroNaN(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return v
}
