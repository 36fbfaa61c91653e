// Package adjust computes adjusted prices (复权) the way the TongDaXin
// terminal does: 前复权 (QFQ) and 后复权 (HFQ) from the ex-rights/ex-dividend
// events of its gbbq file (tdx.GBBQ, category 1). It is pure arithmetic on
// events and bars: no files, no network. Facts and sources are in
// shared/reference/adjust.md, section numbers below refer to it.
//
// # Formula (§4.1)
//
// An event with f1 cash per 10 shares, f2 rights price per share, f3 bonus
// and transferred shares per 10 and f4 rights shares per 10 turns a
// cum-event price p into the ex-reference price
//
//	p' = (10·p − f1 + f2·f4) / (10 + f3 + f4) = (p − c) / m,
//	m = (10 + f3 + f4)/10,  c = (f1 − f2·f4)/10.
//
// That map is affine, so any composition of events is too:
// adjusted = A·raw + B, where A and B depend only on the events, never on
// prices (Affine, Schedule). A Schedule is a step function of the day,
// changing on ex-dates; Schedule.At(d) is the map of a bar dated d, daily or
// minute alike.
//
// # Anchors (§4.2, §4.3)
//
// QFQ is anchored at the latest bar: pass its day as asOf to Factors. A bar
// dated d gets every event with d < ex-date ≤ asOf, oldest first; announced
// events after asOf, which gbbq already holds, are ignored. Every past
// price changes when a new event becomes effective, so a QFQ series is only
// valid for its asOf and its gbbq version; recompute rather than cache
// across either. Early prices of a long dividend history go negative
// (600519's 2006 bars are near −260 as of 2026), and that is what the
// terminal shows.
//
// HFQ is anchored at the listing day (tdx.ListingDay, else the first bar of
// a complete .day file): a bar dated d gets the inverse p ↦ m·p + c of every
// event with listing < ex-date ≤ d. Events on or before the listing day
// (000001 has one in 1990) are ignored. Only events are needed, not early
// bars, so a .day file that starts later still gets the full level.
//
// Events are applied by date, not by bar: ex-dates that fall in a
// suspension or on a holiday all apply to the bars before them.
//
// # Rounding (§4.4)
//
// Each event value counts as the decimal it was written as (Written): gbbq
// stores float32, so 1.45 per 10 is 1.45000005 in the file (the terminal's
// import reads it as 1.45 already: tdx.Decimal32), and taken as
// stored it would put 9.49 − 0.145 = 9.345 a hair below its midpoint and
// round it to 9.34. Only the output price is rounded, to 0.01, halves away
// from zero, and the rounding is exact: A and B are float64 and decide
// every price whose value lies outside a band of 1e-12 of its terms around
// a midpoint; inside it (a few prices per thousand) the schedule's maps in
// rationals decide (Schedule.Price, Apply). On the bundled .day files
// (112,664 prices, both modes) 1,453 sit exactly on a midpoint; the float
// map from stored values rounded 1,386 of them toward zero, and the float
// map from written decimals would still round 184 so. One of the
// terminal's recorded points is a midpoint: 000651's 2015-07-02 close,
// 58.49, is 5.765 as of 2026-06-01, and the terminal shows 5.77, so it
// rounds that tie up, away from zero, neither to even nor toward zero.
// Volume and amount are never adjusted.
//
// # Per-bar factor
//
// A single multiplicative factor cannot express this method once there is
// cash: the adjustment of a bar is the pair (A, B) of Schedule.At. A script
// that wants one number per bar must take both; raw × factor is only right
// for the ratio method below, or for stretches with bonus shares and no
// cash.
//
// # Worked example (000001 and 603777, testdata)
//
// 000001 closed at 9.49 on 2017-03-01. As of 2021-09-07 five cash
// dividends followed (1.58, 1.36, 1.45, 2.18, 1.80 per 10; no shares), each
// with m = 1, so QFQ = 9.49 − 0.158 − 0.136 − 0.145 − 0.218 − 0.18 = 8.653,
// shown as 8.65: EastMoney's fqt=1 value. 603777 listed on 2016-10-12 and
// then paid 3.5 per 10 (2017-06-21), 4 cash + 4 bonus shares per 10
// (2018-06-06), 1.5 (2019-07-16) and 1.0 (2020-07-15). Walking forward,
// B ← B + A·c then A ← A·m gives B = 0.35, then 0.75 and A = 1.4, then
// 0.96, then 1.1: HFQ = 1.4·raw + 1.1, so the 17.60 close of 2021-06-16 is
// 25.74, EastMoney's fqt=2 value.
//
// # Others
//
// EastMoney push2his fqt=1 gives the same numbers as QFQ here (39 bar rows
// of four stocks, to the cent) as long as its event data agree with gbbq;
// in 2021 it lacked a 600519 revision that the terminal has now (§1.3).
// Its fqt=2 matches HFQ for 603777 but not for 000001, whose EastMoney level
// (≈162.5·raw + 33 in 2017 against 242.47·raw + 47.71 from all events since
// 1991) has no known explanation (§5): do not use fqt=2 as the terminal's
// HFQ. akshare's stock_zh_a_hist proxies EastMoney, so the same holds.
//
// Sina, Wind, RiceQuant, Tushare, mootdx, tdx2db and rustdx adjust by ratio
// (等比, 涨跌幅复权; §6): each event's factor is its ex-reference price over
// the previous close, and prices are multiplied by the product. Ratio
// builds that schedule (B = 0) from events and the unadjusted closes; it is
// not the terminal's method and differs from it by cents to yuan (up to
// 0.38 on 002709's history, 121.68 against 102.30 for 600519 in rqalpha#359).
package adjust
