package relay

import (
	"context"
	"time"

	"mdqs/internal/market"
	"mdqs/internal/stream"
)

// wantedAge is how long the team's wanted codes are kept before they are
// asked again: the quote refresh asks once per code it publishes.
const wantedAge = 250 * time.Millisecond

// want says in Redis, every WantTTL/3, which codes this instance's
// streams want quotes of, so the leader refreshes and relays them.
func (r *Relay) want(ctx context.Context) {
	t := time.NewTicker(r.cfg.WantTTL / 3)
	defer t.Stop()
	wanted := false
	for {
		codes := r.hub.WantedCodes(stream.Quote)
		var err error
		switch {
		case len(codes) > 0:
			s := make([]string, len(codes))
			for i, c := range codes {
				s[i] = c.String()
			}
			err = r.rc.Want(ctx, r.cfg.Instance, s, r.cfg.WantTTL)
			wanted = err == nil
		case wanted:
			err = r.rc.Unwant(ctx, r.cfg.Instance)
			wanted = err != nil
		}
		if err != nil {
			r.fail(ctx, err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// WantsQuotes says whether a stream of any instance wants quotes: the
// leader's quote refresh runs while one does.
func (r *Relay) WantsQuotes() bool {
	if r.hub.Wants(stream.Quote) {
		return true
	}
	return len(r.teamWanted()) > 0
}

// quoteWanted says whether a stream of any instance lists one of codes.
func (r *Relay) quoteWanted(codes []market.Code) bool {
	w := r.teamWanted()
	for _, c := range codes {
		if w[c] {
			return true
		}
	}
	return false
}

// teamWanted is the codes the streams of every instance want, this one's
// included, read again when older than wantedAge. While Redis is away it
// is this instance's own.
func (r *Relay) teamWanted() map[market.Code]bool {
	r.wantMu.Lock()
	defer r.wantMu.Unlock()
	if time.Since(r.wantedAt) < wantedAge && r.wanted != nil {
		return r.wanted
	}
	w := map[market.Code]bool{}
	for _, c := range r.hub.WantedCodes(stream.Quote) {
		w[c] = true
	}
	if !r.down.Load() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		codes, err := r.rc.Wanted(ctx)
		cancel()
		if err != nil {
			r.fail(ctx, err)
		}
		for _, s := range codes {
			if c, err := market.ParseCode(s); err == nil {
				w[c] = true
			}
		}
	}
	r.wanted, r.wantedAt = w, time.Now()
	return w
}
