package stream

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"mdqs/internal/market"
)

var t0 = time.Date(2026, 11, 23, 10, 0, 0, 0, market.Shanghai())

func newHub(cfg Config) *Hub {
	if cfg.Clock == nil {
		cfg.Clock = market.NewFixedClock(t0)
	}
	return NewHub(cfg)
}

// drain polls everything a subscription has now.
func drain(s *Sub) []Event {
	var out []Event
	for {
		ev, ok := s.Poll()
		if !ok {
			return out
		}
		out = append(out, ev)
	}
}

func names(evs []Event) string {
	var b []string
	for _, e := range evs {
		b = append(b, e.Name())
	}
	return strings.Join(b, ",")
}

func TestPositionRoundTrip(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Position
		bad  bool
	}{
		{"1795400460000-1795399200000001", Position{1795400460000, 1795399200000001}, false},
		{"0-5", Position{0, 5}, false},
		{"1795400460000", Position{Movement: 1795400460000}, false}, // a next_since
		{"", Position{}, true},
		{"x-1", Position{}, true},
		{"1-x", Position{}, true},
		{"-1", Position{}, true},
	} {
		got, err := ParsePosition(tt.in)
		if (err != nil) != tt.bad || got != tt.want {
			t.Errorf("ParsePosition(%q) = %v, %v; want %v, bad %v", tt.in, got, err, tt.want, tt.bad)
		}
		if !tt.bad && strings.Contains(tt.in, "-") && got.String() != tt.in {
			t.Errorf("%v.String() = %q, want %q", got, got.String(), tt.in)
		}
	}
}

func TestTopicsAndCodesFilter(t *testing.T) {
	h := newHub(Config{})
	ctx := context.Background()
	maotai, pingan := market.Code{Symbol: "600519", Exchange: market.SH}, market.Code{Symbol: "000001", Exchange: market.SZ}
	quotes, err := h.Subscribe(ctx, Filter{Topics: []Topic{Quote}, Codes: []market.Code{maotai}}, "a")
	if err != nil {
		t.Fatal(err)
	}
	ranks, _ := h.Subscribe(ctx, Filter{Topics: []Topic{Ranking, Movement}}, "a")
	h.Publish(QuoteEvent(pingan, []byte(`{"code":"000001.SZ"}`)))
	h.Publish(QuoteEvent(maotai, []byte(`{"code":"600519.SH"}`)))
	h.Publish(Event{Topic: Ranking, Data: []byte(`{}`)})
	h.Publish(Event{Topic: Movement, ID: 1795400460000, Data: []byte(`{}`)})
	if got := drain(quotes); len(got) != 1 || string(got[0].Data) != `{"code":"600519.SH"}` {
		t.Errorf("quotes of 600519.SH got %q", names(got))
	}
	if got := names(drain(ranks)); got != "ranking,movement" {
		t.Errorf("ranking+movement got %q", got)
	}
}

func TestIDsIncreaseAcrossTopicsAndRestarts(t *testing.T) {
	clock := market.NewFixedClock(t0)
	h := newHub(Config{Clock: clock})
	a := h.Publish(Event{Topic: Ranking})
	b := h.Publish(Event{Topic: Quote})
	c := h.Publish(Event{Topic: Alert})
	if !(a.ID < b.ID && b.ID < c.ID) || a.ID <= t0.UnixMicro() {
		t.Fatalf("ids %d %d %d: want increasing, after the start %d", a.ID, b.ID, c.ID, t0.UnixMicro())
	}
	clock.Advance(time.Second) // a restart later: its ids are after the old ones
	if d := newHub(Config{Clock: clock}).Publish(Event{Topic: Ranking}); d.ID <= c.ID {
		t.Fatalf("the next process's first id %d is not after %d", d.ID, c.ID)
	}
}

func TestResumeFromTheRing(t *testing.T) {
	h := newHub(Config{Ring: 4})
	ctx := context.Background()
	var ids []int64
	for i := range 6 {
		ids = append(ids, h.Publish(Event{Topic: Ranking, Data: []byte(fmt.Sprint(i))}).ID)
	}
	// After the 4th: the ring (the last 4) still holds the 5th and 6th.
	s, _ := h.Subscribe(ctx, Filter{Topics: []Topic{Ranking}, Resume: &Position{Seq: ids[3]}}, "a")
	if got := drain(s); len(got) != 2 || got[0].ID != ids[4] || got[1].ID != ids[5] {
		t.Fatalf("resume after %d got %v", ids[3], got)
	}
	// After the 1st: the 2nd is gone, so resync.
	s, _ = h.Subscribe(ctx, Filter{Topics: []Topic{Ranking}, Resume: &Position{Seq: ids[0]}}, "b")
	if got := drain(s); names(got) != "resync" || !strings.Contains(string(got[0].Data), `"topics":["ranking"]`) {
		t.Fatalf("resume after a lost id got %q %v", names(got), got)
	}
	// An id from before this hub started (an earlier process): resync.
	s, _ = h.Subscribe(ctx, Filter{Topics: []Topic{Quote}, Resume: &Position{Seq: t0.UnixMicro() - 5}}, "c")
	if got := names(drain(s)); got != "resync" {
		t.Fatalf("resume from an earlier process got %q", got)
	}
	// Nothing missed: nothing replayed, and the stream carries on.
	s, _ = h.Subscribe(ctx, Filter{Topics: []Topic{Ranking}, Resume: &Position{Seq: ids[5]}}, "d")
	if got := drain(s); len(got) != 0 {
		t.Fatalf("resume at the last id got %v", got)
	}
	h.Publish(Event{Topic: Ranking})
	if got := names(drain(s)); got != "ranking" {
		t.Fatalf("then live: %q", got)
	}
}

// A subscriber that never reads is dropped when its queue fills, with a
// final resync, holding no more than its cap meanwhile; the publisher
// never waits and the others carry on.
func TestSlowConsumerIsDropped(t *testing.T) {
	const capacity = 16
	h := newHub(Config{Queue: capacity})
	ctx := context.Background()
	slow, _ := h.Subscribe(ctx, Filter{Topics: []Topic{Quote}}, "slow")
	fast, _ := h.Subscribe(ctx, Filter{Topics: []Topic{Quote}}, "fast")
	got := 0
	for i := range 10_000 {
		h.Publish(QuoteEvent(market.Code{Symbol: "600519", Exchange: market.SH}, []byte(`{}`)))
		if q := slow.Queued(); q > capacity {
			t.Fatalf("after %d events the slow queue holds %d, over its cap %d", i+1, q, capacity)
		}
		got += len(drain(fast))
	}
	if got != 10_000 {
		t.Errorf("the reading subscriber got %d of 10000", got)
	}
	if hw := slow.HighWater(); hw != capacity {
		t.Errorf("high water %d, want the cap %d", hw, capacity)
	}
	if h.Subscribers() != 1 {
		t.Errorf("%d subscribers after the drop, want 1", h.Subscribers())
	}
	evs := drain(slow)
	last := evs[len(evs)-1]
	if last.Name() != TypeResync || !strings.Contains(string(last.Data), `"final":true`) || !slow.Ended() {
		t.Fatalf("the slow subscriber's last event is %s %s (ended %v)", last.Name(), last.Data, slow.Ended())
	}
	if len(evs) != 1 {
		t.Errorf("a dropped subscriber kept %d events besides its resync", len(evs)-1)
	}
	// Its client may open a new stream: the dropped one no longer counts.
	if _, err := h.Subscribe(ctx, Filter{Topics: []Topic{Quote}}, "slow"); err != nil {
		t.Fatal(err)
	}
}

func TestStreamsPerClient(t *testing.T) {
	h := newHub(Config{MaxPerClient: 2})
	ctx, cancel := context.WithCancel(context.Background())
	a, _ := h.Subscribe(ctx, Filter{Topics: []Topic{Ranking}}, "c")
	if _, err := h.Subscribe(context.Background(), Filter{Topics: []Topic{Ranking}}, "c"); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Subscribe(context.Background(), Filter{Topics: []Topic{Ranking}}, "c"); !errors.Is(err, ErrTooMany) {
		t.Fatalf("third stream: %v, want ErrTooMany", err)
	}
	if _, err := h.Subscribe(context.Background(), Filter{Topics: []Topic{Ranking}}, "other"); err != nil {
		t.Fatalf("another client: %v", err)
	}
	a.Close()
	a.Close()
	if _, err := h.Subscribe(context.Background(), Filter{Topics: []Topic{Ranking}}, "c"); err != nil {
		t.Fatalf("after a close: %v", err)
	}
	cancel() // ctx's subscription is already closed: nothing changes
	if _, err := h.Subscribe(context.Background(), Filter{Topics: []Topic{Ranking}}, "c"); !errors.Is(err, ErrTooMany) {
		t.Fatalf("over the cap again: %v", err)
	}
}

func TestContextEndsTheSubscription(t *testing.T) {
	h := newHub(Config{})
	ctx, cancel := context.WithCancel(context.Background())
	if _, err := h.Subscribe(ctx, Filter{Topics: []Topic{Ranking}}, "c"); err != nil {
		t.Fatal(err)
	}
	cancel()
	deadline := time.Now().Add(5 * time.Second)
	for h.Subscribers() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the subscription outlived its context")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestCloseEndsEveryStream(t *testing.T) {
	h := newHub(Config{})
	s, _ := h.Subscribe(context.Background(), Filter{Topics: []Topic{Ranking}}, "c")
	h.Publish(Event{Topic: Ranking})
	h.Close()
	select {
	case <-s.Ready():
	default:
		t.Fatal("not signalled")
	}
	evs := drain(s)
	if names(evs) != "end" || !strings.Contains(string(evs[0].Data), "shutting down") || !s.Ended() {
		t.Fatalf("after Close: %q %v", names(evs), evs)
	}
	if _, err := h.Subscribe(context.Background(), Filter{Topics: []Topic{Ranking}}, "c"); !errors.Is(err, ErrClosed) {
		t.Fatalf("subscribe after Close: %v", err)
	}
	h.Publish(Event{Topic: Ranking}) // no one to deliver to, no panic
}

// Publishers and readers at once, for the race detector: every reader gets
// every event in order, or is dropped with a final resync.
func TestConcurrentPublishAndRead(t *testing.T) {
	h := newHub(Config{Queue: 64})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const readers, events = 8, 2000
	var wg sync.WaitGroup
	for r := range readers {
		s, err := h.Subscribe(ctx, Filter{Topics: []Topic{Ranking, Quote}}, fmt.Sprint(r))
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			var last int64
			n := 0
			for n < events {
				select {
				case <-s.Ready():
				case <-time.After(10 * time.Second):
					t.Errorf("reader %d stuck after %d events", r, n)
					return
				}
				for {
					ev, ok := s.Poll()
					if !ok {
						break
					}
					if s.Ended() {
						return // dropped: allowed, it ends with its resync
					}
					if ev.ID <= last {
						t.Errorf("reader %d: id %d after %d", r, ev.ID, last)
					}
					last = ev.ID
					n++
				}
			}
		})
	}
	var pub sync.WaitGroup
	for p := range 2 {
		pub.Go(func() {
			for range events / 2 {
				h.Publish(Event{Topic: []Topic{Ranking, Quote}[p]})
			}
		})
	}
	pub.Wait()
	wg.Wait()
}

// A publisher that pays an upstream call asks whether anybody listens.
func TestWantsSaysWhetherATopicHasListeners(t *testing.T) {
	h := newHub(Config{})
	if h.Wants(Quote) {
		t.Fatal("an empty hub wants quotes")
	}
	ctx, cancel := context.WithCancel(context.Background())
	if _, err := h.Subscribe(ctx, Filter{Topics: []Topic{Ranking}}, "c"); err != nil {
		t.Fatal(err)
	}
	if h.Wants(Quote) || !h.Wants(Ranking) {
		t.Fatalf("a ranking subscriber: wants quote %v, ranking %v", h.Wants(Quote), h.Wants(Ranking))
	}
	if _, err := h.Subscribe(ctx, Filter{Topics: []Topic{Quote}}, "c"); err != nil {
		t.Fatal(err)
	}
	if !h.Wants(Quote) {
		t.Fatal("a quote subscriber is not wanted")
	}
	cancel()
	deadline := time.Now().Add(5 * time.Second)
	for h.Wants(Quote) && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if h.Wants(Quote) {
		t.Fatal("quotes still wanted after every subscriber left")
	}
}
