package demo

import (
	"context"
	"reflect"
	"testing"
	"time"

	"mdqs/internal/market"
)

// Every snapshot of a session replay is the snapshot of its instant, so a
// timeline built from the replay is the one a collector polling every
// minute would have recorded.
func TestSessionSectorsAreTheSnapshotsOfEachMinute(t *testing.T) {
	d := market.Day(20261120)
	m, _ := newMarket(t, smallConfig(3), at(20261123, 10, 0, 0))
	ctx := context.Background()
	ind, con, err := m.SessionSectors(ctx, d, at(20261123, 10, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	replayed := map[market.SectorKind][]market.SectorSnapshot{market.Industry: ind, market.Concept: con}
	kinds := []market.SectorKind{market.Industry, market.Concept}
	for _, kind := range kinds {
		snaps := replayed[kind]
		if len(snaps) != 241 {
			t.Fatalf("%s: %d snapshots, want the auction and 240 minutes", kind, len(snaps))
		}
		if !snaps[0].At.Equal(at(d, 9, 25, 0)) || !snaps[1].At.Equal(at(d, 9, 31, 0)) || !snaps[121].At.Equal(at(d, 13, 1, 0)) || !snaps[240].At.Equal(at(d, 15, 0, 0)) {
			t.Fatalf("%s: instants %v %v %v %v", kind, snaps[0].At, snaps[1].At, snaps[121].At, snaps[240].At)
		}
	}
	// Minute by minute, both families: SectorsAt makes the market's
	// snapshot of a minute once and keeps it for the second family (its
	// cache holds a few), where one family's 241 minutes, then the
	// other's, made each twice.
	for k := range 241 {
		for _, kind := range kinds {
			s := replayed[kind][k]
			want := sectorsAt(t, m, kind, s.At)
			if !reflect.DeepEqual(s.Sectors, want.Sectors) || !s.At.Equal(want.At) {
				t.Fatalf("%s minute %d (%v) differs from SectorsAt", kind, k, s.At)
			}
		}
	}
	// Today, only what has happened by until.
	today := market.Day(20261123)
	snaps, con, err := m.SessionSectors(ctx, today, at(today, 9, 40, 30))
	if err != nil || len(snaps) != 11 || len(con) != 11 || !snaps[10].At.Equal(at(today, 9, 40, 0)) {
		t.Fatalf("today until 09:40:30: %d snapshots, %v", len(snaps), err)
	}
	if snaps, _, err := m.SessionSectors(ctx, today, at(today, 9, 0, 0)); err != nil || len(snaps) != 0 {
		t.Fatalf("today before the auction: %d snapshots, %v", len(snaps), err)
	}
	if snaps, _, err := m.SessionSectors(ctx, 20261121, at(today, 9, 0, 0)); err != nil || len(snaps) != 0 {
		t.Fatalf("a Saturday: %d snapshots, %v", len(snaps), err)
	}
	if _, _, err := m.SessionSectors(ctx, 20000103, at(today, 9, 0, 0)); market.KindOf(err) != market.KindNotFound {
		t.Fatalf("a day before the history: %v", err)
	}
}

// One replay of a whole session (both families) against 241 snapshots of
// the concepts alone, at real scale.
func BenchmarkSessionReplay(b *testing.B) {
	d := market.Day(20261120)
	for _, tt := range []struct {
		name   string
		replay bool
	}{{"session_sectors", true}, {"sectors_at_each_minute", false}} {
		b.Run(tt.name, func(b *testing.B) {
			m, _ := newMarket(b, DefaultConfig(), at(20261123, 16, 0, 0))
			ctx := context.Background()
			for b.Loop() {
				if tt.replay {
					if _, _, err := m.SessionSectors(ctx, d, at(20261123, 16, 0, 0)); err != nil {
						b.Fatal(err)
					}
					continue
				}
				for k := 0; k <= 240; k++ {
					ts := at(d, 9, 25, 0)
					if k > 0 {
						ts = time.Unix(barEnd(d, k), 0)
					}
					if _, err := m.SectorsAt(ctx, market.Concept, ts); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
