// Package api is the HTTP face of mdqs: routes, authentication middleware,
// parameter validation and the JSON envelope. Handlers are methods on Server;
// each returns an error that one function turns into the envelope.
package api

import (
	"log/slog"
	"mdqs/internal/archive"
	"mdqs/internal/crosssection"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/julienschmidt/httprouter"
	"github.com/prometheus/client_golang/prometheus"

	"mdqs/cache"
	"mdqs/db"
	"mdqs/internal/alert"
	"mdqs/internal/auth"
	"mdqs/internal/bridge"
	"mdqs/internal/corpaction"
	"mdqs/internal/etf"
	"mdqs/internal/indexmembers"
	"mdqs/internal/kline"
	"mdqs/internal/lhb"
	"mdqs/internal/limitpool"
	"mdqs/internal/market"
	"mdqs/internal/movement"
	"mdqs/internal/quote"
	"mdqs/internal/ranking"
	"mdqs/internal/screener"
	"mdqs/internal/secmaster"
	"mdqs/internal/stream"
	"mdqs/internal/upstream"
	"mdqs/jobs"
)

// Deps are the server's collaborators.
type Deps struct {
	Auth         *auth.Service
	Store        *db.Store
	Rankings     *ranking.Service
	Movements    *movement.Service
	Klines       *kline.Service
	Pager        *kline.Pager
	Actions      *corpaction.Service   // corporate actions and adjusted prices; nil: not served
	Securities   *secmaster.Service    // the point-in-time security master; nil: not served
	IndexMembers *indexmembers.Service // index membership history; nil: answers from Store
	CrossSection *crosssection.Service // the market's bars of a day or a minute; nil: not served
	LimitPools   *limitpool.Service    // the limit-up and limit-down pools and the ladder; nil: not served
	Archive      *archive.Service      // the minute archive; nil: not run
	Alerts       *alert.Service        // standing screens; nil: not served
	LHB          *lhb.Service          // the dragon-tiger list; nil: not served
	Bridge       *bridge.Service
	Screener     *screener.Queue
	Quotes       *quote.Service // nil: /v1/api/quotes answers 503
	ETFs         *etf.Service   // the ETF list; nil: /v1/api/etfs answers 503
	Calendar     *market.Calendar
	Jobs         *jobs.Runner // may be nil
	Log          *slog.Logger
	Clock        market.Clock
	MaxBodyBytes int64
	Version      string
	// CacheStats lists every cache's counters for /health/cache.
	CacheStats []func() cache.Stats
	// Sources reports each upstream's state for /health/sources.
	Sources func() []upstream.Status
	// SourceMode is the configured default source (sources.default);
	// "demo" is demo mode.
	SourceMode string
	// Info serves hot rank, news and financial reports.
	Info InfoDeps
	// Limits are the per-client and token-endpoint rate limits; zero
	// values turn them off.
	Limits Limits
	// Instance names this process among a deployment's instances.
	Instance InstanceDeps
	// Stream serves GET /v1/api/stream; New has the rankings and
	// movements publish to it. nil: streams answer 503.
	Stream *stream.Hub
	// UpstreamWait bounds how long a request waits on upstream fetches
	// (server.upstream_wait; see waits). 0: no bound of its own.
	UpstreamWait time.Duration
	// Hosts are the Host headers the server answers (server.allowed_hosts;
	// see HostCheck): a request naming another is refused before routing.
	// The zero value refuses nothing.
	Hosts HostCheck
	// MCP is /mcp, the MCP endpoint; the zero value: off.
	MCP MCPDeps
}

// Server holds the dependencies of every handler.
type Server struct {
	Deps
	log        *slog.Logger
	router     *httprouter.Router
	registered []string // "METHOD /path", for the contract test

	started      time.Time
	http         *httpMetrics
	registry     *prometheus.Registry // what GET /metrics serves
	routeStats   []*routeStats        // in registration order
	unmatched    *routeStats          // 404 and 405 answers, whatever the path
	clientLimits *buckets
	tokenLimits  *buckets
	badSecrets   *buckets // wrong secrets per client id
	badSecretsAt *buckets // wrong secrets per address, whatever the client id
	badTokens    *buckets // unknown or expired tokens per address

	streamMu    sync.Mutex
	lastRanking string // the day and updated_ms of the last ranking streamed

	gets map[string]handlerFunc // the GET handlers by path, for Page
}

func New(d Deps) *Server {
	if d.MaxBodyBytes <= 0 {
		d.MaxBodyBytes = 1 << 20
	}
	if d.Clock == nil {
		d.Clock = market.SystemClock{}
	}
	if d.IndexMembers == nil && d.Store != nil {
		d.IndexMembers = indexmembers.New(d.Store)
	}
	s := &Server{Deps: d, log: d.Log, started: time.Now(), http: newHTTPMetrics(),
		clientLimits: newBuckets("client", d.Limits.Shared, d.Limits.Client, d.Limits.Clients, d.Clock),
		tokenLimits:  newBuckets("addr", d.Limits.Shared, d.Limits.Token, nil, d.Clock),
		badSecrets:   newBuckets("secret-fail", nil, d.Limits.FailedSecret, nil, d.Clock),
		badSecretsAt: newBuckets("secret-fail-addr", nil, d.Limits.FailedSecret, nil, d.Clock),
		badTokens:    newBuckets("token-fail", nil, d.Limits.BadToken, nil, d.Clock)}
	s.unmatched = s.http.route("unmatched")
	s.registry = s.newRegistry()
	r := httprouter.New()
	// A JSON API answers a wrong path with 404, not with a redirect a
	// script would follow to a different resource.
	r.RedirectTrailingSlash = false
	r.RedirectFixedPath = false
	// OPTIONS on a route is answered by register's own handler (204 and
	// Allow), counted under the route; httprouter's would answer 200 and
	// go uncounted.
	r.HandleOPTIONS = false
	r.HandleMethodNotAllowed = true
	r.NotFound = s.instrument(s.unmatched, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		s.writeError(w, req, market.E(market.KindNotFound, "not found"))
	}))
	r.MethodNotAllowed = s.instrument(s.unmatched, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		s.writeError(w, req, market.Errorf(market.KindMethodNotAllowed, "%s is not allowed here; allowed: %s", req.Method, w.Header().Get("Allow")))
	}))
	r.PanicHandler = func(w http.ResponseWriter, req *http.Request, v any) {
		if v == http.ErrAbortHandler {
			panic(v) // net/http's signal to drop the connection quietly
		}
		s.logPanic(req, v)
		s.writeError(w, req, market.E(market.KindInternal, "internal error"))
	}
	s.router = r
	s.routes()
	if d.Stream != nil && d.Rankings != nil && d.Movements != nil {
		d.Rankings.OnBuild(s.publishRanking)
		d.Movements.OnEvents(s.publishMovements)
	}
	if d.Stream != nil && d.Alerts != nil {
		d.Alerts.OnFire(s.publishAlerts)
	}
	if d.Stream != nil && d.Quotes != nil {
		d.Quotes.OnRefresh(s.publishQuotes)
	}
	return s
}

// Handler is the server's root handler.
func (s *Server) Handler() http.Handler {
	var instance []string
	if s.Instance.Name != "" {
		instance = []string{s.Instance.Name}
	}
	// A head over the bounds, and a Host this server is not, are answered
	// before routing, as unmatched: no handler (the dashboard, the token
	// endpoint, /metrics, /debug/pprof, the stream) sees them.
	tooLarge := s.instrument(s.unmatched, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, r, checkHead(r))
	}))
	misdirected := s.instrument(s.unmatched, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, r, s.Hosts.check(r))
	}))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h["X-Content-Type-Options"] = nosniffValue
		h["Cache-Control"] = noStoreValue
		if instance != nil {
			h["X-Mdqs-Instance"] = instance
		}
		if s.Hosts.check(r) != nil {
			misdirected.ServeHTTP(w, r)
			return
		}
		if checkHead(r) != nil {
			tooLarge.ServeHTTP(w, r)
			return
		}
		s.router.ServeHTTP(w, r)
	})
}

// handlerFunc is every endpoint's shape: it writes a success itself and
// returns any failure for writeError.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// routes lists every endpoint: the table of contents of the API.
func (s *Server) routes() {
	s.public(http.MethodGet, "/v1/openapi.json", s.handleOpenAPI)
	s.public(http.MethodPost, "/v1/auth/token", s.handleToken)
	s.public(http.MethodPost, "/v1/api/token", s.handleToken)
	s.public(http.MethodGet, "/v1/api/health/cache", s.handleHealthCache)
	s.public(http.MethodGet, "/v1/api/health/db", s.handleHealthDB)
	s.public(http.MethodGet, "/v1/api/health/sources", s.handleHealthSources)
	s.public(http.MethodGet, "/v1/api/health/instance", s.handleHealthInstance)
	s.public(http.MethodGet, "/healthz", s.handleHealthz)
	s.public(http.MethodGet, "/readyz", s.handleReadyz)
	s.register(http.MethodGet, "/metrics", s.handleMetrics())
	s.pprofRoutes()

	s.protected(http.MethodGet, "/v1/api/whoami", "", s.handleWhoami)

	s.protected(http.MethodGet, "/v1/api/boards/top50", auth.ScopeMarket, s.waits(s.fedBy(s.handleTop50, jobs.EndOfDay)))
	s.protected(http.MethodGet, "/v1/api/strategy/auction/today", auth.ScopeMarket, s.waits(s.handleAuction))
	s.protected(http.MethodGet, "/v1/api/market/stats/range", auth.ScopeMarket, s.waits(s.fedBy(s.handleStatsRange, jobs.EndOfDay)))
	s.protected(http.MethodGet, "/v1/api/boards/industry", auth.ScopeMarket, s.waits(s.handleBoards(market.Industry)))
	s.protected(http.MethodGet, "/v1/api/boards/concept", auth.ScopeMarket, s.waits(s.handleBoards(market.Concept)))
	s.protected(http.MethodGet, "/v1/api/market/movements", auth.ScopeMarket, s.waits(s.handleMovements))
	s.protected(http.MethodGet, "/v1/api/market/movements/events", auth.ScopeMarket, s.waits(s.handleMovementEvents))
	s.protected(http.MethodGet, "/v1/api/quotes", auth.ScopeMarket, s.waits(s.handleQuotes))
	s.protected(http.MethodGet, "/v1/api/etfs", auth.ScopeMarket, s.waits(s.handleETFs))
	s.protected(http.MethodGet, "/v1/api/stream", auth.ScopeMarket, s.handleStream)

	s.protected(http.MethodGet, "/v1/api/kline", auth.ScopeKline, s.waits(s.handleKline))
	s.protected(http.MethodGet, "/v1/api/kline/with_realtime", auth.ScopeKline, s.waits(s.handleKlineWithRealtime))
	s.protected(http.MethodGet, "/v1/api/kline/adjusted", auth.ScopeKline, s.waits(s.handleKlineAdjusted))
	s.protected(http.MethodGet, "/v1/api/corporate_actions", auth.ScopeKline, s.waits(s.fedBy(s.handleCorporateActions, jobs.DemoTerminalImport, jobs.TDXRefresh)))
	s.protected(http.MethodPost, "/v1/api/alerts", auth.ScopeScreener, s.handleAlertCreate)
	s.protected(http.MethodGet, "/v1/api/alerts", auth.ScopeScreener, s.handleAlertList)
	s.protected(http.MethodDelete, "/v1/api/alerts", auth.ScopeScreener, s.handleAlertDelete)
	s.protected(http.MethodPost, "/v1/api/alerts/cancel", auth.ScopeScreener, s.handleAlertCancel)
	s.protected(http.MethodGet, "/v1/api/alerts/events", auth.ScopeScreener, s.handleAlertEvents)
	s.protected(http.MethodGet, "/v1/api/alerts/deliveries", auth.ScopeScreener, s.handleAlertDeliveries)
	s.protected(http.MethodPost, "/v1/api/alerts/webhook_test", auth.ScopeScreener, s.handleAlertWebhookTest)
	s.protected(http.MethodGet, "/v1/api/intraday/kline", auth.ScopeKline, s.waits(s.handleIntraday))
	s.protected(http.MethodGet, "/v1/api/indicators/macd_bs", auth.ScopeKline, s.waits(s.handleMACDBS))
	s.protected(http.MethodGet, "/v1/api/indicators/micro_momentum", auth.ScopeKline, s.waits(s.fedBy(s.handleMicroMomentum, jobs.KlineEndOfDay)))
	s.protected(http.MethodGet, "/v1/api/monitor/chip_metrics", auth.ScopeKline, s.waits(s.fedBy(s.handleChipMetrics, jobs.KlineEndOfDay)))

	s.protected(http.MethodGet, "/v1/api/calendar", auth.ScopeMarket, s.handleCalendar)
	s.protected(http.MethodGet, "/v1/api/securities", auth.ScopeMarket, s.fedBy(s.handleSecurities, jobs.RecordSecurities))
	s.protected(http.MethodGet, "/v1/api/archive/status", auth.ScopeMarket, s.handleArchiveStatus)
	s.protected(http.MethodGet, "/v1/api/quality", auth.ScopeMarket, s.fedBy(s.handleQuality, jobs.RecordSecurities, jobs.KlineEndOfDay, jobs.PublishedLimitPools))
	s.protected(http.MethodGet, "/v1/api/bars/daily", auth.ScopeKline, s.fedBy(s.handleBarsDaily, jobs.RecordSecurities, jobs.KlineEndOfDay))
	s.protected(http.MethodGet, "/v1/api/bars/minute", auth.ScopeKline, s.fedBy(s.handleBarsMinute, jobs.RecordSecurities))
	s.protected(http.MethodGet, "/v1/api/securities/history", auth.ScopeMarket, s.fedBy(s.handleSecurityHistory, jobs.RecordSecurities, jobs.DelistedLists))
	s.protected(http.MethodGet, "/v1/api/index/members", auth.ScopeMarket, s.handleIndexMembers)
	s.protected(http.MethodGet, "/v1/api/index/changes", auth.ScopeMarket, s.handleIndexChanges)
	s.protected(http.MethodGet, "/v1/api/lhb", auth.ScopeMarket, s.fedBy(s.handleLHB, jobs.LHB))
	s.protected(http.MethodGet, "/v1/api/lhb/seats", auth.ScopeMarket, s.fedBy(s.handleLHBSeats, jobs.LHB))
	s.protected(http.MethodGet, "/v1/api/limit_pool", auth.ScopeMarket, s.fedBy(s.handleLimitPool, jobs.RecordSecurities, jobs.KlineEndOfDay, jobs.PublishedLimitPools))
	s.protected(http.MethodGet, "/v1/api/limit_ladder", auth.ScopeMarket, s.fedBy(s.handleLimitLadder, jobs.RecordSecurities, jobs.KlineEndOfDay, jobs.PublishedLimitPools))

	s.protected(http.MethodGet, "/v1/api/meta/stocks", auth.ScopeBridge, s.handleMetaStocks)
	s.protected(http.MethodGet, "/v1/api/blocks", auth.ScopeBridge, s.handleBlocks)
	s.protected(http.MethodGet, "/v1/api/block/members", auth.ScopeBridge, s.handleBlockMembers)
	s.protected(http.MethodGet, "/v1/api/minutes", auth.ScopeBridge, s.handleMinutes)
	s.protected(http.MethodPost, "/v1/api/refresh", auth.ScopeAdmin, s.handleRefresh)

	s.protected(http.MethodPost, "/v1/api/screener/queue/submit", auth.ScopeScreener, s.handleScreenerSubmit)
	s.protected(http.MethodGet, "/v1/api/screener/queue/status", auth.ScopeScreener, s.handleScreenerStatus)
	s.protected(http.MethodGet, "/v1/api/screener/queue/result", auth.ScopeScreener, s.handleScreenerResult)
	s.protected(http.MethodPost, "/v1/api/screener/queue/cancel", auth.ScopeScreener, s.handleScreenerCancel)
	s.protected(http.MethodGet, "/v1/api/screener/fields", auth.ScopeScreener, s.handleScreenerFields)

	s.infoRoutes()
	s.mcpRoutes()
	s.dashboardRoutes()
}

func (s *Server) public(method, path string, h handlerFunc) {
	s.register(method, path, s.adapt(s.form(method, path, h)))
}

// protected registers an endpoint behind authentication; scope "" means any
// authenticated client.
func (s *Server) protected(method, path string, scope auth.Scope, h handlerFunc) {
	s.register(method, path, s.authenticate(scope, s.adapt(s.form(method, path, h))))
}

// form gives a GET the answer's forms: CSV where the endpoint answers a
// list (csv.go).
func (s *Server) form(method, path string, h handlerFunc) handlerFunc {
	if method != http.MethodGet {
		return h
	}
	if s.gets == nil {
		s.gets = map[string]handlerFunc{}
	}
	s.gets[path] = h
	return s.withForm(path, h)
}

// Routes lists every registered "METHOD /path".
func (s *Server) Routes() []string { return s.registered }

func (s *Server) register(method, path string, h http.Handler) {
	s.registered = append(s.registered, method+" "+path)
	rs, first := s.statsFor(path)
	h = s.instrument(rs, h)
	s.router.Handler(method, path, h)
	if method == http.MethodGet {
		// httprouter answers HEAD with 405 unless it is registered; monitors
		// and curl -I use it.
		s.router.Handler(http.MethodHead, path, h)
	}
	if first {
		// A 405 lists OPTIONS in its Allow (httprouter adds it), so every
		// route answers it.
		s.router.Handler(http.MethodOptions, path, s.instrument(rs, s.options(path)))
	}
}

// options answers OPTIONS on a route: 204 with Allow, the methods the path
// takes, the same list a 405 gives. No CORS header ever: a web page of
// another origin asking in a preflight is given no permission, so its
// browser does not send the request.
func (s *Server) options(path string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		methods := []string{http.MethodOptions}
		for _, mp := range s.registered { // all registered by now: read only
			if m, p, _ := strings.Cut(mp, " "); p == path {
				methods = append(methods, m)
				if m == http.MethodGet {
					methods = append(methods, http.MethodHead)
				}
			}
		}
		slices.Sort(methods)
		w.Header().Set("Allow", strings.Join(slices.Compact(methods), ", "))
		w.WriteHeader(http.StatusNoContent)
	})
}

// statsFor is the path's route figures, and whether they are new: methods
// of one path share them and are told apart by the method label.
func (s *Server) statsFor(path string) (*routeStats, bool) {
	for _, rs := range s.routeStats {
		if rs.route == path {
			return rs, false
		}
	}
	rs := s.http.route(path)
	s.routeStats = append(s.routeStats, rs)
	return rs, true
}

func (s *Server) adapt(h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			s.writeError(w, r, err)
		}
	})
}

// sourceLabel names where an answer's numbers come from: the demo market in
// demo mode, whatever path they took (its store holds nothing else), else
// live, the path's own name (store, push2his, push2).
func (s *Server) sourceLabel(live string) string {
	if s.SourceMode == "demo" {
		return "demo"
	}
	return live
}
