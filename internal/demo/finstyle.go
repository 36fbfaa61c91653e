package demo

// The business of each industry style, as A-share reports show it: the
// ranges a stock's valuation, margins and growth are drawn from, so that a
// liquor maker earns about half its revenue at 15-35 times earnings, a bank
// a third at 4-7 times, a trader a few percent, and revenue follows from
// profit and margin (P/S = P/E × net margin) instead of being drawn apart
// from it. Figures are rough ranges of the 2020s' reports (annual reports,
// percent), not any one company's.
type finStyle struct {
	pe     [2]float64 // price over earnings, when profitable
	net    [2]float64 // net margin, percent of revenue
	gross  [2]float64 // gross margin, percent; zero for the financials, which report none
	growth [2]float64 // a year's revenue growth, percent
	roe    [2]float64 // return on equity, percent: sets the price-to-book
	loss   float64    // share of loss-makers
}

// finStyles are the styles' ranges; a style missing here takes
// defaultFinStyle.
var finStyles = map[string]finStyle{
	"liquor":     {pe: [2]float64{14, 35}, net: [2]float64{18, 50}, gross: [2]float64{55, 92}, growth: [2]float64{-5, 20}, roe: [2]float64{12, 32}, loss: 0.03},
	"bank":       {pe: [2]float64{4, 7}, net: [2]float64{25, 45}, growth: [2]float64{-6, 8}, roe: [2]float64{7, 13}},
	"insure":     {pe: [2]float64{6, 15}, net: [2]float64{4, 15}, growth: [2]float64{-5, 12}, roe: [2]float64{7, 15}, loss: 0.02},
	"broker":     {pe: [2]float64{15, 40}, net: [2]float64{15, 45}, growth: [2]float64{-20, 35}, roe: [2]float64{4, 10}, loss: 0.03},
	"fin":        {pe: [2]float64{15, 50}, net: [2]float64{8, 35}, growth: [2]float64{-20, 25}, roe: [2]float64{3, 10}, loss: 0.15},
	"power":      {pe: [2]float64{10, 25}, net: [2]float64{8, 30}, gross: [2]float64{15, 45}, growth: [2]float64{-5, 15}, roe: [2]float64{6, 14}, loss: 0.06},
	"coal":       {pe: [2]float64{6, 12}, net: [2]float64{8, 25}, gross: [2]float64{20, 45}, growth: [2]float64{-20, 15}, roe: [2]float64{8, 18}, loss: 0.05},
	"oil":        {pe: [2]float64{8, 16}, net: [2]float64{2, 10}, gross: [2]float64{10, 30}, growth: [2]float64{-15, 15}, roe: [2]float64{5, 12}, loss: 0.08},
	"gas":        {pe: [2]float64{10, 22}, net: [2]float64{3, 10}, gross: [2]float64{10, 25}, growth: [2]float64{-5, 15}, roe: [2]float64{6, 12}, loss: 0.06},
	"steel":      {pe: [2]float64{10, 40}, net: [2]float64{0.5, 5}, gross: [2]float64{5, 15}, growth: [2]float64{-15, 10}, roe: [2]float64{2, 8}, loss: 0.2},
	"metal":      {pe: [2]float64{10, 35}, net: [2]float64{2, 10}, gross: [2]float64{5, 20}, growth: [2]float64{-15, 25}, roe: [2]float64{5, 14}, loss: 0.12},
	"lithium":    {pe: [2]float64{15, 60}, net: [2]float64{3, 25}, gross: [2]float64{10, 40}, growth: [2]float64{-40, 60}, roe: [2]float64{3, 15}, loss: 0.25},
	"gold":       {pe: [2]float64{12, 30}, net: [2]float64{4, 12}, gross: [2]float64{8, 25}, growth: [2]float64{-5, 25}, roe: [2]float64{8, 20}, loss: 0.05},
	"transport":  {pe: [2]float64{8, 25}, net: [2]float64{4, 20}, gross: [2]float64{10, 30}, growth: [2]float64{-10, 15}, roe: [2]float64{5, 12}, loss: 0.08},
	"airport":    {pe: [2]float64{20, 50}, net: [2]float64{5, 25}, gross: [2]float64{15, 40}, growth: [2]float64{-10, 20}, roe: [2]float64{3, 10}, loss: 0.15},
	"battery":    {pe: [2]float64{15, 45}, net: [2]float64{3, 15}, gross: [2]float64{15, 30}, growth: [2]float64{-10, 40}, roe: [2]float64{6, 20}, loss: 0.15},
	"auto":       {pe: [2]float64{12, 40}, net: [2]float64{2, 8}, gross: [2]float64{10, 25}, growth: [2]float64{-10, 30}, roe: [2]float64{5, 15}, loss: 0.14},
	"solar":      {pe: [2]float64{10, 40}, net: [2]float64{3, 15}, gross: [2]float64{10, 30}, growth: [2]float64{-30, 40}, roe: [2]float64{3, 15}, loss: 0.3},
	"wind":       {pe: [2]float64{15, 40}, net: [2]float64{4, 12}, gross: [2]float64{15, 35}, growth: [2]float64{-5, 25}, roe: [2]float64{6, 14}, loss: 0.1},
	"elec":       {pe: [2]float64{15, 40}, net: [2]float64{4, 12}, gross: [2]float64{15, 35}, growth: [2]float64{-5, 25}, roe: [2]float64{6, 14}, loss: 0.1},
	"appliance":  {pe: [2]float64{10, 22}, net: [2]float64{5, 12}, gross: [2]float64{18, 35}, growth: [2]float64{-5, 15}, roe: [2]float64{10, 25}, loss: 0.08},
	"tech":       {pe: [2]float64{30, 110}, net: [2]float64{4, 20}, gross: [2]float64{20, 50}, growth: [2]float64{-15, 40}, roe: [2]float64{3, 12}, loss: 0.2},
	"display":    {pe: [2]float64{20, 70}, net: [2]float64{1, 8}, gross: [2]float64{10, 25}, growth: [2]float64{-15, 25}, roe: [2]float64{2, 10}, loss: 0.2},
	"telecom":    {pe: [2]float64{15, 55}, net: [2]float64{3, 12}, gross: [2]float64{15, 35}, growth: [2]float64{-5, 25}, roe: [2]float64{4, 12}, loss: 0.12},
	"soft":       {pe: [2]float64{35, 120}, net: [2]float64{4, 20}, gross: [2]float64{40, 75}, growth: [2]float64{-10, 30}, roe: [2]float64{2, 10}, loss: 0.28},
	"internet":   {pe: [2]float64{25, 90}, net: [2]float64{4, 20}, gross: [2]float64{30, 70}, growth: [2]float64{-15, 35}, roe: [2]float64{3, 12}, loss: 0.25},
	"med":        {pe: [2]float64{20, 50}, net: [2]float64{10, 30}, gross: [2]float64{45, 75}, growth: [2]float64{-10, 25}, roe: [2]float64{6, 18}, loss: 0.1},
	"pharma":     {pe: [2]float64{20, 60}, net: [2]float64{6, 22}, gross: [2]float64{40, 80}, growth: [2]float64{-10, 20}, roe: [2]float64{5, 14}, loss: 0.14},
	"chem":       {pe: [2]float64{12, 40}, net: [2]float64{3, 14}, gross: [2]float64{12, 30}, growth: [2]float64{-15, 20}, roe: [2]float64{4, 14}, loss: 0.12},
	"agchem":     {pe: [2]float64{12, 40}, net: [2]float64{3, 14}, gross: [2]float64{12, 30}, growth: [2]float64{-15, 20}, roe: [2]float64{4, 14}, loss: 0.12},
	"material":   {pe: [2]float64{12, 35}, net: [2]float64{4, 15}, gross: [2]float64{15, 35}, growth: [2]float64{-15, 15}, roe: [2]float64{4, 12}, loss: 0.14},
	"build":      {pe: [2]float64{5, 18}, net: [2]float64{1.5, 5}, gross: [2]float64{8, 15}, growth: [2]float64{-10, 10}, roe: [2]float64{4, 10}, loss: 0.12},
	"estate":     {pe: [2]float64{8, 30}, net: [2]float64{1, 10}, gross: [2]float64{12, 30}, growth: [2]float64{-30, 10}, roe: [2]float64{1, 8}, loss: 0.35},
	"machine":    {pe: [2]float64{18, 50}, net: [2]float64{4, 14}, gross: [2]float64{20, 35}, growth: [2]float64{-10, 25}, roe: [2]float64{5, 14}, loss: 0.12},
	"instrument": {pe: [2]float64{25, 60}, net: [2]float64{8, 20}, gross: [2]float64{35, 60}, growth: [2]float64{-5, 25}, roe: [2]float64{5, 14}, loss: 0.1},
	"aero":       {pe: [2]float64{40, 120}, net: [2]float64{4, 12}, gross: [2]float64{20, 35}, growth: [2]float64{-5, 25}, roe: [2]float64{3, 9}, loss: 0.1},
	"ship":       {pe: [2]float64{20, 60}, net: [2]float64{2, 8}, gross: [2]float64{8, 18}, growth: [2]float64{-5, 25}, roe: [2]float64{3, 10}, loss: 0.15},
	"food":       {pe: [2]float64{15, 40}, net: [2]float64{5, 18}, gross: [2]float64{25, 45}, growth: [2]float64{-5, 15}, roe: [2]float64{8, 20}, loss: 0.08},
	"tourism":    {pe: [2]float64{20, 60}, net: [2]float64{5, 20}, gross: [2]float64{25, 50}, growth: [2]float64{-20, 40}, roe: [2]float64{3, 12}, loss: 0.18},
	"textile":    {pe: [2]float64{15, 40}, net: [2]float64{3, 10}, gross: [2]float64{20, 40}, growth: [2]float64{-10, 15}, roe: [2]float64{4, 12}, loss: 0.14},
	"jewel":      {pe: [2]float64{10, 30}, net: [2]float64{2, 8}, gross: [2]float64{8, 25}, growth: [2]float64{-5, 25}, roe: [2]float64{8, 18}, loss: 0.1},
	"retail":     {pe: [2]float64{15, 45}, net: [2]float64{1, 6}, gross: [2]float64{15, 30}, growth: [2]float64{-10, 10}, roe: [2]float64{2, 8}, loss: 0.2},
	"trade":      {pe: [2]float64{10, 30}, net: [2]float64{0.3, 3}, gross: [2]float64{2, 8}, growth: [2]float64{-15, 20}, roe: [2]float64{3, 10}, loss: 0.15},
	"beauty":     {pe: [2]float64{25, 60}, net: [2]float64{6, 20}, gross: [2]float64{50, 75}, growth: [2]float64{-10, 30}, roe: [2]float64{6, 18}, loss: 0.1},
	"media":      {pe: [2]float64{20, 60}, net: [2]float64{4, 15}, gross: [2]float64{20, 45}, growth: [2]float64{-15, 20}, roe: [2]float64{3, 10}, loss: 0.2},
	"game":       {pe: [2]float64{18, 50}, net: [2]float64{8, 25}, gross: [2]float64{55, 85}, growth: [2]float64{-20, 40}, roe: [2]float64{6, 18}, loss: 0.15},
	"edu":        {pe: [2]float64{25, 80}, net: [2]float64{3, 15}, gross: [2]float64{35, 60}, growth: [2]float64{-20, 40}, roe: [2]float64{2, 10}, loss: 0.25},
	"farm":       {pe: [2]float64{10, 40}, net: [2]float64{1, 8}, gross: [2]float64{5, 20}, growth: [2]float64{-15, 20}, roe: [2]float64{3, 12}, loss: 0.2},
	"env":        {pe: [2]float64{15, 40}, net: [2]float64{4, 15}, gross: [2]float64{20, 40}, growth: [2]float64{-10, 15}, roe: [2]float64{3, 10}, loss: 0.15},
	"paper":      {pe: [2]float64{12, 35}, net: [2]float64{3, 12}, gross: [2]float64{15, 35}, growth: [2]float64{-10, 15}, roe: [2]float64{4, 12}, loss: 0.12},
	"light":      {pe: [2]float64{12, 35}, net: [2]float64{3, 12}, gross: [2]float64{15, 35}, growth: [2]float64{-10, 15}, roe: [2]float64{4, 12}, loss: 0.12},
	"general":    {pe: [2]float64{20, 60}, net: [2]float64{2, 10}, gross: [2]float64{10, 30}, growth: [2]float64{-20, 20}, roe: [2]float64{1, 8}, loss: 0.25},
	"service":    {pe: [2]float64{20, 50}, net: [2]float64{6, 18}, gross: [2]float64{25, 50}, growth: [2]float64{-10, 25}, roe: [2]float64{4, 12}, loss: 0.12},
}

var defaultFinStyle = finStyle{pe: [2]float64{12, 50}, net: [2]float64{3, 15}, gross: [2]float64{15, 40},
	growth: [2]float64{-10, 25}, roe: [2]float64{4, 14}, loss: 0.14}

func finStyleOf(style string) finStyle {
	if f, ok := finStyles[style]; ok {
		return f
	}
	return defaultFinStyle
}
