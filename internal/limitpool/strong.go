package limitpool

import (
	"context"

	"mdqs/internal/market"
)

// The strong pool (强势股池) is EastMoney's selection of stocks at a
// 60-day high or with repeated limit-ups (getTopicQSPool, whose rows carry
// 入选理由 1 = 60日新高, 2 = 近期多次涨停, 3 = both). Its thresholds are not
// published, so mdqs states its own and the quality answer measures how
// far they agree with the source's pool where it is imported.

// StrongBars is the 60日新高's window: the day's high above the highest
// high of the StrongBars-1 traded days before it, prices moved to the
// day's terms across ex-dates.
const StrongBars = 60

// StrongUps is how many limit-up closes within the 涨停统计 window
// (CountDays, the day included) make 近期多次涨停.
const StrongUps = 2

// Strong reasons, EastMoney's codes.
const (
	ReasonNewHigh = 1 // 60日新高
	ReasonManyUps = 2 // 近期多次涨停
	ReasonBoth    = 3
)

// StrongMark is why a row is in the strong pool.
type StrongMark struct {
	NewHigh bool
	// PrevHigh is the highest high of the StrongBars-1 traded days
	// before the day, in the day's price terms; 0 when the stock has not
	// traded that many days (a new listing: no 60-day high is judged).
	PrevHigh float64
	ManyUps  bool
	Reason   int
}

// Strong is day's strong pool: every stock of the day's universe that
// traded on day and reached a 60-day high or with StrongUps limit-up
// closes within CountDays; from the store for a past day, the latest quote
// list for today, as Derive. Rows carry the day's status (limit prices),
// count_up and boards; Pool("strong") lists them.
func (s *Service) Strong(ctx context.Context, day market.Day) (Day, error) {
	now, today, err := s.checkDay(day)
	if err != nil {
		return Day{}, err
	}
	var out Day
	var ms []member
	if day == today && s.quotes != nil {
		out, ms, err = s.todayMembers(ctx, day, now, StrongBars)
	} else {
		out, ms, err = s.pastMembers(ctx, day, StrongBars+1)
	}
	if err != nil {
		return Day{}, err
	}
	days := s.window(day, CountDays)
	first := day
	for range StrongBars + 10 { // the ex-dates of the window's bars, suspensions allowed for
		first = s.cal.Prev(first)
	}
	acts, err := s.store.ActionsBetween(ctx, first, day)
	if err != nil {
		return Day{}, err
	}
	events := eventsByCode(acts)
	for i, m := range ms {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return Day{}, err
			}
		}
		ch := s.withToday(Chain(m.raw, func(market.Day) string { return m.sec.Name }, events[m.sec.Code]), m)
		n := len(ch)
		if n == 0 || ch[n-1].Day != day || !ch[n-1].Traded() {
			continue
		}
		mark := StrongMark{}
		mark.PrevHigh, mark.NewHigh = newHigh(ch)
		ups := CountUp(m.sec.Code, ch, days, s.rule)
		if looseUps(ch, days) >= StrongUps {
			// Today's name judged every day: the names the stock had (a
			// risk warning's 5 % board) decide the count.
			names, err := s.namesOf(ctx, m.sec)
			if err != nil {
				return Day{}, err
			}
			ch = s.withToday(Chain(m.raw, names.at, events[m.sec.Code]), m)
			ch[n-1].Name = m.sec.Name
			ups = CountUp(m.sec.Code, ch, days, s.rule)
		}
		mark.ManyUps = ups >= StrongUps
		switch {
		case mark.NewHigh && mark.ManyUps:
			mark.Reason = ReasonBoth
		case mark.NewHigh:
			mark.Reason = ReasonNewHigh
		case mark.ManyUps:
			mark.Reason = ReasonManyUps
		default:
			continue
		}
		row := Row{Code: m.sec.Code, Name: m.sec.Name, Board: m.sec.Board, ST: m.sec.ST, Bar: ch[n-1], Status: StatusOf(m.sec.Code, ch[n-1], s.rule),
			CountUp: ups, Strong: &mark}
		row.Boards, _ = Boards(m.sec.Code, ch, s.rule)
		out.Rows = append(out.Rows, row)
	}
	return out, s.attachSealFunds(ctx, &out)
}

// newHigh compares the last bar's high with the highest high of the
// StrongBars-1 traded bars before it, each moved into the last bar's
// price terms by the ratio of every later ex-date (reference price over
// the close before it). prev is 0 and ok false when fewer bars traded.
func newHigh(ch []DayBar) (prev float64, ok bool) {
	n := len(ch)
	factor, seen := 1.0, 0
	next := n - 1 // the traded bar after the one considered
	for i := n - 2; i >= 0 && seen < StrongBars-1; i-- {
		b := ch[i]
		if !b.Traded() {
			continue
		}
		// ch[next]'s previous close is b's close moved by the ex-dates
		// between them: their ratio moves b's prices into next's terms.
		if ch[next].PrevClose > 0 {
			factor *= ch[next].PrevClose / b.Close
		}
		seen++
		prev = max(prev, b.High*factor)
		next = i
	}
	if seen < StrongBars-1 {
		return 0, false
	}
	return prev, ch[n-1].High > prev+1e-9
}

// looseUps counts the window's days that closed 4.5 % or more above the
// close before: at least the limit-up closes under any board's rule, a
// 5 % ST board's included.
func looseUps(ch []DayBar, days []market.Day) int {
	in := map[market.Day]bool{}
	for _, d := range days {
		in[d] = true
	}
	k := 0
	for _, b := range ch {
		if in[b.Day] && b.Traded() && b.PrevClose > 0 && b.Close/b.PrevClose-1 >= 0.045 {
			k++
		}
	}
	return k
}
