// Package upstream holds the HTTP clients of the market-data upstreams:
// EastMoney push2 (clist lists), push2his (K-lines, fund flow, trends) and
// akshare through an AKTools server. It returns mdqs/internal/market types and knows
// nothing of our handlers or database; caching (and so not calling at all
// when the cache can answer) is the caller's job.
//
// Politeness. Each source has its own *http.Client (timeout, optional
// proxy) and sends a desktop Chrome's headers with a Referer per endpoint.
// All clients draw from one rate limiter per upstream host, held by a
// Limiters registry the caller creates once and passes to every client.
// Retries use exponential backoff with full jitter and wait for the limiter
// too. A source may list fallback hosts (push2, push2his): a request that
// still fails on one host after its retries moves on to the next, which
// keeps serving until the first's cool-down ends (hosts.go); all of a
// source's hosts draw from its one limiter.
//
// Failures are *Error values with a Kind (errors.Is(err, KindSchema) works).
// What is retried: transport errors, timeouts, 5xx, 429, truncated bodies.
// Not retried: rc != 0, HTML pages (ban and portal pages), 4xx, malformed
// JSON, schema drift, empty answers.
//
// Tolerant decoding. Bodies may be JSON or JSONP; push2 diff may be an array
// (np=1) or an object keyed "0","1",...; numeric fields accept numbers,
// numeric strings, "-" and null. Rows are read by key, never by position
// (except the CSV rows of push2his, whose order is the fields2 we send).
//
// Required and optional fields. A required field that is absent or of
// another type fails the call with KindSchema naming the field: silent zeros
// are worse than no data. "-" in a required numeric field is a value (NaN),
// since EastMoney uses it for "not applicable" (a board listed today). An
// optional field that is absent or of another type becomes NaN / -1 / "" and
// is reported in Status.Drift, so health shows a schema change before it
// reaches a required field. Each method's doc lists its required fields.
//
// Paging. clist pages are walked with pz=100 sorted by code until data.total
// rows arrived. If the pages run out first, the rows are returned together
// with a KindPartial error: callers that must not store a partial universe
// just check err, callers that can use it check errors.Is(err, KindPartial).
package upstream
