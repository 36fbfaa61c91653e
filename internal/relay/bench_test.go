package relay

import (
	"context"
	"testing"
	"time"

	"mdqs/internal/market"
	"mdqs/internal/sharedstate/redistest"
	"mdqs/internal/stream"
)

// BenchmarkPublishToStream is one event's way from Publish to a
// subscriber's Poll, one event at a time: on a lone server's hub (local,
// the baseline) and through the relay, from a leader's hub to a
// follower's (append to Redis, the follower's blocked read wakes, Deliver).
//
//	go test ./internal/relay -run '^$' -bench PublishToStream -benchtime 2000x   # with MDQS_TEST_REDIS set
func BenchmarkPublishToStream(b *testing.B) {
	data := []byte(`{"industry":[],"concept":[],"updated_ms":1795399200000}`)
	run := func(b *testing.B, pub, sub *stream.Hub) {
		s, err := sub.Subscribe(context.Background(), stream.Filter{Topics: []stream.Topic{stream.Ranking}}, "bench")
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			pub.Publish(stream.Event{Topic: stream.Ranking, Data: data})
			for {
				if _, ok := s.Poll(); ok {
					break
				}
				select {
				case <-s.Ready():
				case <-time.After(5 * time.Second):
					b.Fatal("no event within 5 s")
				}
			}
		}
	}
	b.Run("local", func(b *testing.B) {
		h := stream.NewHub(stream.Config{Clock: market.SystemClock{}})
		defer h.Close()
		run(b, h, h)
	})
	b.Run("relay", func(b *testing.B) {
		url, prefix := redistest.URL(b), redistest.Prefix(b)
		leader := join(b, url, prefix, "a", market.SystemClock{}, true)
		follower := join(b, url, prefix, "b", market.SystemClock{}, false)
		run(b, leader.hub, follower.hub)
	})
}
