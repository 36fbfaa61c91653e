// Package demo is a deterministic synthetic A-share market with the
// methods of the real upstream clients (Sectors, Quotes, Klines, Trends,
// FundFlowDaily), so that every code path of the service runs offline.
// Everything it builds says Source "demo".
//
// Determinism. Output is a pure function of the seed, the scale, the
// calendar and the instant asked about: two markets with the same Config
// agree to the bit on any machine and in any host time zone (all market
// time is Asia/Shanghai). Randomness comes from PCG streams keyed by
// (seed, what, which, day), and the arithmetic avoids platform-dependent
// functions (see rng.go).
//
// Universe. Real-market scale by default: 5,300 stocks (34 well-known ones
// with real names and price levels, the rest generated in the real code
// blocks of SH 600-605, STAR 688, SZ 000-003, ChiNext 300/301 and Beijing
// 920 with a few 83/87), 90 EastMoney-style industry boards (every stock
// in one) and 450 concept boards (0-8 per stock, 10 to ~360 members, drawn
// mostly from each concept's home industries). Industry and concept names
// differ except 贵金属 and 船舶制造, deliberately (CollidingNames).
//
// Prices (path.go). Daily closes follow a factor random walk from a fixed
// anchor day (2026-12-31) forward and backward, with daily limits of ±10 %
// (main boards), ±5 % (ST), ±20 % (STAR, ChiNext) and ±30 % (Beijing),
// prices in cents. Intraday (intraday.go), each day is a one-minute path
// from the open to that close with a U-shaped volume profile; the daily bar
// is the aggregate of its minutes, a quote is the path up to the instant,
// and a board snapshot is the aggregate of its members' quotes.
//
// Lives (life.go). A few generated stocks are renamed, put under a risk
// warning for a spell (named ST or *ST, ±5 % on the main boards those
// days), suspended for a few sessions (no bar, the close carried) or
// delisted (a *ST spell, then no bar and out of every list); NamesOn,
// SuspendedOn and DelistingDays state that past for the security master.
//
// Indices (indices.go). 上证指数 000001.SH, 深证成指 399001.SZ, 创业板指
// 399006.SZ and 沪深300 000300.SH are float-cap weighted over their
// members' daily bars, so Klines and Trends serve them like stocks.
//
// ETFs (etf.go, etfbars.go). Four funds track the indices (IOPV = level
// times a ratio, the price within a premium of it, in the 0.001 tick) and
// one money fund accrues; each session is 240 minutes from which the
// daily bar, the quote and the ETF list's row are folded, so Quote,
// Klines, Trends and ETFs agree, and NamesOn lists them in each day's
// universe.
//
// Corporate actions (actions.go). Yearly cash dividends on most profitable
// stocks, bonus shares on a few dearer ones, one rights issue and the
// listing records of stocks listed inside the history, as the terminal's
// gbbq holds them (Actions), for the demo terminal's folder. The price
// walk goes ex on them as the market does (exrights.go): on an ex-date the
// day's previous close is the reference price, the close before mapped by
// the event, so raw bars drop by the dividend and 前复权 runs on across it.
//
// Reports (finance.go, finstyle.go). P/E, net and gross margins, growth
// and ROE are drawn by industry style, revenue is profit over margin, and
// the well-known stocks report at their real P/E and margin.
//
// Calendar. Trading days come from Config.Calendar, copied at New. Past
// its published years every weekday trades (market.Calendar's rule), so
// 2027-01-01 is a demo trading day until a calendar with 2027 is given.
//
// Cost at the default scale, measured on 2 shared cores (bench_test.go):
// New 20 ms (on a busier day of that machine 29 ms, and 37 ms with the
// price events placed on the timeline, issue 32; docs/demo.md); New plus
// the first snapshot 55-60 ms in late 2026, about
// 95 ms a year after the anchor; each new minute of a snapshot 28 ms (both
// kinds share it), a repeated one 0.1-0.3 ms; the first snapshot of a day
// far from the anchor walks there once (0.45 s for 2016); ten years of one
// stock's daily bars 33 ms the first time, 0.1 ms from the cache.
package demo
