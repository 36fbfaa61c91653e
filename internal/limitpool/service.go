package limitpool

import (
	"context"
	"math"
	"slices"
	"strings"
	"time"

	"mdqs/db"
	"mdqs/internal/adjust"
	"mdqs/internal/corpaction"
	"mdqs/internal/market"
	"mdqs/internal/secmaster"
)

// CountDays is the window of the 涨停统计: limit-up closes within the last
// CountDays trading days, the day asked included. EastMoney's zttj says
// its own window per row (days); mdqs keeps one, so rows compare.
const CountDays = 20

// history is how many trading days of bars a candidate's first read
// reaches back; a streak reaching its start reads further.
const history = CountDays + 2

// Universe is the security master (secmaster.Service).
type Universe interface {
	Universe(ctx context.Context, day market.Day, f secmaster.Filter) ([]secmaster.Security, db.RecordedDays, error)
	History(ctx context.Context, code market.Code) (secmaster.Timeline, error)
	Recorded(ctx context.Context) (db.RecordedDays, error)
}

// Quotes is the current quote list (quote.Service): today's pools during
// the session.
type Quotes interface {
	Quotes(ctx context.Context) ([]market.Quote, error)
}

// Service derives a day's pools from the store (and today's from the
// quote list).
type Service struct {
	store  *db.Store
	sec    Universe
	quotes Quotes // nil: today is not served before the store has it
	cal    *market.Calendar
	clock  market.Clock
	rule   Rule
	source string // the quote list's source name (push2, demo)
	// history, when set, gives the daily bars instead of the store.
	history *historyCache
	// publishedOff says why the published pools are not imported ("":
	// they are); Compare reports it.
	publishedOff string
}

func New(store *db.Store, sec Universe, quotes Quotes, cal *market.Calendar, clock market.Clock, quoteSource string) *Service {
	return &Service{store: store, sec: sec, quotes: quotes, cal: cal, clock: clock, rule: DefaultRule, source: quoteSource}
}

// Row is one stock of a day that touched a limit, or closed at its
// limit-up the trading day before.
type Row struct {
	Code   market.Code
	Name   string
	Board  string
	ST     string
	Bar    DayBar // the day's bar; Volume 0 when it did not trade
	Amount float64
	Status
	Boards          int    // consecutive limit-up closes ending on the day (连板); 0 when not sealed up
	DownDays        int    // consecutive limit-down closes ending on the day
	YesterdayBoards int    // consecutive limit-up closes ending the trading day before
	CountUp         int    // limit-up closes within the last CountDays trading days
	UpSeals         *Seals // from the day's 1-minute bars; nil when the store holds none of the day
	DownSeals       *Seals
	// UpSealFund and DownSealFund are the order at the limit at the close,
	// yuan, as the day's published pool states it; nil where none does.
	UpSealFund, DownSealFund *float64
	// Strong is why the row is in the strong pool (Service.Strong); nil
	// in the other pools' derivation.
	Strong *StrongMark
}

// Day is a day's derivation.
type Day struct {
	Day            market.Day
	Prev           market.Day // the trading day before
	Rows           []Row      // in code order
	Universe       int        // stocks listed that day
	NoRule         int        // stocks that traded without a known limit rule (new listings, main-board ST from 2025-06-27)
	Minutes        int        // rows whose 1-minute bars of the day are held
	Source         string     // "store", or the quote list's source for today
	Final          bool       // false for today before the close: the pools move each minute
	AsOf           time.Time  // the quote list's time for today; zero from the store
	Recorded       db.RecordedDays
	UniverseSource string
	// UniverseRecorded is false for a past day the security master did not
	// record: the universe is then the stocks with a daily bar stored that
	// day, and a stock's name (its risk warning, hence its limit rule) is
	// the one its name history knows for the day, else today's.
	UniverseRecorded bool
	// SealFundSource is the published pools' source the seal funds come
	// from ("" when the day's are not imported).
	SealFundSource string
}

// Derive is day's pools: from the store for a past day (the day's
// universe, daily bars and archived minutes), from the latest quote list
// for today. A date that is not a trading day or is after today is
// invalid; a day whose universe or bars are not held is not found.
func (s *Service) Derive(ctx context.Context, day market.Day) (Day, error) {
	now, today, err := s.checkDay(day)
	if err != nil {
		return Day{}, err
	}
	var d Day
	if day == today && s.quotes != nil {
		d, err = s.deriveToday(ctx, day, now)
	} else {
		d, err = s.derivePast(ctx, day)
	}
	if err != nil {
		return d, err
	}
	return d, s.attachSealFunds(ctx, &d)
}

// checkDay refuses a day after today or not a trading day; now and today
// are the clock's.
func (s *Service) checkDay(day market.Day) (time.Time, market.Day, error) {
	now := s.clock.Now()
	today := market.DayOf(now)
	switch {
	case day > today:
		return now, today, market.Errorf(market.KindInvalid, "date %v is after today %v", day, today)
	case !s.cal.IsTradingDay(day):
		return now, today, market.Errorf(market.KindInvalid, "date %v is not a trading day: the pools are of trading days (the one before is %v)", day, s.cal.Prev(day))
	}
	return now, today, nil
}

// attachSealFunds gives the rows the order at the limit at the close
// (封单资金) where the published pools of the day, when imported, state
// it: mdqs's own data (bars, quote lists) hold no order book of the close.
func (s *Service) attachSealFunds(ctx context.Context, d *Day) error {
	pub, err := s.store.PublishedPools(ctx, d.Day)
	switch {
	case market.KindOf(err) == market.KindNotFound:
		return nil
	case err != nil:
		return err
	}
	funds := func(kind string) map[market.Code]float64 {
		p, _ := pub.Pool(kind)
		m := map[market.Code]float64{}
		for _, r := range p.Rows {
			if r.SealFund >= 0 && !math.IsNaN(r.SealFund) {
				m[r.Code] = r.SealFund
			}
		}
		return m
	}
	up, down := funds("up"), funds("down")
	d.SealFundSource = pub.Source
	for i := range d.Rows {
		r := &d.Rows[i]
		if v, ok := up[r.Code]; ok && r.SealedUp {
			r.UpSealFund = &v
		}
		if v, ok := down[r.Code]; ok && r.SealedDown {
			r.DownSealFund = &v
		}
	}
	return nil
}

// member is a stock with its bars and status while a day is derived.
type member struct {
	sec   secmaster.Security
	raw   []market.Bar // newest last; the day's bar last when it has one
	today *DayBar      // the quote list's bar of today
}

func (s *Service) derivePast(ctx context.Context, day market.Day) (Day, error) {
	// Four bars a code (the day, the day before and their previous
	// closes, a suspension between them included): one primary-key read.
	out, ms, err := s.pastMembers(ctx, day, 4)
	if err != nil {
		return Day{}, err
	}
	return s.finish(ctx, out, ms)
}

// pastMembers is day's universe with each stock's last n daily bars
// through day.
func (s *Service) pastMembers(ctx context.Context, day market.Day, n int) (Day, []member, error) {
	secs, rec, err := s.sec.Universe(ctx, day, secmaster.Filter{Type: market.TypeStock})
	recorded := err == nil
	if market.KindOf(err) == market.KindNotFound {
		// Before the security master's first record (or on a day the
		// server was off) the daily bars still decide the pools: the
		// stocks with a bar stored that day are the universe.
		secs, err = s.storedStocks(ctx)
	}
	if err != nil {
		return Day{}, nil, err
	}
	out := Day{Day: day, Prev: s.cal.Prev(day), Universe: len(secs), Source: "store", Final: true, Recorded: rec, UniverseSource: rec.Source,
		UniverseRecorded: recorded}
	end := s.cal.Next(day).Start().Unix() - 1
	ms := make([]member, len(secs))
	withBar := 0
	for i, sec := range secs {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return Day{}, nil, err
			}
		}
		bars, err := s.lastBars(ctx, sec.Code, end, n)
		if err != nil {
			return Day{}, nil, err
		}
		if n := len(bars); n > 0 && bars[n-1].Day == day {
			withBar++
		}
		ms[i] = member{sec: sec, raw: bars}
	}
	if !recorded {
		out.Universe = withBar
	}
	if withBar == 0 {
		return Day{}, nil, market.Errorf(market.KindNotFound, "no daily bar of %v is stored: the end-of-day job stores them after the close of each day mdqs runs, "+
			"the terminal's import and K-line requests store more", day)
	}
	return out, ms, nil
}

func (s *Service) deriveToday(ctx context.Context, day market.Day, now time.Time) (Day, error) {
	out, ms, err := s.todayMembers(ctx, day, now, 3)
	if err != nil {
		return Day{}, err
	}
	return s.finish(ctx, out, ms)
}

// todayMembers is the quote list's stocks with today's bar from it and
// their last n stored daily bars before today.
func (s *Service) todayMembers(ctx context.Context, day market.Day, now time.Time, n int) (Day, []member, error) {
	qs, err := s.quotes.Quotes(ctx)
	if err != nil {
		return Day{}, nil, err
	}
	out := Day{Day: day, Prev: s.cal.Prev(day), Source: s.source, Final: !now.Before(day.At(15, 0, 0)), UniverseSource: s.source,
		UniverseRecorded: true}
	prevEnd := day.Start().Unix() - 1
	var ms []member
	for _, q := range qs {
		if market.Classify(q.Code) != market.TypeStock {
			continue
		}
		if len(ms)%256 == 0 {
			if err := ctx.Err(); err != nil {
				return Day{}, nil, err
			}
		}
		out.Universe++
		if q.At.After(out.AsOf) {
			out.AsOf = q.At
		}
		bars, err := s.lastBars(ctx, q.Code, prevEnd, n)
		if err != nil {
			return Day{}, nil, err
		}
		st := secmaster.STOf(q.Name)
		tb := DayBar{Day: day, Name: q.Name, PrevClose: q.PrevClose, Open: q.Open, High: q.High, Low: q.Low, Close: q.Price, Volume: q.Volume}
		m := member{sec: secmaster.Security{Code: q.Code, Name: q.Name, Type: market.TypeStock, Board: secmaster.Board(q.Code), ST: st,
			Suspended: q.Volume <= 0 || q.Price <= 0}, raw: bars, today: &tb}
		if q.LimitUp > 0 && q.LimitDown > 0 {
			tb.LimitUp, tb.LimitDown = q.LimitUp, q.LimitDown
		}
		ms = append(ms, m)
	}
	return out, ms, nil
}

func reverse(bars []market.Bar) {
	for i, j := 0, len(bars)-1; i < j; i, j = i+1, j-1 {
		bars[i], bars[j] = bars[j], bars[i]
	}
}

// finish judges every member's day and the day before, reads the
// candidates' longer history and the day's minutes, and keeps the rows.
func (s *Service) finish(ctx context.Context, out Day, ms []member) (Day, error) {
	day, prev := out.Day, out.Prev
	acts, err := s.store.ActionsBetween(ctx, s.cal.Prev(s.cal.Prev(s.cal.Prev(prev))), day)
	if err != nil {
		return Day{}, err
	}
	events := eventsByCode(acts)
	var cand []int
	for i, m := range ms {
		// The day's name judges the day; the day before is judged loosely
		// here (a close 4.5 % up or more: an ST 5 % board included) and
		// exactly, under its own name, in candidate.
		ch := s.withToday(Chain(m.raw, func(market.Day) string { return m.sec.Name }, events[m.sec.Code]), m)
		var st Status
		if n := len(ch); n > 0 && ch[n-1].Day == day {
			if ch[n-1].Traded() {
				if st = StatusOf(m.sec.Code, ch[n-1], s.rule); !st.HasLimit {
					out.NoRule++
				}
			}
			ch = ch[:n-1]
		}
		up := false
		if n := len(ch); n > 0 && ch[n-1].Day == prev && ch[n-1].Traded() && ch[n-1].PrevClose > 0 {
			up = ch[n-1].Close/ch[n-1].PrevClose-1 >= 0.045
		}
		if !out.UniverseRecorded && !st.TouchedUp && !st.TouchedDown && len(m.raw) > 0 {
			// Today's name judged the day: a risk warning the stock had then
			// (a 5 % board) is only known to candidate, so a 4.5 % move is one.
			up = up || moved(m.raw, day)
		}
		if st.TouchedUp || st.TouchedDown || up {
			cand = append(cand, i)
		}
	}
	days := s.window(day, CountDays)
	for _, i := range cand {
		row, err := s.candidate(ctx, ms[i], days)
		if err != nil {
			return Day{}, err
		}
		if row == nil {
			continue
		}
		if row.UpSeals != nil || row.DownSeals != nil {
			out.Minutes++
		}
		out.Rows = append(out.Rows, *row)
	}
	return out, nil
}

// moved reports that the last of raw, a bar of day, reached 4.5 % above
// or below the close before it: loose enough for a 5 % board (an ex-date
// between them only adds a candidate), which candidate judges exactly.
func moved(raw []market.Bar, day market.Day) bool {
	n := len(raw)
	if n < 2 || raw[n-1].Day != day || raw[n-2].Close <= 0 {
		return false
	}
	b, prev := raw[n-1], raw[n-2].Close
	return b.High/prev-1 >= 0.045 || b.Low/prev-1 <= -0.045
}

// storedStocks is every stock the store knows, for a day the security
// master did not record: the universe of its first recorded day (the
// nearest to a day before it, delisted-later codes included) and the
// securities list; derivePast keeps those with a bar that day.
func (s *Service) storedStocks(ctx context.Context) ([]secmaster.Security, error) {
	seen := map[market.Code]bool{}
	var out []secmaster.Security
	rec, err := s.sec.Recorded(ctx)
	switch {
	case err == nil:
		first, _, err := s.sec.Universe(ctx, rec.First, secmaster.Filter{Type: market.TypeStock})
		if err != nil {
			return nil, err
		}
		for _, sec := range first {
			seen[sec.Code] = true
			sec.Suspended = false
			out = append(out, sec)
		}
	case market.KindOf(err) != market.KindNotFound:
		return nil, err
	}
	names, err := s.store.StockNames(ctx)
	if err != nil {
		return nil, err
	}
	for c, name := range names {
		code, err := market.ParseCode(c)
		if err != nil || seen[code] || market.Classify(code) != market.TypeStock {
			continue
		}
		out = append(out, secmaster.Security{Code: code, Name: name, Type: market.TypeStock, Board: secmaster.Board(code), ST: secmaster.STOf(name)})
	}
	slices.SortFunc(out, func(a, b secmaster.Security) int { return strings.Compare(a.Code.String(), b.Code.String()) })
	return out, nil
}

// withToday appends the quote list's bar of today to ch.
func (s *Service) withToday(ch []DayBar, m member) []DayBar {
	if m.today == nil {
		return ch
	}
	return append(ch, *m.today)
}

// window is the last n trading days ending at day, oldest first.
func (s *Service) window(day market.Day, n int) []market.Day {
	out := make([]market.Day, n)
	for i := n - 1; i >= 0; i-- {
		out[i] = day
		day = s.cal.Prev(day)
	}
	return out
}

// candidate reads m's longer history (with the names it had each day and
// its ex-dates) and the day's minutes, and makes its row; nil when the
// longer read judges it in no pool after all.
func (s *Service) candidate(ctx context.Context, m member, days []market.Day) (*Row, error) {
	day := days[len(days)-1]
	prev := s.cal.Prev(day)
	names, err := s.namesOf(ctx, m.sec)
	if err != nil {
		return nil, err
	}
	all, err := s.store.Actions(ctx, m.sec.Code)
	if err != nil {
		return nil, err
	}
	events := corpaction.PriceEvents(all)
	var ch []DayBar
	end := day.Start().Unix() - 1 // the stored bars before the day; the day's own is m's
	n := history + 1
	if m.today == nil {
		end = s.cal.Next(day).Start().Unix() - 1
	}
	for {
		raw, err := s.lastBars(ctx, m.sec.Code, end, n)
		if err != nil {
			return nil, err
		}
		ch = s.withToday(Chain(raw, names.at, events), m)
		if len(ch) == 0 || ch[len(ch)-1].Day < prev {
			return nil, nil // no bar of the day nor of the day before: not stored
		}
		if ch[len(ch)-1].Day == day {
			ch[len(ch)-1].Name = m.sec.Name
		}
		if _, complete := Boards(m.sec.Code, ch, s.rule); complete || len(raw) < n {
			break
		}
		n *= 2 // the streak reaches the first bar read: read further back
	}
	row := &Row{Code: m.sec.Code, Name: m.sec.Name, Board: m.sec.Board, ST: m.sec.ST}
	before := ch // the bars up to the day before
	if last := ch[len(ch)-1]; last.Day == day {
		row.Bar, row.Status, before = last, StatusOf(m.sec.Code, last, s.rule), ch[:len(ch)-1]
	}
	if row.Bar.Traded() {
		row.Boards, _ = Boards(m.sec.Code, ch, s.rule)
		row.DownDays, _ = DownDays(m.sec.Code, ch, s.rule)
	}
	if k := len(before); k > 0 && before[k-1].Day == prev && before[k-1].Traded() {
		row.YesterdayBoards, _ = Boards(m.sec.Code, before, s.rule)
	}
	row.CountUp = CountUp(m.sec.Code, ch, days, s.rule)
	if !row.TouchedUp && !row.TouchedDown && row.YesterdayBoards == 0 {
		return nil, nil
	}
	if !row.Bar.Traded() {
		return row, nil
	}
	if err := s.seals(ctx, row); err != nil {
		return nil, err
	}
	return row, nil
}

// seals reads the day's 1-minute bars of row's code, when held.
func (s *Service) seals(ctx context.Context, row *Row) error {
	days, err := s.store.MinuteDays(ctx, row.Code, market.Min1, row.Bar.Day, row.Bar.Day)
	if err != nil || len(days) == 0 || len(days[0].Bars) == 0 {
		return err
	}
	bars := days[0].Bars
	if row.TouchedUp {
		v := SealsOf(bars, row.Up, true)
		row.UpSeals = &v
	}
	if row.TouchedDown {
		v := SealsOf(bars, row.Down, false)
		row.DownSeals = &v
	}
	return nil
}

// names are the names a code had, by day.
type names struct {
	spans    []secmaster.NameSpan
	fallback string
}

// at is the name on d: the span covering it, else the fallback (the
// day's own name): before the first record and the exchanges' lists, the
// name is not known and the day's stands for it.
func (n names) at(d market.Day) string {
	for _, sp := range n.spans {
		if (sp.From == 0 || sp.From <= d) && (sp.To == 0 || d <= sp.To) {
			return sp.Name
		}
	}
	return n.fallback
}

func (s *Service) namesOf(ctx context.Context, sec secmaster.Security) (names, error) {
	n := names{fallback: sec.Name}
	t, err := s.sec.History(ctx, sec.Code)
	switch {
	case err == nil:
		n.spans = t.Names
	case market.KindOf(err) != market.KindNotFound:
		return n, err
	}
	return n, nil
}

func eventsByCode(acts []db.Action) map[market.Code][]adjust.Event {
	out := map[market.Code][]adjust.Event{}
	seen := map[market.Code]map[market.Day]string{}
	for _, a := range acts {
		if seen[a.Code] == nil {
			seen[a.Code] = map[market.Day]string{}
		}
		if src, ok := seen[a.Code][a.Day]; ok && src != a.Source {
			continue // one source's events per day: the first in order
		}
		seen[a.Code][a.Day] = a.Source
		out[a.Code] = append(out[a.Code], corpaction.PriceEvents([]db.Action{a})...)
	}
	return out
}

// Kinds are the pools Derive makes, in the order documented; the strong
// pool is Strong's.
var Kinds = []string{"up", "down", "broken", "yesterday"}

// Pool is the rows of one pool of d, in code order: up (closed at the
// limit-up), down (closed at the limit-down), broken (touched the
// limit-up, did not close at it: 炸板), yesterday (closed at the limit-up
// the trading day before, as they trade on the day).
func (d Day) Pool(kind string) []Row {
	out := []Row{}
	for _, r := range d.Rows {
		var in bool
		switch kind {
		case "up":
			in = r.SealedUp
		case "down":
			in = r.SealedDown
		case "broken":
			in = r.BrokenUp
		case "yesterday":
			in = r.YesterdayBoards > 0
		case "strong":
			in = r.Strong != nil
		}
		if in {
			out = append(out, r)
		}
	}
	return out
}

// Level is one rung of the ladder: the stocks with Boards consecutive
// limit-up closes, and how the rung below fared: of Yesterday stocks with
// Boards-1 the day before, Promoted closed at the limit-up again.
type Level struct {
	Boards    int
	Rows      []Row
	Yesterday int
	Promoted  int
}

// Promotion is how the day before's N-board stocks fared on the day.
type Promotion struct {
	From, Yesterday, Promoted int
}

// Ladder is d's limit-up stocks by consecutive limit-up closes, the
// highest first, and the promotion of every rung of the day before, the
// highest first (a rung the day before with no stock promoted included).
func (d Day) Ladder() ([]Level, []Promotion) {
	byBoards := map[int]*Level{}
	prom := map[int]*Promotion{}
	for _, r := range d.Rows {
		if r.SealedUp && r.Boards > 0 {
			l := byBoards[r.Boards]
			if l == nil {
				l = &Level{Boards: r.Boards}
				byBoards[r.Boards] = l
			}
			l.Rows = append(l.Rows, r)
		}
		if n := r.YesterdayBoards; n > 0 {
			p := prom[n]
			if p == nil {
				p = &Promotion{From: n}
				prom[n] = p
			}
			p.Yesterday++
			if r.SealedUp && r.Boards == n+1 {
				p.Promoted++
			}
		}
	}
	var levels []Level
	for _, l := range byBoards {
		if p := prom[l.Boards-1]; p != nil {
			l.Yesterday, l.Promoted = p.Yesterday, p.Promoted
		}
		levels = append(levels, *l)
	}
	slices.SortFunc(levels, func(a, b Level) int { return b.Boards - a.Boards })
	var proms []Promotion
	for _, p := range prom {
		proms = append(proms, *p)
	}
	slices.SortFunc(proms, func(a, b Promotion) int { return b.From - a.From })
	return levels, proms
}
