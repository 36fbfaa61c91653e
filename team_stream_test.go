package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"mdqs/internal/market"
	"mdqs/internal/stream"
	"mdqs/internal/upstream/upstreamtest"
)

// Issue 36 point 2: a stream's events came from the instance it was
// connected to, so a client of a follower missed what the leader built,
// and a follower's quote streams got nothing (the quote refresh asked the
// leader's own streams only). Now the leader's events go through Redis
// to every instance with the same ids: three instances, a client of a
// follower receives every ranking, movement, quote and alert event the
// leader's own client receives, exactly once, with the same ids and data;
// its instance killed (-9), it reconnects to the third with Last-Event-ID
// and gets the rest, with no gap and no duplicate.
func TestTeamStreamsRelayEveryEvent(t *testing.T) {
	redis, target, prefix, clock, spec := newTeamEnv(t, "starts three server processes on PostgreSQL and Redis (about 20 s)")
	var ins []*teamInstance
	for _, name := range []string{"a", "b", "c"} {
		up := newMovingUpstream(t, name, teamStart)
		ins = append(ins, startTeamInstance(t, name, teamConfig(name, up.srv.URL, redis, prefix), target, spec, up, clock))
	}
	var who []string
	if !eventually(5*time.Second, func() bool { who = leaders(t, ins); return len(who) == 1 }) {
		t.Fatalf("leaders %v; want exactly one", who)
	}
	var leader *teamInstance
	var followers []*teamInstance
	for _, in := range ins {
		if in.name == who[0] {
			leader = in
		} else {
			followers = append(followers, in)
		}
	}
	f, g := followers[0], followers[1]
	t.Logf("%s leads; the client streams from %s, then from %s", leader.name, f.name, g.name)
	const path = "/v1/api/stream?topics=ranking,movements,quotes,alerts&codes=600519.SH"

	// The follower's stream first, alone: the quotes it wants are
	// refreshed by the leader and relayed to it.
	onF := openTeamStream(t, f, path, "")
	if !eventually(10*time.Second, func() bool { return onF.count("quote") > 0 }) {
		t.Fatalf("the stream on follower %s got no quote in 10 s (nobody else listens for quotes): %s", f.name, onF.summary())
	}
	onL := openTeamStream(t, leader, path, "")
	alertOn(t, leader, "600519.SH")
	if !eventually(15*time.Second, func() bool {
		return onF.count("alert") > 0 && onF.count("movement") > 0 && onL.count("alert") > 0 && onF.count("ranking") > 2
	}) {
		t.Fatalf("within 15 s, on %s: %s; on %s: %s; want rankings, movements, quotes and an alert on both", f.name, onF.summary(), leader.name, onL.summary())
	}

	f.kill(t)
	onF.wait()
	last := onF.lastID()
	// While the client is away the leader goes on: another alert, and
	// the collections' rankings and movements.
	alertOn(t, g, "600519.SH")
	mark := onL.count("")
	if !eventually(10*time.Second, func() bool { return onL.count("alert") > 1 && onL.count("") > mark+3 }) {
		t.Fatalf("the leader's stream got no second alert in 10 s: %s", onL.summary())
	}
	onG := openTeamStream(t, g, path, last)
	// The comparison ends at the second ranking the leader's stream got
	// after the resume began, once the resumed stream has it too: a
	// collection later than every movement the resume read from the store.
	mark = onL.count("ranking")
	var end int64
	if !eventually(10*time.Second, func() bool {
		if rs := onL.seqsOf("ranking"); len(rs) > mark+1 {
			end = rs[mark+1]
			return onG.hasSeq(end)
		}
		return false
	}) {
		t.Fatalf("the resumed stream never got the leader's second ranking after the resume (%d): on %s %s, on %s %s",
			end, leader.name, onL.summary(), g.name, onG.summary())
	}
	onG.close()
	onL.close()

	want := onL.events()
	got := append(onF.events(), onG.events()...)
	// The comparison starts at the first event the follower's stream had
	// in common with the leader's (the follower's stream opened first),
	// and ends at the ranking `end` on both.
	start := -1
	for i, e := range got {
		if indexOf(want, e.key()) >= 0 {
			start = i
			break
		}
	}
	if start < 0 {
		t.Fatalf("no event in common: %s vs %s", onF.summary(), onL.summary())
	}
	got = cutAt(got[start:], end)
	want = cutAt(want[indexOf(want, got[0].key()):], end)
	seen := map[string]int{}
	kinds := map[string]int{}
	for _, e := range got {
		if e.name == stream.TypeResync {
			t.Errorf("a resync reached the client: %s", e.data)
		}
		if seen[e.key()]++; seen[e.key()] == 2 {
			t.Errorf("delivered twice: %s", e)
		}
		kinds[e.name]++
	}
	wanted := map[string]bool{}
	for _, e := range want {
		wanted[e.key()] = true
		if seen[e.key()] == 0 {
			t.Errorf("the leader's stream had %s; the follower's and the resumed stream did not", e)
		}
	}
	for _, e := range got {
		if !wanted[e.key()] {
			t.Errorf("the client got %s, which the leader's stream did not", e)
		}
	}
	for _, k := range []string{"ranking", "movement", "quote", "alert"} {
		if kinds[k] == 0 {
			t.Errorf("no %s event compared (%v)", k, kinds)
		}
	}
	// The resumed leg has every kind too: what the leader published while
	// the client was away (the second alert among it) and after.
	resumed := map[string]int{}
	for _, e := range cutAt(onG.events(), end) {
		resumed[e.name]++
	}
	for _, k := range []string{"ranking", "movement", "quote", "alert"} {
		if resumed[k] == 0 {
			t.Errorf("no %s event on the resumed stream (%v)", k, resumed)
		}
	}
	// Each leg in order: ids grow within each topic's clock.
	for _, leg := range [][]teamEvent{onF.events(), onG.events()} {
		var seq, mv int64
		for _, e := range leg {
			switch id := e.own(); {
			case e.name == "movement" && id <= mv, e.name != "movement" && id <= seq:
				t.Errorf("%s out of order (after seq %d, movement %d)", e, seq, mv)
			case e.name == "movement":
				mv = id
			default:
				seq = id
			}
		}
	}
	t.Logf("compared %d events (%v) from %s, then %s resumed from %s (%v), with the leader %s's", len(got), kinds, f.name, g.name, last, resumed, leader.name)
}

// alertOn creates an alert that fires at the next evaluation, once.
func alertOn(t *testing.T, in *teamInstance, code string) {
	t.Helper()
	resp := do(t, in.demo, "POST", "/v1/api/alerts", map[string]any{"expression": "pct > -100", "universe": map[string]any{"codes": []string{code}}, "cooldown": "1h"})
	if resp.Status != http.StatusOK {
		t.Fatalf("create an alert on %s: HTTP %d %s", in.name, resp.Status, resp.Body)
	}
}

// newMovingUpstream is a push2 whose market moves at every request: a
// new sector of each family crosses the movement threshold at each
// collection, and every stock's price changes at each quote refresh.
func newMovingUpstream(t *testing.T, name string, at time.Time) *teamUpstream {
	u := &teamUpstream{name: name, sectors: upstreamtest.NewPush2(t), at: at, hold: &teamHold{}}
	var mu sync.Mutex
	n := 0
	u.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		k := n
		mu.Unlock()
		if strings.Contains(r.URL.Query().Get("fs"), "m:90") {
			for kind, list := range map[market.SectorKind][]market.Sector{
				market.Industry: upstreamtest.Sectors("行业", 60), market.Concept: upstreamtest.Sectors("概念", 80)} {
				for i := range list {
					list[i].Pct = 0.1
				}
				list[k%len(list)].Pct = 2.5
				list[0].Price += float64(k) / 100
				u.sectors.SetSectors(kind, at, list)
			}
			u.sectors.Config.Handler.ServeHTTP(w, r)
			return
		}
		if r.URL.Query().Get("pn") != "1" {
			fmt.Fprint(w, `{"rc":0,"rt":6,"svr":1,"lt":1,"full":1,"dlmkts":"","data":null}`)
			return
		}
		rows := make([]string, len(teamStocks))
		for i, s := range teamStocks {
			price := s.price + float64(k)/100
			rows[i] = fmt.Sprintf(`{"f2":%g,"f3":%g,"f4":0.1,"f5":12000,"f6":1.5e7,"f7":2.1,"f8":0.8,"f9":12.5,"f10":1.1,"f12":%q,"f13":%d,`+
				`"f14":%q,"f15":%g,"f16":%g,"f17":%g,"f18":%g,"f20":3e11,"f21":2e11,"f22":0.1,"f23":1.2,"f62":1e6,"f124":%d,"f184":0.7}`,
				price, s.pct, s.symbol, s.market, s.name, price*1.01, price*0.98, price*0.99, s.price/(1+s.pct/100), at.Unix())
		}
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		fmt.Fprintf(w, `{"rc":0,"rt":6,"svr":1,"lt":1,"full":1,"dlmkts":"","data":{"total":%d,"diff":[%s]}}`, len(rows), strings.Join(rows, ","))
	}))
	t.Cleanup(u.srv.Close)
	return u
}

// teamEvent is one Server-Sent Event a client read.
type teamEvent struct{ id, name, data string }

func (e teamEvent) String() string { return fmt.Sprintf("%s %s %.80s", e.name, e.id, e.data) }

// own is the event's own id: a movement's cursor, the others' sequence.
func (e teamEvent) own() int64 {
	p, _ := stream.ParsePosition(e.id)
	if e.name == "movement" {
		return p.Movement
	}
	return p.Seq
}

// key identifies an event across streams: its name, own id and data.
func (e teamEvent) key() string { return fmt.Sprintf("%s/%d/%s", e.name, e.own(), e.data) }

func indexOf(evs []teamEvent, key string) int {
	for i, e := range evs {
		if e.key() == key {
			return i
		}
	}
	return -1
}

// cutAt is evs up to and including the ranking of sequence seq.
func cutAt(evs []teamEvent, seq int64) []teamEvent {
	for i, e := range evs {
		if e.name == "ranking" && e.own() == seq {
			return evs[:i+1]
		}
	}
	return evs
}

// teamStream is a client's open stream on one instance, read in the
// background.
type teamStream struct {
	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	evs    []teamEvent // without the open event
	status int
	err    error
}

func openTeamStream(t *testing.T, in *teamInstance, path, lastID string) *teamStream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &teamStream{cancel: cancel, done: make(chan struct{})}
	opened := make(chan struct{})
	var h http.Header
	if lastID != "" {
		h = http.Header{"Last-Event-ID": {lastID}}
	}
	go func() {
		defer close(s.done)
		var cur teamEvent
		resp, err := in.demo.Stream(ctx, path, h, func(line string) error {
			switch k, v, _ := strings.Cut(line, ": "); {
			case line == "":
				if cur.name == "open" {
					close(opened)
				} else if cur.name != "" {
					s.mu.Lock()
					s.evs = append(s.evs, cur)
					s.mu.Unlock()
				}
				cur = teamEvent{}
			case k == "id":
				cur.id = v
			case k == "event":
				cur.name = v
			case k == "data":
				cur.data += v
			}
			return nil
		})
		s.mu.Lock()
		s.err = err
		if resp != nil {
			s.status = resp.Status
		}
		s.mu.Unlock()
	}()
	t.Cleanup(s.close)
	select {
	case <-opened:
	case <-s.done:
		t.Fatalf("the stream on %s ended before it opened: HTTP %d, %v", in.name, s.status, s.err)
	case <-time.After(10 * time.Second):
		t.Fatalf("the stream on %s did not open in 10 s", in.name)
	}
	return s
}

func (s *teamStream) close() { s.cancel(); <-s.done }

// wait waits for the stream to end by itself (its instance was killed).
func (s *teamStream) wait() {
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		s.cancel()
		<-s.done
	}
}

func (s *teamStream) events() []teamEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]teamEvent(nil), s.evs...)
}

// count is the number of events named name ("": all).
func (s *teamStream) count(name string) int {
	n := 0
	for _, e := range s.events() {
		if name == "" || e.name == name {
			n++
		}
	}
	return n
}

func (s *teamStream) lastID() string {
	evs := s.events()
	if len(evs) == 0 {
		return ""
	}
	return evs[len(evs)-1].id
}

// seqsOf is the own ids of the events named name, in order.
func (s *teamStream) seqsOf(name string) []int64 {
	var out []int64
	for _, e := range s.events() {
		if e.name == name {
			out = append(out, e.own())
		}
	}
	return out
}

func (s *teamStream) hasSeq(seq int64) bool {
	for _, e := range s.events() {
		if e.name != "movement" && e.own() == seq {
			return true
		}
	}
	return false
}

func (s *teamStream) summary() string {
	counts := map[string]int{}
	for _, e := range s.events() {
		counts[e.name]++
	}
	return fmt.Sprint(counts)
}
