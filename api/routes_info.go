package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mdqs/jobs"
	"net/http"
	"strings"

	"mdqs/internal/auth"
	"mdqs/internal/finance"
	"mdqs/internal/hotrank"
	"mdqs/internal/market"
	"mdqs/internal/news"
)

// InfoDeps are the collaborators of the hot-rank, news and financial-report
// endpoints. A nil service answers its endpoints with 503.
type InfoDeps struct {
	HotRank *hotrank.Service
	News    *news.Service
	Finance *finance.Service
}

// infoRoutes registers the hot-rank, news and financial-report endpoints
// (spec 4.6-4.8). Reads need the family's scope; the POSTs that change
// data need admin.
func (s *Server) infoRoutes() {
	s.protected(http.MethodGet, "/v1/api/hot_rank", auth.ScopeHotRank, s.waits(s.fedBy(s.handleHotRank, jobs.HotRank, jobs.HotRankClose)))
	s.protected(http.MethodPost, "/v1/api/hot_rank/import", auth.ScopeAdmin, s.handleHotRankImport)
	s.protected(http.MethodGet, "/v1/api/hot_rank/detail", auth.ScopeHotRank, s.waits(s.fedBy(s.handleHotRankDetail, jobs.HotRank, jobs.HotRankClose)))
	s.protected(http.MethodGet, "/v1/api/hot_rank_list", auth.ScopeHotRank, s.waits(s.fedBy(s.handleHotRankList, jobs.HotRank, jobs.HotRankClose)))

	s.protected(http.MethodGet, "/v1/api/news/list", auth.ScopeNews, s.waits(s.fedBy(s.handleNewsList, jobs.UpdateNews)))
	s.protected(http.MethodGet, "/v1/api/news/view", auth.ScopeNews, s.waits(s.fedBy(s.handleNewsView, jobs.UpdateNews)))
	s.protected(http.MethodPost, "/v1/api/update-news", auth.ScopeAdmin, s.handleUpdateNews)

	s.protected(http.MethodGet, "/v1/api/financial-reports", auth.ScopeFinance, s.waits(s.fedBy(s.handleFinancialReports, jobs.FinancialReports)))
}

// maxCodes bounds a comma-separated code list.
const maxCodes = 50

// codes reads a comma-separated list of codes in any form ParseCode takes
// (600519.SH, sh600519, 600519), from the first of names that was sent,
// duplicates dropped; absent is nil.
func (q *query) codes(names ...string) []market.Code { return q.codesUpTo(maxCodes, names...) }

// codesUpTo is codes with its own bound.
func (q *query) codesUpTo(limit int, names ...string) []market.Code {
	raw := q.str(names...)
	if raw == "" {
		if q.has(names[0]) {
			q.fail("", "%s must be one or more codes such as 600519.SH, separated by commas", names[0])
		}
		return nil
	}
	var out []market.Code
	seen := map[market.Code]bool{}
	for _, part := range strings.Split(raw, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		c, err := market.ParseCode(part)
		if err != nil {
			q.fail("", "%s: %v", names[0], err)
			return nil
		}
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	switch {
	case len(out) == 0:
		q.fail("", "%s must name at least one code", names[0])
	case len(out) > limit:
		q.fail("", "%s names %d codes; at most %d", names[0], len(out), limit)
		return nil
	}
	return out
}

// decodeBody reads an optional JSON object body into v: an empty body
// leaves v as it is; unknown fields, other JSON values and trailing data
// are 400s naming the problem.
func (s *Server) decodeBody(r *http.Request, v any) error {
	body, err := s.readBody(r)
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &te) && te.Field != "":
			return market.Errorf(market.KindInvalid, "body field %q must be a JSON %s", te.Field, te.Type)
		case strings.HasPrefix(err.Error(), "json: unknown field"):
			return market.Errorf(market.KindInvalid, "body has an %s", strings.TrimPrefix(err.Error(), "json: "))
		}
		return market.Errorf(market.KindInvalid, "the body must be a JSON object")
	}
	if _, err := dec.Token(); err != io.EOF {
		return market.Errorf(market.KindInvalid, "the body must be one JSON object")
	}
	return nil
}

// notConfigured is the 503 of an endpoint whose service is not wired;
// asking again will not help, so it claims no retry time.
func notConfigured(what string) error {
	return market.NotConfigured("%s is not configured on this server", what)
}
