package demo

import (
	"cmp"
	"context"
	"math"
	"slices"
	"sync"
	"time"

	"mdqs/internal/market"
	"mdqs/internal/upstream"
)

// Market is the synthetic A-share market. Its methods are safe for
// concurrent use; its caches are bounded.
type Market struct {
	clock market.Clock
	seed  uint64
	u     *universe

	days   []market.Day // trading days from HistoryStart to the horizon
	anchor int          // index of the anchor day in days
	nInd   int          // industries; factor ids are 0 market, 1+i industry i, 1+nInd+j concept j

	shape               [241]float64 // U-shaped intraday volume profile, by minute 1..240
	mkMin, inMin, cnMin float64      // one-minute volatilities of the factors

	uniMu       sync.Mutex // the universe walk
	checkpoints map[int]*uniState
	recent      *lru[int, *uniState]
	dayStates   *lru[int, *dayState]

	snapMu  sync.Mutex // snapshot states and the day bridges
	snaps   *lru[snapKey, *snapState]
	bridges *lru[int, *dayBridges]

	seriesMu sync.Mutex
	series   *lru[int32, *series]

	statMu sync.Mutex
	status upstream.Status

	ix indexBook // the stock indices, built on first use

	rights rightsIssue // the one rights issue (actions.go)
	exDays [][]dayEx   // each timeline day's price events, in code order (exrights.go)
	ceil   []int32     // the first timeline index on or after each calendar day
	e0     int64       // the first timeline day, as days since 1970

	lhb lhbMemo // the dragon-tiger list of the last day asked (lhb.go)

	funds fundDays // the ETFs' daily bars built so far (etfbars.go)
}

// Stock is a listed stock of the demo universe.
type Stock struct {
	Code        market.Code
	Name        string
	Industry    string   // industry board code
	Concepts    []string // concept board codes, ascending
	FloatShares int64
	TotalShares int64
	Listed      market.Day
	Delisted    market.Day // first day no longer listed; 0: listed on
}

// Board is an industry or concept board and its members.
type Board struct {
	Code    string
	Name    string
	Kind    market.SectorKind
	Members []market.Code // ascending
}

// New builds the market. A nil clock is the system clock.
func New(cfg Config, clock market.Clock) (*Market, error) {
	if clock == nil {
		clock = market.SystemClock{}
	}
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	cal := cfg.Calendar
	start := cal.Next(cfg.HistoryStart.AddDays(-1))
	horizon := market.NewDay(anchorDay.Year()+horizonYears, 12, 31)
	days := cal.Between(start, horizon)
	anchor, ok := slices.BinarySearch(days, cal.OnOrBefore(anchorDay))
	if !ok || len(days) == 0 {
		return nil, market.Errorf(market.KindInvalid, "demo: no trading days between %v and %v", start, anchorDay)
	}
	u, err := buildUniverse(cfg)
	if err != nil {
		return nil, err
	}
	m := &Market{
		clock: clock, seed: uint64(cfg.Seed), u: u,
		days: days, anchor: anchor, nInd: len(u.industries),
		checkpoints: map[int]*uniState{},
		recent:      newLRU[int, *uniState](40),
		dayStates:   newLRU[int, *dayState](4),
		snaps:       newLRU[snapKey, *snapState](4),
		bridges:     newLRU[int, *dayBridges](2),
		series:      newLRU[int32, *series](32),
		status:      upstream.Status{Source: Source},
	}
	for i := range u.stocks {
		u.stocks[i].first, _ = slices.BinarySearch(days, u.stocks[i].listed)
	}
	m.drawLives()
	sq := math.Sqrt(240)
	m.mkMin, m.inMin, m.cnMin = mktVol/sq, indVol/sq, conVol/sq
	for k := 1; k <= 240; k++ {
		// Heavy at the open, lighter through the morning, a small bump
		// after lunch and a build-up into the close; rational decays
		// instead of exp keep it bit-reproducible.
		x := float64(k)
		v := 1 + 2.4/(1+(x-1)/6) + 1.3/(1+(240-x)/7)
		if k > 120 {
			v += 0.5 / (1 + float64((x-121)/4))
		}
		m.shape[k] = v
	}
	m.rights = m.pickRights()
	m.buildEx()
	return m, nil
}

// Stocks lists the universe in code order, including stocks whose listing
// day is after a given instant (they have no bars before it) and stocks
// delisted by then (none after it), each under its name of the clock's
// today.
func (m *Market) Stocks() []Stock {
	today := market.DayOf(m.clock.Now())
	out := make([]Stock, len(m.u.stocks))
	for i := range m.u.stocks {
		s := &m.u.stocks[i]
		cs := make([]string, len(s.concepts))
		for k, j := range s.concepts {
			cs[k] = m.u.concepts[j].code
		}
		slices.Sort(cs)
		out[i] = Stock{Code: s.code, Name: s.nameOn(today), Industry: m.u.industries[s.ind].code, Concepts: cs,
			FloatShares: s.fs, TotalShares: s.total, Listed: s.listed, Delisted: s.delistedDay()}
	}
	return out
}

// NamesOn are the names of the stocks listed on day (suspended or not,
// delisted since included, delisted by then not) and of the ETFs listed
// then (etf.go): the demo's universe of that day, as the security master
// records it, each under the name of that day.
func (m *Market) NamesOn(day market.Day) map[market.Code]string {
	out := make(map[market.Code]string, len(m.u.stocks))
	for i := range m.u.stocks {
		if s := &m.u.stocks[i]; s.listedOn(day) {
			out[s.code] = s.nameOn(day)
		}
	}
	m.addFundNames(out, day)
	return out
}

// SuspendedOn are the stocks listed on day that did not trade at all: no
// bar, the close carried.
func (m *Market) SuspendedOn(day market.Day) map[market.Code]bool {
	out := map[market.Code]bool{}
	for i := range m.u.stocks {
		if s := &m.u.stocks[i]; s.listedOn(day) && s.haltedOn(day) {
			out[s.code] = true
		}
	}
	return out
}

// DelistingDays are the delisted stocks' delisting days (the first day
// each was no longer listed), as an exchange's list of delisted
// companies states them.
func (m *Market) DelistingDays() map[market.Code]market.Day {
	out := map[market.Code]market.Day{}
	for i := range m.u.stocks {
		if s := &m.u.stocks[i]; s.delistedDay() != 0 {
			out[s.code] = s.delistedDay()
		}
	}
	return out
}

// ListingDays are the stocks' listing days, as a listing source states
// them (the security master's, for the demo).
func (m *Market) ListingDays() map[market.Code]market.Day {
	out := make(map[market.Code]market.Day, len(m.u.stocks))
	for i := range m.u.stocks {
		out[m.u.stocks[i].code] = m.u.stocks[i].listed
	}
	return out
}

// Boards lists the industry or concept boards in code order, with the
// members not delisted by the clock's today; nil for another kind.
func (m *Market) Boards(kind market.SectorKind) []Board {
	bs := m.boardsOf(kind)
	if bs == nil {
		return nil
	}
	today := market.DayOf(m.clock.Now())
	out := make([]Board, len(bs))
	for i, b := range bs {
		ms := make([]market.Code, 0, len(b.members))
		for _, si := range b.members {
			if s := &m.u.stocks[si]; s.delistedDay() == 0 || s.delistedDay() > today {
				ms = append(ms, s.code)
			}
		}
		out[i] = Board{Code: b.code, Name: b.name, Kind: b.kind, Members: ms}
	}
	slices.SortFunc(out, func(a, b Board) int { return cmp.Compare(a.Code, b.Code) })
	return out
}

// CollidingNames are the board names that are both an industry and a
// concept in this market (贵金属 and 船舶制造 at the default scale), made
// on purpose so that the ranking's merge-by-name has something to dedupe.
func (m *Market) CollidingNames() []string { return slices.Clone(m.u.colliding) }

// Status mirrors the upstream clients' health report. The demo never
// fails for upstream reasons, so only calls and successes move.
func (m *Market) Status() upstream.Status {
	m.statMu.Lock()
	defer m.statMu.Unlock()
	return m.status
}

func (m *Market) observe(start time.Time, errp *error) {
	err := *errp
	end := m.clock.Now()
	m.statMu.Lock()
	defer m.statMu.Unlock()
	m.status.Calls++
	if upstream.KindOf(err) == upstream.KindCanceled {
		return // the caller gave up; as in the upstream clients, not a failure
	}
	m.status.LastLatency = end.Sub(start)
	if err == nil {
		m.status.LastSuccess = end
		m.status.ConsecutiveFailures = 0
		return
	}
	m.status.Failures++
	m.status.ConsecutiveFailures++
	m.status.LastError, m.status.LastErrorAt = err.Error(), end
}

func (m *Market) boardsOf(kind market.SectorKind) []board {
	switch kind {
	case market.Industry:
		return m.u.industries
	case market.Concept:
		return m.u.concepts
	}
	return nil
}

// boardOffset is where a kind's boards start among all boards: industries
// first, then concepts.
func (m *Market) boardOffset(kind market.SectorKind) int {
	if kind == market.Concept {
		return m.nInd
	}
	return 0
}

func (m *Market) lookup(code market.Code) (int32, error) {
	si, ok := m.u.byCode[code]
	if !ok {
		return 0, market.Errorf(market.KindNotFound, "demo: no stock %s", code)
	}
	return si, nil
}

// index is the timeline position of a trading day.
func (m *Market) index(d market.Day) (int, bool) { return slices.BinarySearch(m.days, d) }

// onOrBefore is the position of the last trading day on or before d, -1
// when d precedes the history.
func (m *Market) onOrBefore(d market.Day) int {
	i, ok := slices.BinarySearch(m.days, d)
	if ok {
		return i
	}
	return i - 1
}

// ctxErr reports a finished context the way the upstream clients do.
func ctxErr(ctx context.Context) error {
	if ctx == nil {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return &upstream.Error{Kind: upstream.KindCanceled, Source: Source, Err: err}
	}
	return nil
}

// validDay rejects day numbers that are not dates (20261340).
func validDay(d market.Day) bool {
	if d == 0 {
		return true
	}
	if d < 10000101 || d > 99991231 {
		return false
	}
	_, err := market.ParseDay(d.String())
	return err == nil
}
