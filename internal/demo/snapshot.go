package demo

import (
	"cmp"
	"context"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"

	"mdqs/internal/market"
)

type snapKey struct{ idx, k int }

// snapState is every stock's session state at one (day, bar count).
type snapState struct {
	ds *dayState
	qs []qstate // per stock; prev == 0 when not listed that day
}

// Quotes is the all-A-share snapshot as of the clock's now.
func (m *Market) Quotes(ctx context.Context) ([]market.Quote, error) {
	return m.QuotesAt(ctx, m.clock.Now())
}

// QuotesAt is the all-A-share snapshot as of t, in code order: every stock
// listed by t's session day, its price the close of the last completed
// minute bar (see resolve). Before 09:25 the price is the previous close
// and open, high, low and amplitude are NaN, as EastMoney's "-" is.
// VolumeRatio is NaN on a listing day (no earlier volume).
func (m *Market) QuotesAt(ctx context.Context, t time.Time) (quotes []market.Quote, err error) {
	defer m.observe(m.clock.Now(), &err)
	if err := ctxErr(ctx); err != nil {
		return nil, err
	}
	inst, err := m.resolve(t)
	if err != nil {
		return nil, err
	}
	ss := m.snapshot(inst)
	quotes = make([]market.Quote, 0, len(ss.qs))
	d := m.days[inst.idx]
	for si := range ss.qs {
		if ss.qs[si].prev > 0 {
			quotes = append(quotes, m.quote(&m.u.stocks[si], d, ss.qs[si], ss.ds.avg5[si], inst.at))
		}
	}
	return quotes, nil
}

// Sectors is the snapshot of all industry or concept boards as of the
// clock's now.
func (m *Market) Sectors(ctx context.Context, kind market.SectorKind) (market.SectorSnapshot, error) {
	return m.SectorsAt(ctx, kind, m.clock.Now())
}

// SectorsAt is the board snapshot as of t, the aggregate of the members'
// quotes at t: Pct float-cap weighted (previous-close caps), Amount and
// MainNet summed, Turnover = member volume / member float shares,
// MainNetRatio = MainNet / Amount, Up/Down/Flat counted, the leader the
// member with the highest pct (ties: lower code; LeaderCode is the bare
// six-digit symbol, as push2's f140 is), Price the board index: the
// previous close level times (1 + Pct). Boards are in code order; a board
// with no member listed by then is left out.
func (m *Market) SectorsAt(ctx context.Context, kind market.SectorKind, t time.Time) (snap market.SectorSnapshot, err error) {
	defer m.observe(m.clock.Now(), &err)
	bs := m.boardsOf(kind)
	if bs == nil {
		return snap, market.Errorf(market.KindInvalid, "sector kind %q", kind)
	}
	if err := ctxErr(ctx); err != nil {
		return snap, err
	}
	inst, err := m.resolve(t)
	if err != nil {
		return snap, err
	}
	ss := m.snapshot(inst)
	return market.SectorSnapshot{Kind: kind, Source: Source, At: inst.at, Sectors: m.aggregate(ss, kind)}, nil
}

// snapshot computes, or finds, every stock's state at an instant.
func (m *Market) snapshot(inst instant) *snapState {
	key := snapKey{inst.idx, inst.k}
	m.snapMu.Lock()
	defer m.snapMu.Unlock()
	if ss, ok := m.snaps.get(key); ok {
		return ss
	}
	ds := m.dayState(inst.idx)
	ss := &snapState{ds: ds, qs: make([]qstate, len(m.u.stocks))}
	if inst.k < 0 {
		for si, p := range ds.prev {
			if p > 0 {
				ss.qs[si] = preOpen(p)
			}
		}
	} else {
		m.sessionStates(ss, inst)
	}
	m.snaps.put(key, ss)
	return ss
}

// sessionStates generates every listed stock's path of the day and keeps
// its state after inst.k bars. The caller holds snapMu.
func (m *Market) sessionStates(ss *snapState, inst instant) {
	d := m.days[inst.idx]
	br, ok := m.bridges.get(inst.idx)
	if !ok {
		br = m.allBridges(d)
		m.bridges.put(inst.idx, br)
	}
	ds := ss.ds
	// Stocks are independent, so the work splits over the cores without
	// changing any result.
	workers := max(1, min(runtime.GOMAXPROCS(0), 8, len(m.u.stocks)/256))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := new(dayPath)
			for si := w; si < len(m.u.stocks); si += workers {
				if ds.prev[si] > 0 {
					ss.qs[si] = m.sessionState(p, si, d, ds, br, inst.k)
				}
			}
		}()
	}
	wg.Wait()
}

// sessionState is listed stock si's state after k bars of day d (k >= 0),
// generated in p: one stock of sessionStates.
func (m *Market) sessionState(p *dayPath, si int, d market.Day, ds *dayState, br *dayBridges, k int) qstate {
	if m.u.stocks[si].haltedOn(d) {
		q := preOpen(ds.prev[si]) // no trade all day
		q.halted = true
		return q
	}
	m.pathOf(p, si, d, ds, br)
	return p.state(ds.prev[si], k)
}

// pathOf generates listed stock si's session of day d.
func (m *Market) pathOf(p *dayPath, si int, d market.Day, ds *dayState, br *dayBridges) {
	s := &m.u.stocks[si]
	var cn *[241]float64
	if len(s.concepts) > 0 {
		cn = &br.b[1+m.nInd+int(s.concepts[0])]
	}
	m.genPath(p, s, d, ds.prev[si], ds.close[si], ds.vday[si], &br.b[0], &br.b[1+int(s.ind)], cn)
}

// bridgesOf is day i's factor bridges, made once for a few days.
func (m *Market) bridgesOf(i int) *dayBridges {
	m.snapMu.Lock()
	defer m.snapMu.Unlock()
	br, ok := m.bridges.get(i)
	if !ok {
		br = m.allBridges(m.days[i])
		m.bridges.put(i, br)
	}
	return br
}

// quote renders a stock's state on day d the way push2's stock list
// reports it.
func (m *Market) quote(s *stock, d market.Day, q qstate, avg5 float64, at time.Time) market.Quote {
	price := cents(q.price)
	vol := q.vol * 100
	out := market.Quote{
		Code: s.code, Name: s.nameOn(d), Price: price, Pct: round2(pctOf(q.price, q.prev)), Change: cents(q.price - q.prev),
		Open: cents(q.open), High: cents(q.high), Low: cents(q.low), PrevClose: cents(q.prev),
		Volume: vol, Amount: q.amt, Turnover: round2(float64(vol) / s.fsF * 100),
		Amplitude: round2(float64(q.high-q.low) / float64(q.prev) * 100),
		PE:        round2(price / s.eps), PB: round2(price / s.bvps),
		MarketCap: roundYuan(float64(q.price) * float64(s.total) / 100), FloatCap: roundYuan(float64(q.price) * s.fsF / 100),
		MainNet: q.mf, Speed: round2(pctOf(q.price, q.last)), At: at,
	}
	if q.amt > 0 {
		out.MainNetRatio = round2(q.mf / q.amt * 100)
	}
	// The demo publishes its own limit prices, as push2's single quote
	// does: its paths are clamped into them, so a derived rule that
	// differed (ST's 5 %, kept by the demo) could not disagree with its
	// prices.
	lo, hi := limits(q.prev, s.limitOn(d))
	out.LimitUp, out.LimitDown = cents(hi), cents(lo)
	if q.halted {
		// Suspended: push2 shows "-" for every figure of the day but the
		// previous close.
		nan := math.NaN()
		out.Price, out.Pct, out.Change, out.Open, out.High, out.Low = nan, nan, nan, nan, nan, nan
		out.Amplitude, out.VolumeRatio, out.Speed, out.Turnover, out.MainNetRatio = nan, nan, nan, nan, nan
		out.LimitUp, out.LimitDown = nan, nan
		return out
	}
	switch {
	case q.k < 0:
		out.Open, out.High, out.Low, out.Amplitude = math.NaN(), math.NaN(), math.NaN(), math.NaN()
	case math.IsNaN(avg5) || avg5 <= 0:
		out.VolumeRatio = math.NaN()
	default:
		out.VolumeRatio = round2(float64(q.vol) / float64(max(1, q.k)) / (avg5 / 240))
	}
	return out
}

// boardAcc accumulates one board's members.
type boardAcc struct {
	n, traded      int // members listed; of them, not suspended
	amt, mf        float64
	vol, fs        float64
	up, down, flat int
	leader         int32
	leaderPct      float64
	minPct, maxPct float64
}

// aggregate builds the boards of a kind from the members' states.
func (m *Market) aggregate(ss *snapState, kind market.SectorKind) []market.Sector {
	sums := m.newBoardSums(kind)
	for si := range ss.qs {
		m.addMember(&sums, kind, si, &ss.qs[si])
	}
	return m.boards(&sums, kind, ss.ds)
}

// boardSums gathers one instant's members of a kind's boards, in code
// order (a board's leader on a tie is the member added first).
type boardSums struct {
	px  []int32 // every stock's price, for the boards' index levels
	acc []boardAcc
}

func (m *Market) newBoardSums(kind market.SectorKind) boardSums {
	return boardSums{px: make([]int32, len(m.u.stocks)), acc: make([]boardAcc, len(m.boardsOf(kind)))}
}

// addMember adds stock si's state to its boards of the kind.
func (m *Market) addMember(sums *boardSums, kind market.SectorKind, si int, q *qstate) {
	sums.px[si] = q.price
	if q.prev <= 0 {
		return
	}
	acc := sums.acc
	add := func(b int, si int, s *stock, q *qstate, p float64) {
		a := &acc[b]
		if a.n == 0 {
			a.leader, a.leaderPct = int32(si), p // a board of suspended members only
		}
		a.n++
		if q.halted {
			// A suspended member keeps its weight in the index (its
			// price is the previous close) but neither rises, falls nor
			// trades.
			return
		}
		if a.traded == 0 || p > a.leaderPct {
			a.leader, a.leaderPct = int32(si), p
		}
		if a.traded == 0 || p < a.minPct {
			a.minPct = p
		}
		if a.traded == 0 || p > a.maxPct {
			a.maxPct = p
		}
		a.traded++
		a.amt += q.amt
		a.mf += q.mf
		a.vol += float64(q.vol * 100)
		a.fs += s.fsF
		switch {
		case q.price > q.prev:
			a.up++
		case q.price < q.prev:
			a.down++
		default:
			a.flat++
		}
	}
	s := &m.u.stocks[si]
	p := pctOf(q.price, q.prev)
	if kind == market.Industry {
		add(int(s.ind), si, s, q, p)
		return
	}
	for _, j := range s.concepts {
		add(int(j), si, s, q, p)
	}
}

// boards are the kind's boards from the sums of one instant of day ds.
func (m *Market) boards(sums *boardSums, kind market.SectorKind, ds *dayState) []market.Sector {
	bs := m.boardsOf(kind)
	off := m.boardOffset(kind)
	pct := make([]float64, m.nBoards())
	m.boardPct(ds.prev, sums.px, pct)
	acc := sums.acc
	out := make([]market.Sector, 0, len(bs))
	for b := range bs {
		a := &acc[b]
		if a.n == 0 {
			continue
		}
		lead := &m.u.stocks[a.leader]
		sec := market.Sector{
			Code: bs[b].code, Name: bs[b].name,
			Price:    round2(ds.levelPrev[off+b] * (1 + pct[off+b]/100)),
			Pct:      round2(clampF(pct[off+b], a.minPct, a.maxPct)),
			Amount:   a.amt,
			Turnover: round2(a.vol / a.fs * 100),
			MainNet:  a.mf,
			Up:       a.up, Down: a.down, Flat: a.flat,
			LeaderCode: lead.code.Symbol, LeaderName: lead.nameOn(m.days[ds.idx]), LeaderPct: round2(a.leaderPct),
		}
		if a.amt > 0 {
			sec.MainNetRatio = round2(a.mf / a.amt * 100)
		}
		out = append(out, sec)
	}
	slices.SortFunc(out, func(a, b market.Sector) int { return cmp.Compare(a.Code, b.Code) })
	return out
}
