package api

import (
	"context"
	"errors"
	"net/http"

	"mdqs/market"
)

// waits marks a handler that may wait on an upstream fetch (a sector
// collection, K-lines the store lacks, an intraday series, quotes): its
// context ends after Deps.UpstreamWait (server.upstream_wait). The
// services stop waiting then and answer 503 naming the source, while the
// fetch goes on in the background to fill the store, so a hanging
// upstream costs a request that much and its answer is written well
// before the server's write deadline would cut the connection.
func (s *Server) waits(h handlerFunc) handlerFunc {
	if s.UpstreamWait <= 0 {
		return h
	}
	return func(w http.ResponseWriter, r *http.Request) error {
		ctx, cancel := context.WithTimeout(r.Context(), s.UpstreamWait)
		defer cancel()
		err := h(w, r.WithContext(ctx))
		if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) && r.Context().Err() == nil &&
			market.KindOf(err) == market.KindInternal {
			// A path that did not name what it waited for: still an
			// outage, not a server error.
			return market.Wrap(market.KindUnavailable, err, "no answer from the upstream within %v (server.upstream_wait)", s.UpstreamWait)
		}
		return err
	}
}
