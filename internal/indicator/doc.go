// Package indicator is the service's indicator maths: moving averages, MACD
// with buy/sell/add marks, micro momentum, trend strength and the chip
// distribution. It is pure: no I/O, no clocks, no shared state; every
// function reads its inputs and writes only its outputs (slices passed in
// as dst are reused when large enough). Series are in time order, oldest
// first. NaN marks an undefined value (warm-up, missing input, a division
// by zero), which the API renders as null; no output is ever ±Inf. Invalid
// parameters give a *market.Error of KindInvalid (HTTP 400), never a panic.
//
// # Moving averages
//
//	SMA(n)[t] = (X[t-n+1] + ... + X[t]) / n        NaN for t < n-1 or a NaN in the window
//	EMA(n)[t] = (2*X[t] + (n-1)*EMA(n)[t-1]) / (n+1),  EMA(n)[first] = X[first]
//
// SMA is TongDaXin's MA (not its three-argument SMA). EMA follows the
// terminal (SeedFirst): it is defined from the first known value, which it
// starts at, and is evaluated as EMA[t-1] + 2/(n+1)*(X[t]-EMA[t-1]), the
// same formula rearranged so that a constant input stays exactly constant
// (and MACD exactly 0 on a flat price). ta-lib's convention (SeedSMA)
// starts instead with the mean of the first n values and is NaN before
// them; the two differ by the seed difference times ((n-1)/(n+1))^k after k
// bars. A NaN or ±Inf input yields NaN at its bar and leaves an EMA
// unchanged; it blanks the n SMA windows that hold it. Periods are 1..250.
//
// The terminal averages over the stock's whole history, so to reproduce its
// numbers a caller loads Spec.Lookback extra bars before the first row it
// returns: n-1 for an SMA, and for an EMA the bars after which the seed's
// weight ((n-1)/(n+1))^k is under 0.1% (EMA12: 42, EMA26: 90; macd: 121).
//
// # Indicator list (kline `indicators` parameter)
//
// Comma-separated, case-insensitive names, blanks around names ignored:
// maN (SMA of close, column "maN"), emaN (EMA of close, "emaN"), vmaN (SMA
// of volume in shares, "vmaN") with N in 1..250 written without sign or
// leading zeros, and macd (columns "macd_dif", "macd_dea", "macd_hist").
// Repeats count once, in the place of their first occurrence; at most 16
// distinct names and 512 bytes. An empty list means no indicators. Any other
// token, an empty token ("ma5,,ma10") or an out-of-range period is a 400
// naming the token.
//
// # MACD
//
//	DIF = EMA(close, 12) - EMA(close, 26)
//	DEA = EMA(DIF, 9)
//	MACD histogram (macd_hist) = (DIF - DEA) * 2
//
// exactly as the terminal computes and draws it (SeedFirst: all three are 0
// at the first bar). MACD with SeedSMA reproduces ta-lib's TA_MACD instead:
// both price EMAs are seeded at the bar where the slow one first has 26
// values (the fast one with the mean of the 12 closes ending there), DEA
// with the mean of its first 9 DIF values, and all lines are NaN before DEA
// starts (bar 33); ta-lib's outMACDHist is DIF-DEA, half of ours.
//
// # macd_bs: volume trend, heat and marks
//
// Defaults: MACD(12,26,9) in the terminal convention, VolFast 5, VolSlow 10,
// HeatPeriod 20, HeatThreshold 1.2. Volume is in shares.
//
//	VolTrend[t] = SMA(volume, 5)[t] / SMA(volume, 10)[t]   volume rising when > 1
//	Heat[t]     = volume[t] / SMA(volume, 20)[t]          hot when >= 1.2
//
// Both are NaN during their warm-up and when the divisor is 0 (no trade).
// Marks come from a two-state machine (flat, long) that starts flat. A bar
// t can be marked only from Warmup = max(slow+signal-2, VolSlow-1,
// HeatPeriod-1, 2) = 33 on; earlier bars are unmarked and leave the state
// flat. With H = macd_hist:
//
//   - B (buy), when flat: H[t-1] <= 0 and H[t] > 0 (DIF crosses above DEA)
//     and VolTrend[t] > 1 and Heat[t] >= threshold. The state becomes long.
//     A cross without both volume conditions is not marked and is not
//     revisited on later bars.
//   - S (sell), when long: H[t] < 0 (DIF below DEA; since long starts
//     with H > 0 this is the bar of the cross down). The state becomes flat.
//     No volume condition: exits are not delayed for lack of volume.
//   - A (add), when long and not S: H[t] > 0, H[t-1] < H[t-2] (the
//     histogram was shrinking: a pullback) and H[t] > H[t-1] (it turns up
//     again) and Heat[t] >= threshold. This marks the first bar of each
//     renewed rise after a pullback, at most once per trough.
//   - Otherwise no mark. A NaN in any input a rule needs makes that rule
//     false; S and A are only tested when long, B only when flat, so a bar
//     carries at most one mark.
//
// Marks depend on the whole series through the state, so callers should
// start from a fixed lookback (for instance 250 bars before the first row)
// to give the same marks for the same bars on every request.
//
// # Micro momentum
//
// From the latest 6 completed bars b0..b5 (b5 the newest) of 1m, 5m or daily
// bars, with V volume in shares and C close:
//
//	micro_vol_ratio         = V5 / mean(V0..V4)
//	vol_acc                 = (V3+V4+V5) / (V0+V1+V2) - 1
//	time_adjusted_vol_ratio = A5 / mean(A0..A4),  Ai = Vi / w(bi)
//	price_speed_ratio       = (C5 - C4) / max(mean(|C1-C0|, |C2-C1|, |C3-C2|, |C4-C3|), 0.001)
//
// micro_vol_ratio is the newest bar's volume in multiples of the five
// before it; vol_acc is the growth of the newest three bars' volume over
// the three before (0.5 = +50%, -1 = volume dried up); price_speed_ratio is
// the newest move in multiples of the mean absolute move of the four
// before, signed (positive = up), the reference floored at 0.001 yuan, the
// smallest A-share tick, so that a move after a motionless spell is large
// but finite. A ratio whose divisor is 0 (no volume) is NaN.
//
// Time adjustment removes the intraday U-shape of volume, so that a busy
// 09:31 bar is not mistaken for a surge nor a quiet 11:29 bar for a
// collapse. w(b) is the mean weight, over the minutes the bar covers (one
// for 1m, five for 5m), of a volume profile giving each session minute's
// typical volume relative to the average minute. Session minute m runs from
// 1 (the bar closing at 09:31; a bar stamped 09:30, the opening auction,
// counts as 1) to 120 (11:30) and 121 (13:01) to 240 (15:00); a bar outside
// the session has no weight and makes time_adjusted_vol_ratio NaN. The
// default profile is
//
//	w(m) = raw(m) / mean(raw(1..240)),
//	raw(m) = 1 + 3*exp(-(m-1)/10) + 0.5*exp(-(m-121)/5)*[m >= 121] + exp(-(240-m)/10)
//
// (about 21% of the day's volume in the first half hour, 14% in the last);
// ProfileFromBars measures one from a stock's own minute bars instead (mean
// volume per minute, unseen minutes from the default, floored at 0.05, then
// divided by the mean). Daily bars all span the same 240 minutes, so for
// freq D time_adjusted_vol_ratio equals micro_vol_ratio. Fewer than 6 bars
// is ErrInsufficientData; bars out of time order, or another freq, are
// KindInvalid.
//
// # Trend strength
//
//	trend_strength = 100 * sign(Sxy) * R²,  R² = Sxy² / (Sxx * Syy)
//
// over the last n closes (default 20) against x = 0..n-1, with Sxy, Sxx, Syy
// the centred sums of products. Range -100..100: +100 a perfectly straight
// rise, -100 a straight fall, near 0 no trend. It is the share of the
// closes' variance explained by a straight line (trend versus noise), not
// the size of the move, and is unchanged by shifting or scaling prices. A
// window of equal closes is 0; a window with a NaN, and the first n-1 bars,
// are NaN.
//
// # Chip distribution
//
// Over the latest Window daily bars (default 120), with r = turnover rate /
// 100 clamped to [0, 1]: each day the chips held decay by (1-r) and chips of
// mass r, bought that day, are added spread over [Low, High] in a
// triangular density whose peak is the day's average price Amount/Volume
// (when Volume and Amount are positive; else (High+Low+Close)/3), clamped
// into [Low, High]. A day with NaN or negative turnover, or without a valid
// price range (0 < Low <= High <= 1e6), is skipped: it neither adds nor
// decays chips. Chips older than the window are not modelled, so the
// result is normalised to total 1; equivalently day i ends with weight
//
//	r_i * (1-r_{i+1}) * ... * (1-r_last) / sum over days of the same.
//
// The prices live on a grid of buckets one tick wide (0.01 yuan by default)
// from the lowest Low to the highest High of the days that carry chips,
// widened to w = ceil(ticks spanned / MaxBuckets) ticks per bucket when one
// tick would need more than MaxBuckets (2000) buckets. Bucket k starts at
// tick p_k = round(lowest Low/tick) + k*w, holds prices in
// [p_k-0.5, p_k+w-0.5) ticks, and is centred on p_k+(w-1)/2 ticks. Each
// bucket receives the exact triangular probability of its price interval,
// and chips within a bucket are taken as spread evenly over it.
// From the bucket shares s_k, centres c_k and edges [e_k, e_k+1):
//
//	avg_cost      = sum s_k * c_k
//	profit_ratio  = sum s_k * clamp((close - e_k) / (e_k+1 - e_k), 0, 1)   (chips below the last close)
//	P(q)          = the price where the cumulative share reaches q, interpolated in its bucket
//	              and clamped to [lowest Low, highest High]
//	cost_70       = [P(0.15), P(0.85)],  concentration_70 = (high-low)/(high+low)
//	cost_90       = [P(0.05), P(0.95)],  concentration_90 likewise
//	peak_price    = centre of the bucket with the largest share (the lowest such on ties)
//
// No usable day in the window is ErrInsufficientData.
package indicator
