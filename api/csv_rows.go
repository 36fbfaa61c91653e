package api

// csvRows says where an endpoint's rows are in its JSON answer, for the
// CSV form of it (csv.go). It is declared once per endpoint here, beside
// the others, rather than at each handler: the CSV is made from the JSON
// the handler wrote, so a handler needs no change to offer it, and
// TestEveryListOffersCSV walks openapi.json so that an endpoint answering
// a list cannot be added without an entry here (or a reason in
// csvRefused).
type csvRows struct {
	// at is the dotted path of the object holding the rows: "data" for
	// the envelope's data, "" for the answer itself.
	at string
	// rows are the members of that object that are the rows. More than
	// one (the ranking's six lists) puts a first column "list" naming
	// each row's.
	rows []string
	// meta is the dotted path of the object whose scalars become the
	// answer's X-Mdqs-* headers; "" is at's object.
	meta string
}

// csvOf is the rows of the endpoint at path, and whether it offers CSV.
func csvOf(path string) (csvRows, bool) {
	data := func(rows ...string) (csvRows, bool) { return csvRows{at: "data", rows: rows}, true }
	switch path {
	case "/v1/api/boards/top50":
		// The ranking itself, not in the envelope: all six lists, as the
		// JSON holds them.
		return csvRows{rows: []string{"industry", "industry_out", "concept", "concept_out", "sectors", "sectors_out"}}, true
	case "/v1/api/strategy/auction/today":
		// The sectors; leaders (stocks, another shape) stay JSON only.
		return data("sectors", "sectors_out")
	case "/v1/api/market/stats/range":
		return data("daily_stats")
	case "/v1/api/boards/industry", "/v1/api/boards/concept", "/v1/api/market/movements":
		// These answers keep their list as data and say the rest in meta.
		return csvRows{rows: []string{"data"}, meta: "meta"}, true
	case "/v1/api/market/movements/events", "/v1/api/corporate_actions", "/v1/api/monitor/chip_metrics",
		"/v1/api/securities", "/v1/api/meta/stocks", "/v1/api/blocks", "/v1/api/hot_rank", "/v1/api/hot_rank_list",
		"/v1/api/news/list", "/v1/api/financial-reports", "/v1/api/screener/queue/result", "/v1/api/alerts",
		"/v1/api/alerts/events", "/v1/api/bars/daily", "/v1/api/bars/minute", "/v1/api/lhb", "/v1/api/lhb/seats",
		"/v1/api/limit_pool", "/v1/api/alerts/deliveries":
		return data("items")
	case "/v1/api/kline", "/v1/api/kline/with_realtime", "/v1/api/kline/adjusted", "/v1/api/intraday/kline", "/v1/api/minutes":
		return data("rows")
	case "/v1/api/indicators/macd_bs":
		return data("points")
	case "/v1/api/indicators/micro_momentum":
		return data("bars")
	case "/v1/api/archive/status":
		return data("days")
	case "/v1/api/block/members", "/v1/api/index/members":
		return data("members")
	case "/v1/api/hot_rank/detail":
		return data("history")
	case "/v1/api/screener/fields":
		return data("fields")
	case "/v1/api/quotes":
		return data("quotes")
	case "/v1/api/index/changes":
		return data("changes")
	case "/v1/api/limit_ladder":
		return data("levels")
	case "/v1/api/etfs":
		return data("etfs")
	case "/v1/api/calendar":
		// The span's trading days, one a row (count counts them); the
		// holidays (closed) stay JSON only.
		return data("trading_days")
	}
	return csvRows{}, false
}
