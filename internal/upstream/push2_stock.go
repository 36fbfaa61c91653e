package upstream

import (
	"context"
	"encoding/json"
	"math"
	"net/url"

	"mdqs/internal/market"
)

const stockGetPath = "/api/qt/stock/get"

// stockGetFields is push2 stock/get's own code space (not clist's): f43
// last, f44 high, f45 low, f46 open, f47 volume (lots), f48 amount, f50
// volume ratio, f51/f52 limit up/down, f57 code, f58 name, f60 previous
// close, f86 update time, f168 turnover, f169 change, f170 pct, and the
// five-level book: bids f19/f20 (best) down to f11/f12, asks f39/f40
// (best) down to f31/f32, price then volume in lots. The book and limit
// codes are those akshare's stock_bid_ask_em reads; the others are in
// eastmoney.md 1.4 and the recorded 000725 reply.
const stockGetFields = "f11,f12,f13,f14,f15,f16,f17,f18,f19,f20,f31,f32,f33,f34,f35,f36,f37,f38,f39,f40," +
	"f43,f44,f45,f46,f47,f48,f50,f51,f52,f57,f58,f60,f86,f168,f169,f170"

// bookFields are the (price, volume) codes of the bid and ask levels, best
// first.
var (
	bidFields = [5][2]string{{"f19", "f20"}, {"f17", "f18"}, {"f15", "f16"}, {"f13", "f14"}, {"f11", "f12"}}
	askFields = [5][2]string{{"f39", "f40"}, {"f37", "f38"}, {"f35", "f36"}, {"f33", "f34"}, {"f31", "f32"}}
)

// Quote is one security's quote from push2 api/qt/stock/get: any code the
// clist snapshot leaves out (indices, funds) has one. It asks fltt=2, so
// prices are decimals whatever the security's tick (a fund's 0.001); the
// recorded reply without fltt shows the scaled integers this avoids.
//
// Required: f57 equal to the code asked and f58 name; f43 and f60 present
// ("-" gives NaN, as for a suspended stock). data:null is KindEmpty: push2
// knows no such security. Limit prices are the source's own (0 when "-",
// as for an index); the book holds the levels that have a price.
func (c *Push2) Quote(ctx context.Context, code market.Code) (q market.Quote, err error) {
	sid, err := secid(code)
	if err != nil {
		return q, err
	}
	query := url.Values{
		"secid":  {sid},
		"ut":     {utQuote},
		"fltt":   {"2"},
		"invt":   {"2"},
		"fields": {stockGetFields},
	}
	defer c.f.observe(c.f.clock.Now(), &err)
	now := c.f.clock.Now()
	chk := &check{}
	err = c.f.get(ctx, request{path: stockGetPath, query: query, referer: quotePage(code)}, func(body []byte) error {
		data, err := openEnvelope(body)
		if err != nil {
			return err
		}
		if data == nil {
			return &Error{Kind: KindEmpty, Detail: "data is null (no such security)"}
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(data, &m) != nil || m == nil {
			return schemaErr("data", "not an object")
		}
		r := row{m: m, where: "data", c: chk}
		if sym := r.reqStr("f57"); chk.err == nil && sym != code.Symbol {
			chk.fail("f57", "answers %q for %s", clip(sym, 20), code.Symbol)
		}
		q = market.Quote{
			Code:        code,
			Name:        r.reqStr("f58"),
			Price:       r.reqNum("f43"),
			PrevClose:   r.reqNum("f60"),
			High:        r.optNum("f44"),
			Low:         r.optNum("f45"),
			Open:        r.optNum("f46"),
			Volume:      lotsToShares(r.optNum("f47")),
			Amount:      r.optNum("f48"),
			VolumeRatio: r.optNum("f50"),
			Turnover:    r.optNum("f168"),
			Change:      r.optNum("f169"),
			Pct:         r.optNum("f170"),
			LimitUp:     zeroIfNaN(r.optNum("f51")),
			LimitDown:   zeroIfNaN(r.optNum("f52")),
			Bids:        levels(r, bidFields),
			Asks:        levels(r, askFields),
			// Not in this reply: clist's ratios and caps stay unknown.
			Amplitude: math.NaN(), PE: math.NaN(), PB: math.NaN(), MarketCap: math.NaN(), FloatCap: math.NaN(),
			MainNet: math.NaN(), MainNetRatio: math.NaN(), Speed: math.NaN(),
			At: now,
		}
		if t, ok := unixSeconds(r.optNum("f86")); ok {
			q.At = t
		}
		return chk.errOrNil()
	})
	if err != nil {
		return market.Quote{}, err
	}
	c.f.noteDrift(chk)
	return q, nil
}

// levels reads a side of the book, stopping at the first level without a
// price (an index has none; a thin book fewer than five).
func levels(r row, fields [5][2]string) []market.Level {
	var out []market.Level
	for _, f := range fields {
		p, st := numOf(r.m[f[0]])
		if st != ok || !(p > 0) {
			break
		}
		out = append(out, market.Level{Price: p, Volume: max(0, lotsToShares(r.optNum(f[1])))})
	}
	return out
}

func zeroIfNaN(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return v
}

// errOrNil keeps a nil *Error from becoming a non-nil error interface.
func (c *check) errOrNil() error {
	if c.err == nil {
		return nil
	}
	return c.err
}
