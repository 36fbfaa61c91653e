package db_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/market"
)

func idxCodes(s ...string) []market.Code {
	out := make([]market.Code, len(s))
	for i, c := range s {
		out[i] = market.MustCode(c)
	}
	return out
}

func membersOn(t *testing.T, s *db.Store, index market.Code, day market.Day) string {
	t.Helper()
	ms, err := s.IndexMembersOn(context.Background(), index, day)
	if err != nil {
		t.Fatalf("IndexMembersOn(%v, %v): %v", index, day, err)
	}
	var out []string
	for _, m := range ms {
		out = append(out, m.Code.String()+"@"+m.Since.String())
	}
	return strings.Join(out, " ")
}

func spans(t *testing.T, s *db.Store, index market.Code) string {
	t.Helper()
	sp, err := s.IndexSpans(context.Background(), index)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, x := range sp {
		last := "open"
		if x.Last != 0 {
			last = x.Last.String()
		}
		out = append(out, x.Code.String()+":"+x.First.String()+".."+last)
	}
	slices.Sort(out)
	return strings.Join(out, " ")
}

// Membership accrues as spans: a member seen on consecutive observations
// goes on, one missing from an observation left after the previous one,
// one back later starts a new span; each index is its own timeline.
func TestIndexMembershipSpans(t *testing.T) {
	s := dbtest.Open(t)
	ctx := context.Background()
	hs300, csi500 := market.MustCode("000300.SH"), market.MustCode("000905.SH")
	now := time.Date(2026, 12, 14, 8, 0, 0, 0, time.UTC)
	obs := func(idx market.Code, day market.Day, ms ...string) db.IndexObservation {
		return db.IndexObservation{Index: idx, Day: day, Source: "tdx", File: "spblock.dat", Block: "沪深300", Members: idxCodes(ms...)}
	}
	if err := s.UpsertStocks(ctx, []db.Stock{{Code: market.MustCode("600000.SH"), Name: "浦发银行", Type: market.TypeStock, FloatShares: market.Unknown(), Source: "tdx"}}, now); err != nil {
		t.Fatal(err)
	}
	rec, err := s.RecordIndexObservations(ctx, []db.IndexObservation{
		// Out of order on purpose: they are recorded per index by day.
		obs(hs300, 20261211, "600000.SH", "000001.SZ", "000002.SZ"),
		obs(hs300, 20261209, "600000.SH", "000001.SZ", "300750.SZ"),
		obs(csi500, 20261209, "600010.SH"),
		obs(hs300, 20261214, "600000.SH", "000001.SZ", "300750.SZ", "000002.SZ"),
	}, now)
	if err != nil || rec.Recorded != 4 || rec.Replaced != 0 || len(rec.Skipped) != 0 {
		t.Fatalf("RecordIndexObservations = %+v, %v; want 4 recorded", rec, err)
	}
	if got, want := spans(t, s, hs300), "000001.SZ:2026-12-09..open 000002.SZ:2026-12-11..open 300750.SZ:2026-12-09..2026-12-09 "+
		"300750.SZ:2026-12-14..open 600000.SH:2026-12-09..open"; got != want {
		t.Errorf("spans =\n %s\nwant\n %s", got, want)
	}
	if got, want := membersOn(t, s, hs300, 20261211), "000001.SZ@2026-12-09 000002.SZ@2026-12-11 600000.SH@2026-12-09"; got != want {
		t.Errorf("members on 12-11 = %s, want %s", got, want)
	}
	if got, want := membersOn(t, s, csi500, 20261214), "600010.SH@2026-12-09"; got != want {
		t.Errorf("000905 members = %s, want %s (an index's spans go on until it is observed again)", got, want)
	}
	ms, _ := s.IndexMembersOn(ctx, hs300, 20261214)
	if ms[len(ms)-1].Name != "浦发银行" || ms[0].Name != "" {
		t.Errorf("names = %q, %q; want the stock list's name and none", ms[len(ms)-1].Name, ms[0].Name)
	}
	o, err := s.IndexObservations(ctx, hs300)
	if err != nil || len(o) != 3 || o[0].Day != 20261209 || o[2].Members != 4 || o[2].File != "spblock.dat" || !o[2].RecordedAt.Equal(now) {
		t.Fatalf("IndexObservations = %+v, %v", o, err)
	}
	if _, err := s.IndexObservations(ctx, market.MustCode("000852.SH")); market.KindOf(err) != market.KindNotFound {
		t.Errorf("IndexObservations of an index never seen = %v, want not found", err)
	}
	all, err := s.IndexesObserved(ctx)
	if err != nil || len(all) != 2 || all[0].Index != hs300 || all[0].Day != 20261214 || all[1].Day != 20261209 {
		t.Errorf("IndexesObserved = %+v, %v", all, err)
	}
}

// The latest day observed again replaces its list (the terminal
// refreshed the file that day), restoring what the first list had ended;
// an earlier day is skipped, not an error; a capped list never follows
// an uncapped one; a failing batch writes nothing.
func TestIndexObservationReplaceAndSkip(t *testing.T) {
	s := dbtest.Open(t)
	ctx := context.Background()
	idx := market.MustCode("000016.SH")
	now := time.Date(2026, 12, 14, 8, 0, 0, 0, time.UTC)
	o := func(day market.Day, file string, capped bool, ms ...string) db.IndexObservation {
		return db.IndexObservation{Index: idx, Day: day, Source: "tdx", File: file, Block: "上证50", Capped: capped, Members: idxCodes(ms...)}
	}
	if _, err := s.RecordIndexObservations(ctx, []db.IndexObservation{
		o(20261209, "block_zs.dat", true, "600000.SH", "600010.SH"),
		o(20261210, "spblock.dat", false, "600000.SH", "600010.SH"),
		o(20261211, "spblock.dat", false, "600000.SH", "600028.SH"),
	}, now); err != nil {
		t.Fatal(err)
	}
	rec, err := s.RecordIndexObservations(ctx, []db.IndexObservation{o(20261211, "spblock.dat", false, "600010.SH", "600030.SH")}, now)
	if err != nil || rec.Replaced != 1 || rec.Recorded != 0 {
		t.Fatalf("replacing the latest day = %+v, %v", rec, err)
	}
	if got, want := spans(t, s, idx), "600000.SH:2026-12-09..2026-12-10 600010.SH:2026-12-09..open 600030.SH:2026-12-11..open"; got != want {
		t.Errorf("spans after the replacement =\n %s\nwant\n %s", got, want)
	}
	rec, err = s.RecordIndexObservations(ctx, []db.IndexObservation{
		o(20261210, "spblock.dat", false, "600000.SH"),
		o(20261214, "block_zs.dat", true),
	}, now)
	if err != nil || rec.Recorded != 0 || len(rec.Skipped) != 2 {
		t.Fatalf("an earlier day and a capped list = %+v, %v; want both skipped", rec, err)
	}
	if !strings.Contains(rec.Skipped[1].Reason, "capped list never follows an uncapped one") {
		t.Errorf("skip reason = %q", rec.Skipped[1].Reason)
	}
	if got := membersOn(t, s, idx, 20261214); got != "600010.SH@2026-12-09 600030.SH@2026-12-11" {
		t.Errorf("members after the skipped capped list = %s, want the uncapped list's", got)
	}
	// A bad observation fails the whole batch: the good one before it is not kept.
	_, err = s.RecordIndexObservations(ctx, []db.IndexObservation{o(20261215, "spblock.dat", false, "600000.SH"), {Index: idx, Day: 20261216}}, now)
	if market.KindOf(err) != market.KindInvalid {
		t.Fatalf("an observation without a source = %v, want invalid", err)
	}
	if ob, _ := s.IndexObservations(ctx, idx); ob[len(ob)-1].Day != 20261211 {
		t.Errorf("latest observation after a failed batch = %v, want 2026-12-11", ob[len(ob)-1].Day)
	}
}
