package stream

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"mdqs/internal/market"
)

// sendTo is a relay that records what Publish hands it.
type sendTo struct{ got []Event }

func (r *sendTo) Send(ev Event) { r.got = append(r.got, ev) }

// With a relay, Publish fans nothing out itself: the event goes to the
// relay, and only Deliver (the relay's copy) reaches the subscribers,
// with the relay's id, which the hub's sequence then stands at.
func TestRelayedEventsKeepTheirIDs(t *testing.T) {
	h := newHub(Config{})
	r := &sendTo{}
	h.SetRelay(r)
	s, _ := h.Subscribe(context.Background(), Filter{Topics: []Topic{Ranking, Movement}}, "a")
	h.Publish(Event{Topic: Ranking, Data: []byte(`{"n":1}`)})
	if got := drain(s); len(got) != 0 || len(r.got) != 1 || string(r.got[0].Data) != `{"n":1}` {
		t.Fatalf("Publish with a relay: subscriber got %v, relay got %v; want the relay alone", got, r.got)
	}
	far := t0.UnixMicro() + 5_000_000 // the publisher's clock is ahead of this hub's
	h.Deliver(Event{Topic: Ranking, ID: far, Data: []byte(`{"n":1}`)})
	h.Deliver(Event{Topic: Movement, ID: 1795400460000, Data: []byte(`{}`)})
	got := drain(s)
	if len(got) != 2 || got[0].ID != far || got[1].ID != 1795400460000 {
		t.Fatalf("delivered %v; want the ranking with id %d, then the movement with its cursor", got, far)
	}
	if n := h.Next(); n != far+1 {
		t.Errorf("Next() = %d after delivering %d; want %d", n, far, far+1)
	}
	// A resume from the delivered id on this hub replays nothing; from
	// just before it, the event.
	s2, _ := h.Subscribe(context.Background(), Filter{Topics: []Topic{Ranking}, Resume: &Position{Seq: far - 1}}, "b")
	if got := drain(s2); len(got) != 1 || got[0].ID != far {
		t.Fatalf("resume before the delivered id: %v", got)
	}
	if s2.Start != far-1 {
		t.Errorf("Start = %d, want %d", s2.Start, far-1)
	}
}

// Restore fills the rings from the relay's recent events, so a stream
// resumed on a restarted instance gets what it missed from the others,
// and a position from before the first restored event is a resync.
func TestRestoreFillsTheRings(t *testing.T) {
	h := newHub(Config{Ring: 2})
	base := t0.UnixMicro() + 10_000_000 // ids of another instance's clock
	events := []Event{
		{Topic: Ranking, ID: base + 1, Data: []byte("r1")},
		{Topic: Quote, ID: base + 2, Data: []byte("q1"), Codes: []market.Code{{Symbol: "600519", Exchange: market.SH}}},
		{Topic: Ranking, ID: base + 3, Data: []byte("r2")},
		{Topic: Ranking, ID: base + 4, Data: []byte("r3")},
	}
	h.Restore(events, base+4)
	for i, tt := range []struct {
		from int64
		want string // the data replayed, or "resync"
	}{
		{base + 2, "r2,r3"},
		{base + 3, "r3"},
		{base + 4, ""},
		{base + 1, "r2,r3"},  // r1 left the ring of 2, but what came after it is kept
		{base, "resync"},     // before what the relay holds: unknown
		{base - 1, "resync"}, // long before
	} {
		s, err := h.Subscribe(context.Background(), Filter{Topics: []Topic{Ranking}, Resume: &Position{Seq: tt.from}}, fmt.Sprint("c", i))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, ev := range drain(s) {
			if ev.Type == TypeResync {
				got = append(got, "resync")
			} else {
				got = append(got, string(ev.Data))
			}
		}
		if strings.Join(got, ",") != tt.want {
			t.Errorf("resume from %d after Restore: %q, want %q", tt.from-base, strings.Join(got, ","), tt.want)
		}
	}
	if n := h.Next(); n != base+5 {
		t.Errorf("Next() = %d after Restore, want %d", n-base, 5)
	}
}

// Gap sends every open stream a resync naming its topics, and a resume
// from before the gap is a resync too.
func TestGapResyncsTheStreams(t *testing.T) {
	h := newHub(Config{})
	ranks, _ := h.Subscribe(context.Background(), Filter{Topics: []Topic{Ranking, Movement}}, "a")
	id := t0.UnixMicro() + 100
	h.Deliver(Event{Topic: Ranking, ID: id})
	drain(ranks)
	next := id + 1000 // the first event after the gap; the leader's own had ids between
	h.Gap("the relay lost events while Redis was away", next)
	got := drain(ranks)
	if len(got) != 1 || got[0].Type != TypeResync || !strings.Contains(string(got[0].Data), `"topics":["ranking","movement"]`) ||
		!strings.Contains(string(got[0].Data), `"final":false`) {
		t.Fatalf("after a gap the stream got %v; want one resync of ranking and movement, not final", got)
	}
	s, _ := h.Subscribe(context.Background(), Filter{Topics: []Topic{Ranking}, Resume: &Position{Seq: id}}, "b")
	if got := names(drain(s)); got != "resync" {
		t.Fatalf("resume from the last id before the gap: %q; want resync", got)
	}
	// A stream opened after the gap resumes from its start with nothing lost.
	fresh, _ := h.Subscribe(context.Background(), Filter{Topics: []Topic{Ranking}}, "c")
	h.Deliver(Event{Topic: Ranking, ID: next})
	s, _ = h.Subscribe(context.Background(), Filter{Topics: []Topic{Ranking}, Resume: &Position{Seq: fresh.Start}}, "d")
	if got := drain(s); len(got) != 1 || got[0].ID != next {
		t.Fatalf("resume from a start after the gap: %v", got)
	}
	// A client of the leader, which saw the leader's own events of the
	// gap, moving over: the events after its id are not all here.
	s, _ = h.Subscribe(context.Background(), Filter{Topics: []Topic{Ranking}, Resume: &Position{Seq: id + 500}}, "e")
	if got := names(drain(s)); got != "resync" {
		t.Fatalf("resume from an id inside the gap: %q; want resync", got)
	}
}

func TestWantedCodes(t *testing.T) {
	h := newHub(Config{})
	maotai, pingan := market.Code{Symbol: "600519", Exchange: market.SH}, market.Code{Symbol: "000001", Exchange: market.SZ}
	a, _ := h.Subscribe(context.Background(), Filter{Topics: []Topic{Quote}, Codes: []market.Code{maotai, pingan}}, "a")
	h.Subscribe(context.Background(), Filter{Topics: []Topic{Quote}, Codes: []market.Code{maotai}}, "b")
	h.Subscribe(context.Background(), Filter{Topics: []Topic{Alert}, Codes: []market.Code{{Symbol: "600000", Exchange: market.SH}}}, "c")
	got := h.WantedCodes(Quote)
	slices.SortFunc(got, func(a, b market.Code) int { return strings.Compare(a.String(), b.String()) })
	if len(got) != 2 || got[0] != pingan || got[1] != maotai {
		t.Fatalf("WantedCodes(quote) = %v, want 000001.SZ and 600519.SH", got)
	}
	a.Close()
	if got := h.WantedCodes(Quote); len(got) != 1 || got[0] != maotai {
		t.Fatalf("after a's stream closed: %v, want 600519.SH", got)
	}
}
