package relay

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"mdqs/internal/market"
	"mdqs/internal/sharedstate"
	"mdqs/internal/sharedstate/redistest"
	"mdqs/internal/stream"
)

var (
	t0     = time.Date(2026, 11, 24, 10, 0, 0, 0, market.Shanghai())
	maotai = market.Code{Symbol: "600519", Exchange: market.SH}
	pingan = market.Code{Symbol: "000001", Exchange: market.SZ}
)

// member is one instance: a hub and its relay.
type member struct {
	name   string
	hub    *stream.Hub
	relay  *Relay
	leader atomic.Bool
}

func join(t testing.TB, url, prefix, name string, clock market.Clock, leader bool) *member {
	t.Helper()
	rc, err := sharedstate.Open(context.Background(), url, sharedstate.Options{Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rc.Close)
	m := &member{name: name, hub: stream.NewHub(stream.Config{Clock: clock, MaxPerClient: 100})}
	m.leader.Store(leader)
	m.relay = New(m.hub, rc, Config{Instance: name, Leader: m.leader.Load, Block: 200 * time.Millisecond, Retry: 50 * time.Millisecond, WantTTL: 600 * time.Millisecond})
	m.relay.Start(context.Background())
	t.Cleanup(m.relay.Stop)
	t.Cleanup(m.hub.Close)
	return m
}

func (m *member) sub(t testing.TB, f stream.Filter, client string) *stream.Sub {
	t.Helper()
	s, err := m.hub.Subscribe(context.Background(), f, client)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// collect polls s until it has n events or 5 s pass.
func collect(t *testing.T, s *stream.Sub, n int) []stream.Event {
	t.Helper()
	var out []stream.Event
	deadline := time.After(5 * time.Second)
	for len(out) < n {
		select {
		case <-s.Ready():
			for {
				ev, ok := s.Poll()
				if !ok {
					break
				}
				out = append(out, ev)
			}
		case <-deadline:
			t.Fatalf("got %d events in 5 s, want %d: %s", len(out), n, show(out))
		}
	}
	return out
}

// quiet says s gets nothing more within d.
func quiet(t *testing.T, s *stream.Sub, d time.Duration, what string) {
	t.Helper()
	select {
	case <-s.Ready():
		if ev, ok := s.Poll(); ok {
			t.Errorf("%s: got %s %s, want nothing", what, ev.Name(), ev.Data)
		}
	case <-time.After(d):
	}
}

func show(evs []stream.Event) string {
	var b []string
	for _, e := range evs {
		b = append(b, fmt.Sprintf("%s#%d:%s", e.Name(), e.ID, e.Data))
	}
	return strings.Join(b, " ")
}

func all() stream.Filter {
	return stream.Filter{Topics: stream.Topics(), Codes: []market.Code{maotai}}
}

// The leader's events reach every instance's streams in the leader's
// order with the same ids; a follower's own publishes are dropped; a
// quote goes out only when some instance's stream lists its code.
func TestEveryInstanceGetsTheLeadersEvents(t *testing.T) {
	url, prefix := redistest.URL(t), redistest.Prefix(t)
	clock := market.NewFixedClock(t0)
	a := join(t, url, prefix, "a", clock, true)
	b := join(t, url, prefix, "b", market.NewFixedClock(t0.Add(time.Hour)), false) // b's clock is an hour ahead: ids are a's
	sa, sb := a.sub(t, all(), "x"), b.sub(t, all(), "x")
	alert := b.sub(t, stream.Filter{Topics: []stream.Topic{stream.Alert}}, "owner")
	// b's want of 600519.SH reaches Redis within WantTTL/3.
	if !eventually(2*time.Second, func() bool { return a.relay.quoteWanted([]market.Code{maotai}) }) {
		t.Fatal("a never saw b's want of 600519.SH")
	}
	b.hub.Publish(stream.Event{Topic: stream.Ranking, Data: []byte(`"follower's"`)})
	a.hub.Publish(stream.Event{Topic: stream.Ranking, Data: []byte(`"r1"`)})
	a.hub.Publish(stream.Event{Topic: stream.Movement, ID: 1795400460000, Data: []byte(`"m1"`)})
	a.hub.Publish(stream.QuoteEvent(pingan, []byte(`"q-pingan"`))) // nobody lists it
	a.hub.Publish(stream.QuoteEvent(maotai, []byte(`"q-maotai"`)))
	a.hub.Publish(stream.Event{Topic: stream.Alert, Codes: []market.Code{maotai}, Client: "owner", Data: []byte(`"al"`)})
	a.hub.Publish(stream.Event{Topic: stream.Ranking, Data: []byte(`"r2"`)})
	want := `ranking:"r1" movement#1795400460000:"m1" quote:"q-maotai" ranking:"r2"`
	got := map[string][]stream.Event{"a": collect(t, sa, 4), "b": collect(t, sb, 4)}
	for name, evs := range got {
		var b []string
		for _, e := range evs {
			s := e.Name() + ":" + string(e.Data)
			if e.Topic == stream.Movement {
				s = fmt.Sprintf("%s#%d:%s", e.Name(), e.ID, e.Data)
			}
			b = append(b, s)
		}
		if strings.Join(b, " ") != want {
			t.Errorf("%s's stream: %s\nwant %s", name, strings.Join(b, " "), want)
		}
	}
	for i := range got["a"] {
		if got["a"][i].ID != got["b"][i].ID {
			t.Errorf("event %d: id %d on a, %d on b", i, got["a"][i].ID, got["b"][i].ID)
		}
	}
	if r := got["a"][0].ID; r < t0.UnixMicro() || r >= t0.Add(time.Minute).UnixMicro() {
		t.Errorf("the first ranking's id %d is not of the leader's clock (%d)", r, t0.UnixMicro())
	}
	if evs := collect(t, alert, 1); string(evs[0].Data) != `"al"` {
		t.Errorf("the alert's owner on b got %s", show(evs))
	}
	quiet(t, sb, 100*time.Millisecond, "b after the leader's events")
	if st := b.relay.Status(); st.Dropped != 1 || st.Published != 0 || st.Delivered != 5 || !st.Up {
		t.Errorf("b's status %+v: want 1 dropped, 5 delivered, up", st)
	}
	if st := a.relay.Status(); st.Published != 5 || st.Local != 0 {
		t.Errorf("a's status %+v: want 5 published (the quote of 000001.SZ unwanted)", st)
	}
	// A stream resumed on b from a's id of r1 gets r2 (and the quote), as on a.
	from := got["a"][0].ID
	for _, m := range []*member{a, b} {
		s := m.sub(t, stream.Filter{Topics: []stream.Topic{stream.Ranking, stream.Quote}, Codes: []market.Code{maotai}, Resume: &stream.Position{Seq: from}}, "y")
		if evs := collect(t, s, 2); string(evs[0].Data) != `"q-maotai"` || string(evs[1].Data) != `"r2"` || evs[1].ID != got["a"][3].ID {
			t.Errorf("resumed on %s from r1's id: %s", m.name, show(evs))
		}
	}
	// An instance started now reads the recent events into its rings.
	c := join(t, url, prefix, "c", market.NewFixedClock(t0.Add(-time.Hour)), false)
	s := c.sub(t, stream.Filter{Topics: []stream.Topic{stream.Ranking}, Resume: &stream.Position{Seq: from}}, "z")
	if evs := collect(t, s, 1); string(evs[0].Data) != `"r2"` || evs[0].ID != got["a"][3].ID {
		t.Errorf("resumed on a new instance: %s", show(evs))
	}
	a.hub.Publish(stream.Event{Topic: stream.Ranking, Data: []byte(`"r3"`)})
	if evs := collect(t, s, 1); string(evs[0].Data) != `"r3"` {
		t.Errorf("then live on the new instance: %s", show(evs))
	}
}

// A new leader whose clock is behind the old one's: its events still get
// ids after the old leader's, so no stream's position goes back.
func TestNewLeaderBehindTheOldOnesClock(t *testing.T) {
	url, prefix := redistest.URL(t), redistest.Prefix(t)
	a := join(t, url, prefix, "a", market.NewFixedClock(t0.Add(time.Minute)), true)
	b := join(t, url, prefix, "b", market.NewFixedClock(t0), false)
	sb := b.sub(t, stream.Filter{Topics: []stream.Topic{stream.Ranking}}, "x")
	a.hub.Publish(stream.Event{Topic: stream.Ranking, Data: []byte(`1`)})
	first := collect(t, sb, 1)[0]
	a.leader.Store(false)
	b.leader.Store(true)
	b.hub.Publish(stream.Event{Topic: stream.Ranking, Data: []byte(`2`)})
	second := collect(t, sb, 1)[0]
	if second.ID <= first.ID {
		t.Fatalf("the new leader's event has id %d, not after the old one's %d", second.ID, first.ID)
	}
}

// A reader that finds entries missing sends its streams a resync once.
func TestLostEntriesResync(t *testing.T) {
	h := stream.NewHub(stream.Config{Clock: market.NewFixedClock(t0)})
	r := &Relay{hub: h, cfg: Config{Instance: "b"}}
	r.cfg.defaults()
	s, _ := h.Subscribe(context.Background(), stream.Filter{Topics: []stream.Topic{stream.Ranking}}, "x")
	for _, e := range []sharedstate.Entry{
		{ID: 10, Prev: 0, Fields: map[string]string{"t": "ranking", "d": "1", "i": "a"}},
		{ID: 20, Prev: 10, Fields: map[string]string{"t": "ranking", "d": "2", "i": "a"}},
		{ID: 40, Prev: 30, Fields: map[string]string{"t": "ranking", "d": "4", "i": "a"}},           // 30 lost
		{ID: 50, Prev: 40, Fields: map[string]string{"t": "ranking", "d": "5", "i": "a", "g": "1"}}, // a published alone before it
		{ID: 60, Prev: 50, Fields: map[string]string{"t": "ranking", "d": "6", "i": "b", "g": "1"}}, // this instance's own: it had them
	} {
		r.deliver(e)
	}
	var got []string
	for _, ev := range collect(t, s, 7) {
		got = append(got, ev.Name()+":"+string(ev.Data))
	}
	if g := strings.Join(got, " "); !strings.HasPrefix(g, "ranking:1 ranking:2 resync:") || strings.Count(g, "resync") != 2 ||
		!strings.HasSuffix(g, "ranking:5 ranking:6") {
		t.Errorf("got %s; want 1 2 resync 4 resync 5 6", g)
	}
	if st := r.Status(); st.Gaps != 2 || st.Delivered != 5 || st.Last != 60 {
		t.Errorf("status %+v", st)
	}
}

// Redis killed: the leader's events reach its own streams alone, health
// says the relay is down; Redis back (empty): the followers' streams get
// a resync, then the leader's events again.
func TestRedisOutage(t *testing.T) {
	redistest.URL(t) // redis-server is installed; this test runs one it can kill
	rd := redistest.Own(t)
	prefix := "outage:"
	a := join(t, rd.URL(), prefix, "a", market.NewFixedClock(t0), true)
	b := join(t, rd.URL(), prefix, "b", market.NewFixedClock(t0), false)
	sa, sb := a.sub(t, stream.Filter{Topics: []stream.Topic{stream.Ranking}}, "x"), b.sub(t, stream.Filter{Topics: []stream.Topic{stream.Ranking}}, "x")
	a.hub.Publish(stream.Event{Topic: stream.Ranking, Data: []byte(`1`)})
	collect(t, sa, 1)
	collect(t, sb, 1)

	rd.Kill(t)
	if !eventually(3*time.Second, func() bool { return !b.relay.Status().Up }) {
		t.Fatal("b's relay still says up 3 s after Redis was killed")
	}
	a.hub.Publish(stream.Event{Topic: stream.Ranking, Data: []byte(`2`)})
	a.hub.Publish(stream.Event{Topic: stream.Ranking, Data: []byte(`3`)})
	if evs := collect(t, sa, 2); string(evs[0].Data) != "2" || string(evs[1].Data) != "3" {
		t.Errorf("the leader's own stream while Redis is away: %s", show(evs))
	}
	if st := a.relay.Status(); st.Up || st.Local != 2 || st.Degraded == "" || st.LastError == "" {
		t.Errorf("the leader's status while Redis is away: %+v", st)
	}
	quiet(t, sb, 200*time.Millisecond, "b while Redis is away")

	rd.Start(t)
	if !eventually(5*time.Second, func() bool { return a.relay.Status().Up && b.relay.Status().Up }) {
		t.Fatalf("the relays did not see Redis back within 5 s: a %+v, b %+v", a.relay.Status(), b.relay.Status())
	}
	a.hub.Publish(stream.Event{Topic: stream.Ranking, Data: []byte(`4`)})
	defer func() {
		if t.Failed() {
			t.Logf("a %+v\nb %+v", a.relay.Status(), b.relay.Status())
		}
	}()
	evs := collect(t, sb, 2)
	if evs[0].Type != stream.TypeResync || string(evs[1].Data) != "4" {
		t.Errorf("b after Redis came back: %s; want a resync, then 4", show(evs))
	}
	if evs := collect(t, sa, 1); string(evs[0].Data) != "4" {
		t.Errorf("a after Redis came back: %s; want 4 and no resync", show(evs))
	}
	if st := b.relay.Status(); st.Gaps != 1 {
		t.Errorf("b's status after: %+v; want one gap", st)
	}
}

func eventually(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

// An instance that could not read the stream at start begins at its end
// once Redis answers: the streams opened meanwhile get a resync, not a
// flood of old events, then the new ones.
func TestStartWithoutRedisSkipsToTheEnd(t *testing.T) {
	url, prefix := redistest.URL(t), redistest.Prefix(t)
	rc, err := sharedstate.Open(context.Background(), url, sharedstate.Options{Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rc.Close)
	for i := range 3 {
		if _, err := rc.AppendEvent(context.Background(), int64(100+i), map[string]string{"t": "ranking", "d": "old", "i": "a"}); err != nil {
			t.Fatal(err)
		}
	}
	h := stream.NewHub(stream.Config{Clock: market.NewFixedClock(t0)})
	defer h.Close()
	r := New(h, rc, Config{Instance: "b", Leader: func() bool { return false }, Block: 100 * time.Millisecond})
	r.last.Store(-1) // as Start leaves it when Redis did not answer
	s, _ := h.Subscribe(context.Background(), stream.Filter{Topics: []stream.Topic{stream.Ranking}}, "x")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); r.read(ctx) }()
	defer func() { cancel(); <-done }()
	if evs := collect(t, s, 1); evs[0].Type != stream.TypeResync {
		t.Fatalf("first event %s; want a resync", show(evs))
	}
	if _, err := rc.AppendEvent(context.Background(), 200, map[string]string{"t": "ranking", "d": "new", "i": "a"}); err != nil {
		t.Fatal(err)
	}
	if evs := collect(t, s, 1); string(evs[0].Data) != "new" || evs[0].ID != 200 {
		t.Fatalf("then %s; want the new event only", show(evs))
	}
}
