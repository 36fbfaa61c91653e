package api

import (
	"bytes"
	"encoding/json"
	"io"
	"mdqs/db/dbtest"
	"mime"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

func withLimits(l Limits) harnessOpt {
	return func(c *harnessConfig) { c.deps.Limits = l }
}

// scrape fetches /metrics from loopback and parses it with Prometheus's own
// text parser, with the strict (legacy) name rules.
func (h *harness) scrape() map[string]*dto.MetricFamily {
	h.t.Helper()
	res, err := h.srv.Client().Get(h.srv.URL + "/metrics")
	if err != nil {
		h.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	// client_golang adds the name escaping it used; the format is the text
	// format 0.0.4 all the same.
	mt, params, err := mime.ParseMediaType(res.Header.Get("Content-Type"))
	if res.StatusCode != 200 || err != nil || mt != "text/plain" || params["version"] != "0.0.4" {
		h.t.Fatalf("/metrics: %d %q %s", res.StatusCode, res.Header.Get("Content-Type"), raw)
	}
	p := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(raw))
	if err != nil {
		h.t.Fatalf("the exposition does not parse: %v\n%s", err, raw)
	}
	return fams
}

// sample is the value of the family's sample whose labels include want.
func sample(t *testing.T, fams map[string]*dto.MetricFamily, name string, want map[string]string) (float64, bool) {
	t.Helper()
	f := fams[name]
	if f == nil {
		t.Fatalf("no family %s", name)
	}
next:
	for _, m := range f.Metric {
		have := map[string]string{}
		for _, l := range m.Label {
			have[l.GetName()] = l.GetValue()
		}
		for k, v := range want {
			if have[k] != v {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount()), true
		}
	}
	return 0, false
}

func mustSample(t *testing.T, fams map[string]*dto.MetricFamily, name string, want map[string]string) float64 {
	t.Helper()
	v, ok := sample(t, fams, name, want)
	if !ok {
		t.Fatalf("%s has no sample with %v", name, want)
	}
	return v
}

func TestMetricsCountRequestsByRouteAndStatus(t *testing.T) {
	h := newHarness(t)
	h.addClient("c", "secret-c", clientOpts{})
	tok := h.token("c", "secret-c")
	for range 3 {
		h.signed(http.MethodGet, "/v1/api/whoami", tok, nil).expect(t, 200, "OK")
	}
	h.do(http.MethodGet, "/v1/api/whoami", nil, nil).expect(t, 401, "unauthorized")
	if r := h.signed(http.MethodGet, "/v1/api/boards/top50", tok, nil); r.status != 200 {
		t.Fatalf("top50: %d", r.status)
	}
	h.do(http.MethodGet, "/no/such/path?x=1", nil, nil).expect(t, 404, "not found")
	h.do(http.MethodDelete, "/v1/api/whoami", nil, nil).expect(t, 405, "")
	h.do(http.MethodGet, "/test/panic", nil, nil).expect(t, 500, "")

	fams := h.scrape()
	for _, tc := range []struct {
		labels map[string]string
		want   float64
	}{
		{map[string]string{"route": "/v1/api/whoami", "method": "GET", "code": "200"}, 3},
		{map[string]string{"route": "/v1/api/whoami", "method": "GET", "code": "401"}, 1},
		{map[string]string{"route": "/v1/auth/token", "method": "POST", "code": "200"}, 1},
		{map[string]string{"route": "/v1/api/boards/top50", "method": "GET", "code": "200"}, 1},
		{map[string]string{"route": "unmatched", "method": "GET", "code": "404"}, 1},
		{map[string]string{"route": "unmatched", "method": "DELETE", "code": "405"}, 1},
		{map[string]string{"route": "/test/panic", "method": "GET", "code": "500"}, 1},
	} {
		if got := mustSample(t, fams, "mdqs_http_requests_total", tc.labels); got != tc.want {
			t.Errorf("requests %v = %v, want %v", tc.labels, got, tc.want)
		}
	}
	if n := mustSample(t, fams, "mdqs_http_request_duration_seconds", map[string]string{"route": "/v1/api/whoami"}); n != 4 {
		t.Errorf("whoami latency count = %v, want 4", n)
	}
	if b := mustSample(t, fams, "mdqs_http_response_bytes_total", map[string]string{"route": "/v1/api/boards/top50"}); b < 1000 {
		t.Errorf("top50 bytes = %v", b)
	}
	// The top50 request collected from the fake push2: its calls show.
	if n := mustSample(t, fams, "mdqs_upstream_calls_total", map[string]string{"source": "push2"}); n < 1 {
		t.Errorf("push2 calls = %v", n)
	}
	if v := mustSample(t, fams, "mdqs_upstream_breaker_state", map[string]string{"source": "push2", "state": "closed"}); v != 1 {
		t.Errorf("push2 breaker closed = %v", v)
	}
	if v := mustSample(t, fams, "mdqs_upstream_failovers_total", map[string]string{"source": "push2"}); v != 0 {
		t.Errorf("push2 failovers = %v, want 0 (one host, answering)", v)
	}
	if v := mustSample(t, fams, "mdqs_upstream_host_info", map[string]string{"source": "push2"}); v != 1 {
		t.Errorf("push2 host info = %v", v)
	}
	if n := mustSample(t, fams, "mdqs_upstream_call_duration_seconds", map[string]string{"source": "push2"}); n < 1 {
		t.Errorf("push2 latency count = %v", n)
	}
	want := 1.0 // SQLite's one writer connection
	if dbtest.Postgres(t) {
		want = 8 // PostgreSQL's one pool: 4 readers' worth plus 4
	}
	if v := mustSample(t, fams, "mdqs_db_connections_max", map[string]string{"pool": "writer"}); v != want {
		t.Errorf("writer pool max = %v, want %v", v, want)
	}
	if v := mustSample(t, fams, "mdqs_cache_hits_total", map[string]string{"cache": "tokens"}); v < 3 {
		t.Errorf("token cache hits = %v, want at least the 3 signed whoami calls", v)
	}
	if v := mustSample(t, fams, "go_goroutines", nil); v < 2 {
		t.Errorf("goroutines = %v", v)
	}
	if v := mustSample(t, fams, "mdqs_http_requests_in_flight", nil); v != 1 {
		t.Errorf("in flight during the scrape = %v, want 1 (the scrape)", v)
	}
}

// From another machine /metrics is an admin endpoint like any other; only
// loopback scrapes without credentials.
func TestMetricsNeedAdminFromOtherAddresses(t *testing.T) {
	h := newHarness(t)
	h.addClient("m", "secret-m", clientOpts{scopes: "market"})
	h.addClient("a", "secret-a", clientOpts{scopes: "*"})
	market, admin := h.token("m", "secret-m"), h.token("a", "secret-a")
	get := func(header http.Header) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
		req.RemoteAddr = "192.0.2.7:50123"
		for k, v := range header {
			req.Header[k] = v
		}
		rec := httptest.NewRecorder()
		h.api.Handler().ServeHTTP(rec, req)
		return rec
	}
	if rec := get(nil); rec.Code != 401 || !strings.Contains(rec.Body.String(), `"code":0`) {
		t.Errorf("anonymous remote scrape: %d %s", rec.Code, rec.Body)
	}
	if rec := get(h.signedHeader(market, nil)); rec.Code != 403 {
		t.Errorf("market-scope remote scrape: %d %s", rec.Code, rec.Body)
	}
	rec := get(h.signedHeader(admin, nil))
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), "# TYPE mdqs_http_requests_total counter") {
		t.Errorf("admin remote scrape: %d %.200s", rec.Code, rec.Body)
	}
	for _, addr := range []string{"127.0.0.1:1", "[::1]:1", "[::ffff:127.0.0.1]:1"} {
		req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:8080/metrics", nil)
		req.RemoteAddr = addr
		rec := httptest.NewRecorder()
		h.api.Handler().ServeHTTP(rec, req)
		if rec.Code != 200 {
			t.Errorf("scrape from %s: %d", addr, rec.Code)
		}
	}
	// From loopback under a name this server is not (a page that rebound
	// its name to 127.0.0.1), the scrape is a remote one: admin only.
	req := httptest.NewRequest(http.MethodGet, "http://attacker.example:8080/metrics", nil)
	req.RemoteAddr = "127.0.0.1:1"
	rec = httptest.NewRecorder()
	h.api.Handler().ServeHTTP(rec, req)
	if rec.Code != 401 {
		t.Errorf("scrape from loopback with Host attacker.example: %d %.200s, want 401", rec.Code, rec.Body)
	}
}

// Clients with enable_log get one structured line per request; nothing in
// it is a secret, and clients without it leave no trace.
func TestRequestLogsForClientsWithEnableLog(t *testing.T) {
	h := newHarness(t)
	h.addClient("logged", "secret-logged", clientOpts{enableLog: true})
	h.addClient("quiet", "secret-quiet", clientOpts{})
	lt, qt := h.token("logged", "secret-logged"), h.token("quiet", "secret-quiet")
	hdr := h.signedHeader(lt, nil)
	h.do(http.MethodGet, "/v1/api/whoami?probe=1", nil, hdr).expect(t, 200, "OK")
	h.signed(http.MethodGet, "/v1/api/whoami", qt, nil).expect(t, 200, "OK")
	h.signed(http.MethodGet, "/v1/api/boards/industry?sort=bogus", lt, nil).expect(t, 400, "invalid sort field")

	logs := h.logs.String()
	var lines []string
	for _, l := range strings.Split(logs, "\n") {
		if strings.Contains(l, "msg=request ") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 3 { // the token request of "logged" and its two calls
		t.Fatalf("%d request lines, want 3:\n%s", len(lines), logs)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`client_id=logged method=POST route=/v1/auth/token path=/v1/auth/token query="" status=200 duration_ms=[0-9.]+ bytes=[0-9]+ `),
		regexp.MustCompile(`client_id=logged method=GET route=/v1/api/whoami path=/v1/api/whoami query="probe=1" status=200 duration_ms=[0-9.]+ bytes=[1-9][0-9]* remote=127\.0\.0\.1:`),
		regexp.MustCompile(`client_id=logged method=GET route=/v1/api/boards/industry .* status=400 `),
	} {
		found := false
		for _, l := range lines {
			found = found || want.MatchString(l)
		}
		if !found {
			t.Errorf("no line matches %s in\n%s", want, strings.Join(lines, "\n"))
		}
	}
	for _, secret := range []string{lt, qt, "secret-logged", hdr.Get("X-Signature"), hdr.Get("X-Nonce"), "client_id=quiet"} {
		if strings.Contains(logs, secret) {
			t.Errorf("logs contain %q", secret)
		}
	}
}

// Issue 27: a -log client that puts a credential in the query string
// does not find it in the log: the value is REDACTED, the name and the
// other parameters are kept; header fields (Authorization, api-key, the
// signature) are never logged, nor in a panic's or a failure's line.
func TestRequestLogRedactsCredentials(t *testing.T) {
	h := newHarness(t)
	h.addClient("logged", "secret-logged", clientOpts{enableLog: true, apiKey: "key-0123456789abcdef"})
	tok := h.token("logged", "secret-logged")
	hdr := h.signedHeader(tok, nil)
	hdr.Set("Api-Key", "key-0123456789abcdef")
	h.do(http.MethodGet, "/v1/api/whoami?token=abc&secret=s&keyword=x&api_key=k-1234&accessToken=at-5678&X-Signature=sg-9012", nil, hdr).expect(t, 200, "OK")
	hdr = h.signedHeader(tok, nil)
	hdr.Set("Api-Key", "key-0123456789abcdef")
	h.do(http.MethodGet, "/v1/api/boards/industry?sort=bogus&password=pw-3456", nil, hdr).expect(t, 400, "invalid sort field")
	h.do(http.MethodGet, "/test/panic?token=abc", nil, http.Header{"Authorization": {"Bearer " + tok}}).expect(t, 500, "")

	logs := h.logs.String()
	want := `query="token=REDACTED&secret=REDACTED&keyword=x&api_key=REDACTED&accessToken=REDACTED&X-Signature=REDACTED"`
	if !strings.Contains(logs, want) || !strings.Contains(logs, `query="sort=bogus&password=REDACTED"`) {
		t.Errorf("no redacted query line %s in\n%s", want, logs)
	}
	for _, secret := range []string{"token=abc", "secret=s&", "k-1234", "at-5678", "sg-9012", "pw-3456", tok, "key-0123456789abcdef", "secret-logged",
		hdr.Get("X-Signature"), hdr.Get("X-Nonce"), "Bearer"} {
		if strings.Contains(logs, secret) {
			t.Errorf("logs contain %q:\n%s", secret, logs)
		}
	}
}

func TestRedactQuery(t *testing.T) {
	for raw, want := range map[string]string{
		"":                                 "",
		"keyword=x":                        "keyword=x",
		"token=abc&secret=s&keyword=x":     "token=REDACTED&secret=REDACTED&keyword=x",
		"code=600519.SH&TOKEN=t":           "code=600519.SH&TOKEN=REDACTED",
		"x=1;token=abc;y=2":                "x=1;token=REDACTED;y=2", // as sent: ";" separates too
		"%74oken=abc":                      "%74oken=REDACTED",       // the name is judged unescaped
		"token":                            "token",                  // no value, nothing to hide
		"token=&key=":                      "token=REDACTED&key=REDACTED",
		"a=1&&b=2&":                        "a=1&&b=2&",
		"sig=1&signal=2&auth=3&author=4":   "sig=REDACTED&signal=2&auth=REDACTED&author=4",
		"topics=ranking&last_event_id=1-2": "topics=ranking&last_event_id=1-2",
	} {
		if got := redactQuery(raw); got != want {
			t.Errorf("redactQuery(%q) = %q, want %q", raw, got, want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { redactQuery("code=600519.SH&freq=D&start=2026-01-05&keyword=x") }); n != 0 {
		t.Errorf("a query without credentials costs %v allocations, want none", n)
	}
}

func TestSensitiveParam(t *testing.T) {
	for _, name := range []string{"token", "Token", "TOKEN", "access_token", "accessToken", "auth_token", "authtoken", "refresh-token",
		"secret", "client_secret", "clientSecret", "password", "Password", "passwd", "pwd", "user_password", "mypassword",
		"key", "api_key", "apikey", "apiKey", "APIKey", "API-KEY", "api.key", "private_key", "keys",
		"signature", "X-Signature", "xsignature", "sig", "x_sig", "auth", "Authorization", "credentials", "bearer", "jwt"} {
		if !sensitiveParam(name) {
			t.Errorf("%q is not redacted", name)
		}
	}
	for _, name := range []string{"keyword", "keywords", "monkey", "keyboard", "signal", "sigma", "author", "authority", "design",
		"q", "code", "codes", "topics", "sort", "page", "passage", "tokyo", "id"} {
		if sensitiveParam(name) {
			t.Errorf("%q is redacted", name)
		}
	}
}

// None of the API's own query parameters is redacted: the request log
// keeps what a client asked for.
func TestNoAPIParameterIsRedacted(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct {
				Ref  string `json:"$ref"`
				Name string `json:"name"`
				In   string `json:"in"`
			} `json:"parameters"`
		} `json:"paths"`
		Components struct {
			Parameters map[string]struct {
				Name string `json:"name"`
				In   string `json:"in"`
			} `json:"parameters"`
		} `json:"components"`
	}
	if err := json.Unmarshal(openAPISource, &doc); err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{"seconds": true, "debug": true, "gc": true} // /debug/pprof's, not in the document
	for _, p := range doc.Components.Parameters {
		if p.In == "query" {
			names[p.Name] = true
		}
	}
	for _, item := range doc.Paths {
		for _, op := range item {
			for _, p := range op.Parameters {
				if p.In == "query" {
					names[p.Name] = true
				}
			}
		}
	}
	if len(names) < 40 {
		t.Fatalf("only %d query parameters found in the document", len(names))
	}
	for name := range names {
		if sensitiveParam(name) {
			t.Errorf("the API's parameter %q would be redacted in the request log", name)
		}
	}
}

func TestClientRateLimit(t *testing.T) {
	h := newHarness(t, withLimits(Limits{Client: RateLimit{Rate: 0.5, Burst: 2}, Clients: map[string]RateLimit{"bulk": {Rate: 100, Burst: 10}}}))
	h.addClient("c", "secret-c", clientOpts{})
	h.addClient("bulk", "secret-b", clientOpts{})
	h.addClient("other", "secret-o", clientOpts{})
	tok := h.token("c", "secret-c")
	for range 2 {
		h.signed(http.MethodGet, "/v1/api/whoami", tok, nil).expect(t, 200, "OK")
	}
	r := h.signed(http.MethodGet, "/v1/api/whoami", tok, nil)
	r.expect(t, 429, "too many requests")
	var env struct {
		RetryAfter int `json:"retry_after"`
	}
	if err := json.Unmarshal(r.raw, &env); err != nil || env.RetryAfter != 2 || r.header.Get("Retry-After") != "2" {
		t.Errorf("retry_after %d, header %q (rate 0.5/s: a token in 2 s): %s", env.RetryAfter, r.header.Get("Retry-After"), r.raw)
	}
	// Other clients have buckets of their own, and overrides apply.
	ot := h.token("other", "secret-o")
	h.signed(http.MethodGet, "/v1/api/whoami", ot, nil).expect(t, 200, "OK")
	bt := h.token("bulk", "secret-b")
	for range 10 {
		h.signed(http.MethodGet, "/v1/api/whoami", bt, nil).expect(t, 200, "OK")
	}
	// The bucket refills with time.
	h.clock.Advance(2 * time.Second)
	h.signed(http.MethodGet, "/v1/api/whoami", tok, nil).expect(t, 200, "OK")
	h.signed(http.MethodGet, "/v1/api/whoami", tok, nil).expect(t, 429, "too many requests")

	if v := mustSample(t, h.scrape(), "mdqs_rate_limited_total", map[string]string{"limit": "client"}); v != 2 {
		t.Errorf("rate_limited_total{client} = %v, want 2", v)
	}
}

// The token endpoint is limited per remote address: it is where a guessing
// loop would burn argon2id hashes.
func TestTokenEndpointRateLimit(t *testing.T) {
	h := newHarness(t, withLimits(Limits{Token: RateLimit{Rate: 1, Burst: 2}}))
	h.addClient("c", "secret-c", clientOpts{})
	body := []byte(`{"client_id":"c","client_secret":"wrong"}`)
	h.do(http.MethodPost, "/v1/auth/token", body, nil).expect(t, 401, "unauthorized")
	h.do(http.MethodPost, "/v1/api/token", body, nil).expect(t, 401, "unauthorized")
	r := h.do(http.MethodPost, "/v1/auth/token", []byte(`{"client_id":"c","client_secret":"secret-c"}`), nil)
	r.expect(t, 429, "too many requests")
	if r.header.Get("Retry-After") != "1" {
		t.Errorf("Retry-After %q", r.header.Get("Retry-After"))
	}
	// Another address has its own bucket.
	req := httptest.NewRequest(http.MethodPost, "/v1/auth/token", strings.NewReader(`{"client_id":"c","client_secret":"secret-c"}`))
	req.RemoteAddr = "192.0.2.9:4000"
	rec := httptest.NewRecorder()
	h.api.Handler().ServeHTTP(rec, req)
	if rec.Code != 200 {
		t.Errorf("token from another address: %d %s", rec.Code, rec.Body)
	}
	h.clock.Advance(time.Second)
	h.token("c", "secret-c")
}
