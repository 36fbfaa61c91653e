package jobs

// The names of the start-up jobs whose data answers wait for: main.go
// registers them under these names, and the API's routes name the ones
// that feed each endpoint.
const (
	EndOfDay            = "end-of-day"
	KlineEndOfDay       = "kline-end-of-day"
	DemoTerminal        = "demo-terminal"
	DemoTerminalImport  = "demo-terminal-import"
	TDXRefresh          = "tdx-refresh"
	HotRank             = "hot-rank"
	HotRankClose        = "hot-rank-close"
	RecordSecurities    = "record-securities"
	DelistedLists       = "delisted-lists"
	UpdateNews          = "update-news"
	LHB                 = "lhb"
	PublishedLimitPools = "published-limit-pools"
	FinancialReports    = "financial-reports"
	ScreenFrame         = "screen-frame"
)
