package db

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"mdqs/market"
)

// Screener job states.
const (
	JobQueued    = "queued"
	JobRunning   = "running"
	JobSucceeded = "succeeded"
	JobFailed    = "failed"
	JobCanceled  = "canceled"
)

// Job is a screen submitted by a client.
type Job struct {
	ID             string
	ClientID       string
	State          string
	Expression     string
	Universe       json.RawMessage
	Sort           string
	Limit          int
	IdempotencyKey string
	Fields         []string // the fields the expression uses, shown with each result
	Done, Total    int      // progress: stocks evaluated / to evaluate
	Matched        int
	Error          string
	CreatedAt      time.Time
	StartedAt      time.Time // zero until running
	FinishedAt     time.Time // zero until finished
}

// Finished reports a terminal state.
func (j Job) Finished() bool {
	return j.State == JobSucceeded || j.State == JobFailed || j.State == JobCanceled
}

const jobColumns = `id, client_id, state, expression, universe, sort, row_limit, idempotency_key, fields, done, total,
	matched, error, created_at, started_at, finished_at`

func scanJob(row scanner) (Job, error) {
	var j Job
	var universe, fields string
	var created int64
	var started, finished sql.NullInt64
	if err := row.Scan(&j.ID, &j.ClientID, &j.State, &j.Expression, &universe, &j.Sort, &j.Limit, &j.IdempotencyKey, &fields,
		&j.Done, &j.Total, &j.Matched, &j.Error, &created, &started, &finished); err != nil {
		return j, err
	}
	j.Universe = json.RawMessage(universe)
	json.Unmarshal([]byte(fields), &j.Fields)
	j.CreatedAt = time.UnixMilli(created)
	if started.Valid {
		j.StartedAt = time.UnixMilli(started.Int64)
	}
	if finished.Valid {
		j.FinishedAt = time.UnixMilli(finished.Int64)
	}
	return j, nil
}

// SubmitJob queues a job unless the client already has maxActive jobs
// queued or running (a rate-limited error) or already submitted one with
// the same idempotency key (that job is returned, with existing = true).
// The check and the insert share one transaction, so concurrent submits
// cannot overshoot the cap.
func (s *Store) SubmitJob(ctx context.Context, j Job, maxActive int) (out Job, existing bool, err error) {
	err = s.write(ctx, func(tx *sql.Tx) error {
		if j.IdempotencyKey != "" {
			prev, err := scanJob(tx.QueryRowContext(ctx, `SELECT `+jobColumns+` FROM screener_jobs WHERE client_id = ? AND idempotency_key = ?`,
				j.ClientID, j.IdempotencyKey))
			if err == nil {
				out, existing = prev, true
				return nil
			}
			if err != sql.ErrNoRows {
				return classify(err, "find job by key")
			}
		}
		var active int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM screener_jobs WHERE client_id = ? AND state IN ('queued', 'running')`,
			j.ClientID).Scan(&active); err != nil {
			return classify(err, "count active jobs")
		}
		if active >= maxActive {
			return market.Errorf(market.KindRateLimited, "you have %d screens queued or running, the most a client may have; wait for one to finish or cancel one", active)
		}
		fields, _ := json.Marshal(j.Fields)
		if _, err := tx.ExecContext(ctx, `INSERT INTO screener_jobs(`+jobColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, 0, '', ?, NULL, NULL)`,
			j.ID, j.ClientID, JobQueued, j.Expression, string(j.Universe), j.Sort, j.Limit, j.IdempotencyKey, string(fields),
			j.CreatedAt.UnixMilli()); err != nil {
			return classify(err, "insert job")
		}
		j.State = JobQueued
		out = j
		return nil
	})
	return out, existing, err
}

// Job reads one client's job; another client's job is not found, exactly
// like a job that does not exist.
func (s *Store) Job(ctx context.Context, clientID, id string) (Job, error) {
	j, err := scanJob(s.r.QueryRowContext(ctx, `SELECT `+jobColumns+` FROM screener_jobs WHERE id = ? AND client_id = ?`, id, clientID))
	if err == sql.ErrNoRows {
		return j, market.Errorf(market.KindNotFound, "no screen %q", id)
	}
	return j, classify(err, "read job")
}

// JobByID reads a job whoever owns it (the workers).
func (s *Store) JobByID(ctx context.Context, id string) (Job, error) {
	j, err := scanJob(s.r.QueryRowContext(ctx, `SELECT `+jobColumns+` FROM screener_jobs WHERE id = ?`, id))
	if err == sql.ErrNoRows {
		return j, market.Errorf(market.KindNotFound, "no screen %q", id)
	}
	return j, classify(err, "read job")
}

// StartJob moves a queued job to running; false when it is no longer
// queued (canceled meanwhile).
func (s *Store) StartJob(ctx context.Context, id string, total int, now time.Time) (bool, error) {
	var n int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE screener_jobs SET state = 'running', started_at = ?, total = ?, done = 0
			WHERE id = ? AND state = 'queued'`, now.UnixMilli(), total, id)
		if err != nil {
			return classify(err, "start job")
		}
		n, _ = res.RowsAffected()
		return nil
	})
	return n == 1, err
}

// JobProgress records how many stocks a running job has evaluated, of how
// many.
func (s *Store) JobProgress(ctx context.Context, id string, done, total int) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE screener_jobs SET done = ?, total = ? WHERE id = ? AND state = 'running'`, done, total, id)
		return classify(err, "job progress")
	})
}

// Result is one stock a screen matched, with the values of the fields its
// expression used (NaN as null).
type Result struct {
	Code   string
	Name   string
	Values map[string]any
}

// FinishJob ends a running job: succeeded with its results, or failed or
// canceled with a reason, in one transaction. A job already finished (a
// cancel won the race) is left as it is; ok says whether this call ended it.
func (s *Store) FinishJob(ctx context.Context, id, state, reason string, done int, results []Result, now time.Time) (ok bool, err error) {
	err = s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE screener_jobs SET state = ?, error = ?, done = ?, matched = ?, finished_at = ?
			WHERE id = ? AND state IN ('queued', 'running')`, state, reason, done, len(results), now.UnixMilli(), id)
		if err != nil {
			return classify(err, "finish job")
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return nil
		}
		ok = true
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO screener_results(job_id, rank, code, name, fields_json) VALUES (?, ?, ?, ?, ?)`)
		if err != nil {
			return classify(err, "prepare results")
		}
		defer stmt.Close()
		for i, r := range results {
			vals, err := json.Marshal(r.Values)
			if err != nil {
				return market.Wrap(market.KindInternal, err, "encode result")
			}
			if _, err := stmt.ExecContext(ctx, id, i, r.Code, r.Name, string(vals)); err != nil {
				return classify(err, "insert result")
			}
		}
		return nil
	})
	return ok, err
}

// CancelJob cancels a queued or running job of a client. It returns the
// job as it stands afterwards; a finished job is returned unchanged.
func (s *Store) CancelJob(ctx context.Context, clientID, id string, now time.Time) (Job, error) {
	if err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE screener_jobs SET state = 'canceled', error = 'canceled by the client', finished_at = ?
			WHERE id = ? AND client_id = ? AND state IN ('queued', 'running')`, now.UnixMilli(), id, clientID)
		return classify(err, "cancel job")
	}); err != nil {
		return Job{}, err
	}
	return s.Job(ctx, clientID, id)
}

// Results pages a finished job's results in rank order.
func (s *Store) Results(ctx context.Context, id string, offset, limit int) ([]Result, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT code, name, fields_json FROM screener_results WHERE job_id = ? ORDER BY rank LIMIT ? OFFSET ?`,
		id, limit, offset)
	if err != nil {
		return nil, classify(err, "read results")
	}
	defer rows.Close()
	out := []Result{}
	for rows.Next() {
		var r Result
		var vals string
		if err := rows.Scan(&r.Code, &r.Name, &vals); err != nil {
			return nil, classify(err, "read results")
		}
		json.Unmarshal([]byte(vals), &r.Values)
		out = append(out, r)
	}
	return out, classify(rows.Err(), "read results")
}

// RequeueRunning puts jobs a stopped process left running back in the
// queue, and lists every queued job oldest first, for a restarted service
// to run.
func (s *Store) RequeueRunning(ctx context.Context) ([]string, error) {
	if err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE screener_jobs SET state = 'queued', started_at = NULL, done = 0 WHERE state = 'running'`)
		return classify(err, "requeue jobs")
	}); err != nil {
		return nil, err
	}
	return s.QueuedJobs(ctx)
}

// QueuedJobs lists the queued jobs, oldest first.
func (s *Store) QueuedJobs(ctx context.Context) ([]string, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT id FROM screener_jobs WHERE state = 'queued' ORDER BY created_at, id`)
	if err != nil {
		return nil, classify(err, "list queued jobs")
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, classify(err, "list queued jobs")
		}
		ids = append(ids, id)
	}
	return ids, classify(rows.Err(), "list queued jobs")
}
