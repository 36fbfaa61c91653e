package db

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"mdqs/internal/market"
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

	// Several instances may share the store; a running job is evaluated by
	// one of them, its owner, which holds a lease it renews while it works.
	Owner      string    // the instance running it ('' when queued, or released at a clean stop)
	LeaseUntil time.Time // zero when no instance holds it
	Attempts   int       // how many times its owner stopped while running it (lost leases)
}

// Finished reports a terminal state.
func (j Job) Finished() bool {
	return j.State == JobSucceeded || j.State == JobFailed || j.State == JobCanceled
}

const jobColumns = `id, client_id, state, expression, universe, sort, row_limit, idempotency_key, fields, done, total,
	matched, error, created_at, started_at, finished_at, owner, lease_until, attempts`

func scanJob(row scanner) (Job, error) {
	var j Job
	var universe, fields string
	var created, lease int64
	var started, finished sql.NullInt64
	if err := row.Scan(&j.ID, &j.ClientID, &j.State, &j.Expression, &universe, &j.Sort, &j.Limit, &j.IdempotencyKey, &fields,
		&j.Done, &j.Total, &j.Matched, &j.Error, &created, &started, &finished, &j.Owner, &lease, &j.Attempts); err != nil {
		return j, err
	}
	if lease > 0 {
		j.LeaseUntil = time.UnixMilli(lease)
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
		if _, err := tx.ExecContext(ctx, `INSERT INTO screener_jobs(`+jobColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, 0, '', ?, NULL, NULL, '', 0, 0)`,
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

// ClaimJob moves a queued job to running for owner, with a lease until
// now+lease; false when it is no longer queued (another instance claimed
// it first, or it was canceled). The UPDATE is conditional on the state,
// so of several instances claiming one job exactly one changes the row:
// the rows affected say who won, on either store.
func (s *Store) ClaimJob(ctx context.Context, id, owner string, now time.Time, lease time.Duration) (bool, error) {
	var n int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE screener_jobs SET state = 'running', started_at = ?, total = 0, done = 0, owner = ?, lease_until = ?
			WHERE id = ? AND state = 'queued'`, now.UnixMilli(), owner, now.Add(lease).UnixMilli(), id)
		if err != nil {
			return classify(err, "claim job")
		}
		n, _ = res.RowsAffected()
		return nil
	})
	return n == 1, err
}

// RenewLeases extends the leases of owner's running jobs to now+lease (the
// owner's heartbeat while it evaluates them).
func (s *Store) RenewLeases(ctx context.Context, owner string, now time.Time, lease time.Duration) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE screener_jobs SET lease_until = ? WHERE owner = ? AND state = 'running'`,
			now.Add(lease).UnixMilli(), owner)
		return classify(err, "renew leases")
	})
}

// ReleaseJob gives up owner's lease of a running job it stops evaluating
// without finishing it (a clean shutdown): the job stays running with no
// owner and an ended lease, so the next instance to look (another one's
// sweep, or this one's next start) queues it again at once, without
// counting it as a loss.
func (s *Store) ReleaseJob(ctx context.Context, id, owner string) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE screener_jobs SET owner = '', lease_until = 0 WHERE id = ? AND owner = ? AND state = 'running'`,
			id, owner)
		return classify(err, "release job")
	})
}

// OwnRunningJobs lists the jobs owner runs according to the store: a job
// it evaluates that is not among them was canceled (perhaps through
// another instance) or given to another instance, and its evaluation is
// of no use any more.
func (s *Store) OwnRunningJobs(ctx context.Context, owner string) ([]string, error) {
	return s.jobIDs(ctx, "list own jobs", `SELECT id FROM screener_jobs WHERE state = 'running' AND owner = ? ORDER BY id`, owner)
}

// RequeueLost puts back in the queue the running jobs whose owner is
// gone: those whose lease ended at now, and, when mine is not empty,
// those owned by mine (this instance before a restart, whatever their
// lease). Each such loss counts an attempt, except a lease released at a
// clean stop; a job lost maxLosses times fails with a reason instead of
// running again (a screen that keeps stopping its instance). It returns
// how many jobs it requeued and failed.
func (s *Store) RequeueLost(ctx context.Context, now time.Time, mine string, maxLosses int) (requeued, failed int, err error) {
	const lost = `state = 'running' AND (lease_until <= ? OR (? != '' AND owner = ?))`
	args := []any{now.UnixMilli(), mine, mine}
	// Most sweeps find nothing: a read spares them the write lock.
	var n int
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM screener_jobs WHERE `+lost, args...).Scan(&n); err != nil {
		return 0, 0, classify(err, "find lost jobs")
	}
	if n == 0 {
		return 0, 0, nil
	}
	err = s.write(ctx, func(tx *sql.Tx) error {
		reason := fmt.Sprintf("the instance running this screen stopped %d times; submit it again", maxLosses)
		res, err := tx.ExecContext(ctx, `UPDATE screener_jobs SET state = 'failed', error = ?, finished_at = ?, attempts = attempts + 1,
			owner = '', lease_until = 0 WHERE `+lost+` AND owner != '' AND attempts + 1 >= ?`,
			append(append([]any{reason, now.UnixMilli()}, args...), maxLosses)...)
		if err != nil {
			return classify(err, "fail lost jobs")
		}
		f, _ := res.RowsAffected()
		res, err = tx.ExecContext(ctx, `UPDATE screener_jobs SET state = 'queued', started_at = NULL, done = 0,
			attempts = attempts + CASE WHEN owner = '' THEN 0 ELSE 1 END, owner = '', lease_until = 0 WHERE `+lost, args...)
		if err != nil {
			return classify(err, "requeue lost jobs")
		}
		r, _ := res.RowsAffected()
		requeued, failed = int(r), int(f)
		return nil
	})
	return requeued, failed, err
}

// JobProgress records how many stocks owner's running job has evaluated,
// of how many.
func (s *Store) JobProgress(ctx context.Context, id, owner string, done, total int) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE screener_jobs SET done = ?, total = ? WHERE id = ? AND state = 'running' AND owner = ?`,
			done, total, id, owner)
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

// FinishJob ends owner's running job: succeeded with its results, or
// failed or canceled with a reason, in one transaction. A job no longer
// running for owner (a cancel won the race, or the job was requeued after
// owner's lease ended and another instance has it) is left as it is; ok
// says whether this call ended it.
func (s *Store) FinishJob(ctx context.Context, id, owner, state, reason string, done int, results []Result, now time.Time) (ok bool, err error) {
	err = s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE screener_jobs SET state = ?, error = ?, done = ?, matched = ?, finished_at = ?, lease_until = 0
			WHERE id = ? AND state = 'running' AND owner = ?`, state, reason, done, len(results), now.UnixMilli(), id, owner)
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

// QueuedJobs lists the queued jobs, oldest first.
func (s *Store) QueuedJobs(ctx context.Context) ([]string, error) {
	return s.jobIDs(ctx, "list queued jobs", `SELECT id FROM screener_jobs WHERE state = 'queued' ORDER BY created_at, id`)
}

func (s *Store) jobIDs(ctx context.Context, what, query string, args ...any) ([]string, error) {
	rows, err := s.r.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, classify(err, what)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, classify(err, what)
		}
		ids = append(ids, id)
	}
	return ids, classify(rows.Err(), what)
}
