package market

import "time"

// ETF categories: what each EastMoney ETF board holds. The meanings are
// inferred (one client's comments, eastmoney-part2.md section c), not
// published by EastMoney; docs/etfs.md marks them so.
const (
	ETFAShare      = "a_share"      // b:MK0021, A-share equity ETFs
	ETFMoney       = "money"        // b:MK0022, money-market (currency) ETFs
	ETFCrossBorder = "cross_border" // b:MK0023, cross-border (QDII) ETFs
	ETFGold        = "gold"         // b:MK0024, gold ETFs
	ETFCommodity   = "commodity"    // b:MK0827, commodity ETFs
	ETFOther       = "other"        // a configured board mdqs has no meaning for
)

// ETFCategories lists the categories in board order.
func ETFCategories() []string {
	return []string{ETFAShare, ETFMoney, ETFCrossBorder, ETFGold, ETFCommodity, ETFOther}
}

// ETF is one exchange-traded fund's row of the ETF list. Money is in
// yuan, percentages are percent numbers; a figure the source does not
// give is NaN (Volume -1, DataDate 0), never 0.
type ETF struct {
	Code     Code
	Name     string
	Category string // one of ETFCategories
	Board    string // the source's board the row came from (MK0021), "" for the demo
	// Tracks is the index the fund tracks where the source says so (the
	// demo); zero when unknown.
	Tracks Code

	Price, Pct, Change float64
	Open, High, Low    float64
	PrevClose          float64
	Volume             int64   // shares; -1 unknown
	Amount             float64 // yuan
	Turnover           float64 // turnover rate, percent
	MarketValue        float64 // 总市值, yuan
	FloatValue         float64 // 流通市值, yuan
	Shares             float64 // fund shares outstanding (最新份额)
	IOPV               float64 // the indicative NAV per share, yuan
	DiscountRate       float64 // the source's own 折价率, percent, as sent
	DataDate           Day     // the day the source says the row is of
	At                 time.Time
}
