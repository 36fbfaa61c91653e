package api

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"mdqs/internal/market"
	"mdqs/internal/stream"
)

// withStream gives the server a hub of its own configuration.
func withStream(cfg stream.Config) harnessOpt {
	return func(c *harnessConfig) { c.deps.Stream = stream.NewHub(cfg) }
}

type sseEvent struct{ ID, Name, Data string }

// sseStream is a client's end of one stream, on a real connection.
type sseStream struct {
	t      testing.TB
	res    *http.Response
	cancel context.CancelFunc
	events chan sseEvent // closed when the stream ends
	beats  atomic.Int64  // heartbeat comments seen
}

// openStream connects to GET /v1/api/stream?query, signed for tok. A
// failure answer is returned as a response and no stream. lazy leaves the
// body unread until read is called.
func (h *harness) openStream(t testing.TB, tok, query string, header http.Header, lazy bool) (*sseStream, response) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, h.srv.URL+"/v1/api/stream?"+query, nil)
	for k, v := range h.signedHeader(tok, nil) {
		req.Header[k] = v
	}
	for k, v := range header {
		req.Header[k] = v
	}
	// Its own transport: a connection per stream, none reused.
	res, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK {
		defer cancel()
		defer res.Body.Close()
		raw, _ := io.ReadAll(res.Body)
		r := response{status: res.StatusCode, header: res.Header, raw: raw}
		var env struct {
			Message string `json:"message"`
			Detail  string `json:"detail"`
		}
		json.Unmarshal(raw, &env)
		r.message, r.detail = env.Message, env.Detail
		return nil, r
	}
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	s := &sseStream{t: t, res: res, cancel: cancel, events: make(chan sseEvent, 1<<16)}
	t.Cleanup(s.close)
	if !lazy {
		s.read()
	}
	return s, response{status: 200, header: res.Header}
}

// read parses the body in the background.
func (s *sseStream) read() {
	go func() {
		defer close(s.events)
		br := bufio.NewReaderSize(s.res.Body, 1<<16)
		var ev sseEvent
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimRight(line, "\n")
			field, value, _ := strings.Cut(line, ":")
			value = strings.TrimPrefix(value, " ")
			switch {
			case line == "":
				if ev.Name != "" || ev.Data != "" {
					s.events <- ev
				}
				ev = sseEvent{}
			case field == "":
				if value == "hb" {
					s.beats.Add(1)
				}
			case field == "id":
				ev.ID = value
			case field == "event":
				ev.Name = value
			case field == "data":
				ev.Data += value
			}
		}
	}()
}

func (s *sseStream) close() {
	s.cancel()
	s.res.Body.Close()
}

// next is the next event other than open; ok is false at the stream's end.
func (s *sseStream) next() (sseEvent, bool) {
	s.t.Helper()
	for {
		select {
		case ev, ok := <-s.events:
			if ok && ev.Name == "open" {
				continue
			}
			return ev, ok
		case <-time.After(10 * time.Second):
			s.t.Fatal("no event within 10 s")
			return sseEvent{}, false
		}
	}
}

// expectEnd reads up to the stream's end and returns its last event.
func (s *sseStream) expectEnd() sseEvent {
	s.t.Helper()
	var last sseEvent
	for {
		ev, ok := s.next()
		if !ok {
			return last
		}
		last = ev
	}
}

// nothingFor checks that no event arrives for d.
func (s *sseStream) nothingFor(d time.Duration) {
	s.t.Helper()
	select {
	case ev, ok := <-s.events:
		if ok {
			s.t.Fatalf("unexpected event %+v", ev)
		}
	case <-time.After(d):
	}
}

func TestStreamDeliversEachTopic(t *testing.T) {
	h := newHarness(t)
	h.addClient("c", "secret-c", clientOpts{scopes: "market"})
	tok := h.token("c", "secret-c")
	s, _ := h.openStream(t, tok, "topics=ranking,movements,quotes,alerts&codes=600519.SH,sz000001", nil, false)
	first := <-s.events
	if first.Name != "open" || !strings.Contains(first.Data, `"codes":["600519.SH","000001.SZ"]`) || first.ID == "" {
		t.Fatalf("first event %+v, want open", first)
	}

	// A collection: a new ranking, and 行业3 crossing +2 %.
	h.tick(t, market.Industry, map[string]float64{"行业3": 2.5})
	got := map[string][]sseEvent{}
	for len(got["ranking"]) == 0 || len(got["movement"]) == 0 {
		ev, _ := s.next()
		got[ev.Name] = append(got[ev.Name], ev)
	}
	var rk struct {
		Day       string            `json:"day"`
		UpdatedMS int64             `json:"updated_ms"`
		Sectors   []json.RawMessage `json:"sectors"`
	}
	if err := json.Unmarshal([]byte(got["ranking"][0].Data), &rk); err != nil || rk.Day != "20261123" || rk.UpdatedMS == 0 ||
		len(rk.Sectors) == 0 || len(rk.Sectors) > streamRankingTop {
		t.Errorf("ranking event %.300s (%v)", got["ranking"][0].Data, err)
	}
	var mv struct {
		BoardName string `json:"board_name"`
		Trigger   string `json:"trigger"`
		EventMS   int64  `json:"event_ms"`
	}
	ev := got["movement"][0]
	json.Unmarshal([]byte(ev.Data), &mv)
	if mv.BoardName != "行业3" || mv.Trigger != "pct_up" || !strings.HasPrefix(ev.ID, strconv.FormatInt(mv.EventMS, 10)+"-") {
		t.Errorf("movement event %+v", ev)
	}

	// Quotes and alerts of the codes asked for, and of no other.
	maotai, _ := market.ParseCode("600519.SH")
	other, _ := market.ParseCode("601318.SH")
	h.api.Stream.Publish(stream.QuoteEvent(other, []byte(`{"code":"601318.SH"}`)))
	h.api.Stream.Publish(stream.QuoteEvent(maotai, []byte(`{"code":"600519.SH","last":1500,"pct":1.2,"as_of":"2026-11-23 10:00:00"}`)))
	h.api.Stream.Publish(stream.Event{Topic: stream.Alert, Codes: []market.Code{other}, Data: []byte(`{"code":"601318.SH"}`)})
	h.api.Stream.Publish(stream.Event{Topic: stream.Alert, Codes: []market.Code{maotai}, Data: []byte(`{"code":"600519.SH"}`)})
	for _, want := range []string{"quote", "alert"} {
		ev, _ := s.next()
		for ev.Name == "ranking" || ev.Name == "movement" { // the rest of the collection's
			ev, _ = s.next()
		}
		if ev.Name != want || !strings.Contains(ev.Data, "600519.SH") {
			t.Errorf("got %+v, want a %s of 600519.SH", ev, want)
		}
	}
}

// movementIDs reads movement events until n have come, returning their
// store ids and the last event's SSE id.
func movementIDs(t *testing.T, s *sseStream, n int) (ids []int64, last string) {
	t.Helper()
	for len(ids) < n {
		ev, ok := s.next()
		if !ok {
			t.Fatalf("the stream ended after %d of %d movements", len(ids), n)
		}
		if ev.Name != "movement" {
			continue
		}
		var row struct {
			ID int64 `json:"id"`
		}
		json.Unmarshal([]byte(ev.Data), &row)
		ids = append(ids, row.ID)
		last = ev.ID
	}
	return ids, last
}

// timelineIDs is the day's whole movement timeline, by store id.
func timelineIDs(t *testing.T, h *harness, tok string) []int64 {
	t.Helper()
	r := h.signed(http.MethodGet, "/v1/api/market/movements/events", tok, nil)
	var tl struct {
		Items []struct {
			ID int64 `json:"id"`
		} `json:"items"`
	}
	json.Unmarshal(r.data, &tl)
	var ids []int64
	for _, it := range tl.Items {
		ids = append(ids, it.ID)
	}
	return ids
}

// A stream dropped mid-flow and resumed with its Last-Event-ID gets every
// movement once: those sent but unread before the drop, those of the
// collections while it was away, then the live ones.
func TestStreamResumesMovementsExactlyOnce(t *testing.T) {
	h := newHarness(t)
	h.addClient("c", "secret-c", clientOpts{scopes: "market"})
	tok := h.token("c", "secret-c")
	// Before the stream: not its business.
	h.tick(t, market.Industry, map[string]float64{"行业1": 3})
	h.clock.Advance(time.Minute)
	before := len(timelineIDs(t, h, tok))

	s, _ := h.openStream(t, tok, "topics=movements", nil, false)
	// Three boards cross at once; read the first of their events only.
	h.tick(t, market.Industry, map[string]float64{"行业1": 3, "行业4": 2.5, "行业5": -2.2, "行业6": 2.1})
	got, last := movementIDs(t, s, 1)
	s.close() // the connection drops with events sent but unread

	for i, pcts := range []map[string]float64{{"行业7": 2.4}, {"行业8": -3, "行业9": 2.2}} {
		h.clock.Advance(time.Minute)
		h.tick(t, []market.SectorKind{market.Industry, market.Concept}[i], pcts)
	}
	s2, _ := h.openStream(t, tok, "topics=movements", http.Header{"Last-Event-ID": {last}}, false)
	h.clock.Advance(time.Minute)
	h.tick(t, market.Industry, map[string]float64{"行业10": 2.6})

	want := timelineIDs(t, h, tok)[before:]
	if len(want) < 6 {
		t.Fatalf("only %d events generated", len(want))
	}
	rest, _ := movementIDs(t, s2, len(want)-len(got))
	got = append(got, rest...)
	if !slices.Equal(got, want) {
		t.Fatalf("events received across the reconnect %v, want each of %v once", got, want)
	}
	s2.nothingFor(100 * time.Millisecond)
}

func TestStreamResumesFromTheQueryParameter(t *testing.T) {
	h := newHarness(t)
	h.addClient("c", "secret-c", clientOpts{scopes: "market"})
	tok := h.token("c", "secret-c")
	s, _ := h.openStream(t, tok, "topics=ranking", nil, false)
	h.api.Stream.Publish(stream.Event{Topic: stream.Ranking, Data: []byte(`{"n":1}`)})
	ev, _ := s.next()
	s.close()
	h.api.Stream.Publish(stream.Event{Topic: stream.Ranking, Data: []byte(`{"n":2}`)})
	s2, _ := h.openStream(t, tok, "topics=ranking&last_event_id="+url.QueryEscape(ev.ID), nil, false)
	if ev, _ := s2.next(); ev.Name != "ranking" || ev.Data != `{"n":2}` {
		t.Fatalf("resumed with %+v, want the missed ranking", ev)
	}
	// An id from before what the hub keeps: resync, then live.
	s3, _ := h.openStream(t, tok, "topics=ranking&last_event_id=0-5", nil, false)
	if ev, _ := s3.next(); ev.Name != "resync" || !strings.Contains(ev.Data, `"final":false`) {
		t.Fatalf("resumed from a forgotten id with %+v, want resync", ev)
	}
	h.api.Stream.Publish(stream.Event{Topic: stream.Ranking, Data: []byte(`{"n":3}`)})
	if ev, _ := s3.next(); ev.Data != `{"n":3}` {
		t.Fatalf("after the resync %+v", ev)
	}
}

// A client that stops reading is dropped once its queue is full, with a
// final resync; the publisher never waits for it.
func TestStreamDropsASlowConsumer(t *testing.T) {
	const capacity = 8
	h := newHarness(t, withStream(stream.Config{Queue: capacity}))
	h.addClient("c", "secret-c", clientOpts{scopes: "market"})
	tok := h.token("c", "secret-c")
	s, _ := h.openStream(t, tok, "topics=quotes&codes=600519.SH", nil, true)
	code, _ := market.ParseCode("600519.SH")
	big := []byte(`{"code":"600519.SH","pad":"` + strings.Repeat("x", 64<<10) + `"}`)
	start := time.Now()
	published := 0
	// 64 KiB events fill the sockets' buffers, then the queue, and then
	// the stream is dropped.
	for h.api.Stream.Subscribers() > 0 {
		if published == 20_000 || time.Since(start) > 20*time.Second {
			t.Fatalf("still subscribed after %d events", published)
		}
		h.api.Stream.Publish(stream.QuoteEvent(code, big))
		published++
		time.Sleep(time.Millisecond) // time to write: it is the socket that fills
	}
	s.read()
	n := 0
	var last sseEvent
	for {
		ev, ok := s.next()
		if !ok {
			break
		}
		n, last = n+1, ev
	}
	if last.Name != "resync" || !strings.Contains(last.Data, `"final":true`) {
		t.Fatalf("the last event is %.200v, want the final resync", last)
	}
	if n >= published {
		t.Fatalf("received %d of %d events: nothing was dropped", n, published)
	}
	t.Logf("dropped after %d events of 64 KiB; %d delivered", published, n-1)
}

func TestStreamsPerClientAreCapped(t *testing.T) {
	h := newHarness(t, withStream(stream.Config{MaxPerClient: 2}))
	h.addClient("c", "secret-c", clientOpts{scopes: "market"})
	h.addClient("d", "secret-d", clientOpts{scopes: "market"})
	tok := h.token("c", "secret-c")
	a, _ := h.openStream(t, tok, "topics=ranking", nil, false)
	h.openStream(t, tok, "topics=ranking", nil, false)
	_, r := h.openStream(t, tok, "topics=ranking", nil, false)
	if r.status != http.StatusTooManyRequests || r.message != "too many requests" || !strings.Contains(r.detail, "too many open streams") {
		t.Fatalf("third stream: %d %s", r.status, r.raw)
	}
	if s, r := h.openStream(t, h.token("d", "secret-d"), "topics=ranking", nil, false); s == nil {
		t.Fatalf("another client's stream: %d %s", r.status, r.raw)
	}
	a.close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		s, r := h.openStream(t, tok, "topics=ranking", nil, false)
		if s != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a closed stream still counts: %d %s", r.status, r.raw)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestStreamHeartbeat(t *testing.T) {
	h := newHarness(t, withStream(stream.Config{Heartbeat: 20 * time.Millisecond}))
	h.addClient("c", "secret-c", clientOpts{scopes: "market"})
	s, _ := h.openStream(t, h.token("c", "secret-c"), "topics=ranking", nil, false)
	deadline := time.Now().Add(5 * time.Second)
	for s.beats.Load() < 3 {
		if time.Now().After(deadline) {
			t.Fatalf("%d heartbeats in 5 s at 20 ms", s.beats.Load())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A token that stops being good ends its streams with an end event saying
// why, at the next heartbeat.
func TestStreamEndsWithItsToken(t *testing.T) {
	for _, tt := range []struct {
		name   string
		spoil  func(h *harness)
		detail string
	}{
		{"revoked", func(h *harness) { h.token("c", "secret-c") }, "evicted"}, // one token per client: a new one evicts it
		{"expired", func(h *harness) { h.clock.Advance(3 * time.Hour) }, "expired"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, withStream(stream.Config{Heartbeat: 20 * time.Millisecond}),
				func(c *harnessConfig) { c.auth.MaxTokensPerClient = 1 })
			h.addClient("c", "secret-c", clientOpts{scopes: "market"})
			s, _ := h.openStream(t, h.token("c", "secret-c"), "topics=ranking", nil, false)
			tt.spoil(h)
			end := s.expectEnd()
			if end.Name != "end" || !strings.Contains(end.Data, `"reason":"unauthorized"`) || !strings.Contains(end.Data, tt.detail) {
				t.Fatalf("last event %+v, want end naming %q", end, tt.detail)
			}
		})
	}
}

// The server's Shutdown returns promptly with streams open: the hub's
// Close, registered with it, ends them; and neither ReadTimeout nor
// WriteTimeout cuts a stream short before that.
func TestStreamSurvivesTimeoutsAndEndsAtShutdown(t *testing.T) {
	h := newHarness(t, withStream(stream.Config{Heartbeat: 20 * time.Millisecond}))
	h.addClient("c", "secret-c", clientOpts{scopes: "market"})
	tok := h.token("c", "secret-c")
	srv := &http.Server{Handler: h.api.Handler(), ReadTimeout: 100 * time.Millisecond, WriteTimeout: 100 * time.Millisecond}
	srv.RegisterOnShutdown(h.api.Stream.Close)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	h2 := *h
	h2.srv = &httptest.Server{URL: "http://" + ln.Addr().String()}
	var streams []*sseStream
	for range 3 {
		s, r := h2.openStream(t, tok, "topics=ranking,movements", nil, false)
		if s == nil {
			t.Fatalf("%d %s", r.status, r.raw)
		}
		streams = append(streams, s)
	}
	time.Sleep(400 * time.Millisecond) // four times the timeouts
	h.api.Stream.Publish(stream.Event{Topic: stream.Ranking, Data: []byte(`{}`)})
	for _, s := range streams {
		if ev, ok := s.next(); !ok || ev.Name != "ranking" {
			t.Fatalf("after the timeouts: %+v %v", ev, ok)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	start := time.Now()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v after %v", err, time.Since(start))
	}
	for _, s := range streams {
		if end := s.expectEnd(); end.Name != "end" || !strings.Contains(end.Data, "shutdown") {
			t.Fatalf("last event %+v, want end for the shutdown", end)
		}
	}
}

func TestStreamRefusesBadQueries(t *testing.T) {
	h := newHarness(t)
	h.addClient("c", "secret-c", clientOpts{scopes: "market"})
	h.addClient("k", "secret-k", clientOpts{scopes: "kline"})
	tok := h.token("c", "secret-c")
	for _, tt := range []struct {
		query  string
		header http.Header
		detail string
	}{
		{"topics=ranking,nope", nil, "unknown topic"},
		{"topics=quotes", nil, "needs codes"},
		{"codes=600519.XX", nil, "codes"},
		{"topics=ranking&last_event_id=abc", nil, "event id"},
		{"topics=ranking", http.Header{"Last-Event-ID": {"1-x"}}, "event id"},
		{"codes=" + manyCodes(101), nil, "at most 100"},
	} {
		start := time.Now()
		_, r := h.openStream(t, tok, tt.query, tt.header, false)
		if r.status != http.StatusBadRequest || !strings.Contains(r.detail, tt.detail) || time.Since(start) > 2*time.Second {
			t.Errorf("%s %v: %d %s", tt.query, tt.header, r.status, r.raw)
		}
	}
	if _, r := h.openStream(t, h.token("k", "secret-k"), "topics=ranking", nil, false); r.status != http.StatusForbidden {
		t.Errorf("without the market scope: %d", r.status)
	}
	req, _ := http.NewRequest(http.MethodGet, h.srv.URL+"/v1/api/stream", nil)
	if res, err := h.srv.Client().Do(req); err != nil || res.StatusCode != http.StatusUnauthorized {
		t.Errorf("unauthenticated: %v %v", res, err)
	}
}

func manyCodes(n int) string {
	codes := make([]string, n)
	for i := range codes {
		codes[i] = strconv.Itoa(600000 + i)
	}
	return strings.Join(codes, ",")
}

// streamOpening opens a stream, reads up to the end of its first event
// and leaves: a stream's answer as far as a contract can check it.
func (h *harness) streamOpening(t *testing.T, tok, target string) (response, http.Header) {
	t.Helper()
	hdr := h.signedHeader(tok, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, h.srv.URL+target, nil)
	req.Header = hdr.Clone()
	res, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var raw []byte
	br := bufio.NewReader(res.Body)
	for res.StatusCode == http.StatusOK {
		line, err := br.ReadString('\n')
		raw = append(raw, line...)
		if err != nil || (line == "\n" && strings.Contains(string(raw), "event:")) {
			break
		}
	}
	if res.StatusCode != http.StatusOK {
		raw, _ = io.ReadAll(res.Body)
	}
	return response{status: res.StatusCode, header: res.Header, raw: raw}, hdr
}
