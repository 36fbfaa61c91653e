package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"time"

	"mdqs/db"
	"mdqs/internal/market"
	"mdqs/internal/screener"
)

// jobView is a screen as the status endpoint shows it.
type jobView struct {
	ID         string            `json:"id"`
	State      string            `json:"state"`
	Expression string            `json:"expression"`
	Universe   json.RawMessage   `json:"universe"`
	Sort       string            `json:"sort"`
	Limit      int               `json:"limit"`
	Fields     []string          `json:"fields"`
	Progress   map[string]any    `json:"progress"`
	Matched    int               `json:"matched"`
	Error      string            `json:"error"`
	Times      map[string]string `json:"times"`
	Existing   bool              `json:"existing,omitempty"`
}

func viewOf(j db.Job) jobView {
	pct := 0.0
	if j.Total > 0 {
		pct = float64(j.Done) / float64(j.Total) * 100
	}
	times := map[string]string{"created_at": market.FormatTime(j.CreatedAt)}
	for k, t := range map[string]time.Time{"started_at": j.StartedAt, "finished_at": j.FinishedAt} {
		if !t.IsZero() {
			times[k] = market.FormatTime(t)
		}
	}
	fields := j.Fields
	if fields == nil {
		fields = []string{}
	}
	return jobView{ID: j.ID, State: j.State, Expression: j.Expression, Universe: j.Universe, Sort: j.Sort, Limit: j.Limit,
		Fields: fields, Progress: map[string]any{"done": j.Done, "total": j.Total, "percent": round4(pct)},
		Matched: j.Matched, Error: j.Error, Times: times}
}

// handleScreenerSubmit is POST /v1/api/screener/queue/submit.
func (s *Server) handleScreenerSubmit(w http.ResponseWriter, r *http.Request) error {
	body, err := s.readBody(r)
	if err != nil {
		return err
	}
	var sub screener.Submission
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&sub); err != nil {
		return market.Errorf(market.KindInvalid, `the body must be a JSON object {"expression": "...", "universe": {...}, "sort": "...", "limit": N, "idempotency_key": "..."}: %v`, err)
	}
	job, existing, err := s.Screener.Submit(r.Context(), principal(w).ClientID, sub)
	if err != nil {
		return err
	}
	v := viewOf(job)
	v.Existing = existing
	return ok(w, v)
}

// handleScreenerStatus is GET /v1/api/screener/queue/status?id=.
func (s *Server) handleScreenerStatus(w http.ResponseWriter, r *http.Request) error {
	id, err := jobID(newQuery(r))
	if err != nil {
		return err
	}
	job, err := s.Screener.Status(r.Context(), principal(w).ClientID, id)
	if err != nil {
		return err
	}
	return ok(w, viewOf(job))
}

// handleScreenerResult is GET /v1/api/screener/queue/result?id=&page=&page_size=.
func (s *Server) handleScreenerResult(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r)
	id, err := jobID(q)
	if err != nil {
		return err
	}
	page := q.intIn("page", 1, 1, 1_000_000)
	size := q.intIn("page_size", 100, 1, maxPageSize)
	if err := q.Err(); err != nil {
		return err
	}
	job, res, err := s.Screener.Results(r.Context(), principal(w).ClientID, id, page, size)
	if err != nil {
		return err
	}
	items := make([]map[string]any, len(res))
	for i, x := range res {
		item := make(map[string]any, len(x.Values)+2)
		for k, v := range x.Values {
			item[k] = v
		}
		item["code"], item["name"] = x.Code, x.Name
		items[i] = item
	}
	return ok(w, map[string]any{"id": job.ID, "source": s.sourceLabel("push2"), "items": items, "total": job.Matched, "page": page, "page_size": size,
		"sort": job.Sort, "fields": viewOf(job).Fields})
}

// handleScreenerCancel is POST /v1/api/screener/queue/cancel {"id": ...}.
func (s *Server) handleScreenerCancel(w http.ResponseWriter, r *http.Request) error {
	id, err := s.idBody(r, "screen")
	if err != nil {
		return err
	}
	job, err := s.Screener.Cancel(r.Context(), principal(w).ClientID, id)
	if err != nil {
		return err
	}
	return ok(w, viewOf(job))
}

// handleScreenerFields is GET /v1/api/screener/fields: the names an
// expression may use.
func (s *Server) handleScreenerFields(w http.ResponseWriter, r *http.Request) error {
	return ok(w, map[string]any{"fields": screener.Fields(),
		"syntax": "expr-lang/expr: && || ! == != < <= > >= + - * / %, in, not in, (), string literals in double quotes; e.g. close > ma20 && turnover > 3 && \"人工智能\" in concepts"})
}

func jobID(q *query) (string, error) {
	id := q.str("id")
	if id == "" && q.Err() == nil {
		q.fail("", "id is required: the id the submit answered")
	}
	return id, q.Err()
}
