package api

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"mdqs/internal/market"
)

// The probes of scripts, service managers and container orchestrators:
// unsigned, like the health endpoints, behind the same Host check as every
// route, and saying nothing beyond the start-up jobs' names and what an
// answer waiting for one says.

// liveness is /healthz's answer.
type liveness struct {
	Status string `json:"status"` // "ok"
}

// readiness is /readyz's answer.
type readiness struct {
	Ready bool `json:"ready"`
	// Pending lists the start-up jobs whose data is still to come: those
	// whose first run has not ended hold readiness back; those whose runs
	// have all failed (failed true) do not, and their answers are 503s
	// naming the failure.
	Pending    []pendingJob `json:"pending"`
	RetryAfter int          `json:"retry_after,omitempty"`
}

type pendingJob struct {
	Job    string `json:"job"`
	Detail string `json:"detail"`
	Failed bool   `json:"failed,omitempty"`
}

// handleHealthz is GET /healthz: 200 while the process serves.
func (s *Server) handleHealthz(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, liveness{Status: "ok"})
	return nil
}

// readyRetry is /readyz's Retry-After while a start-up job runs.
const readyRetry = 5 * time.Second

// handleReadyz is GET /readyz: 200 once every start-up job has run, else
// 503 with Retry-After listing the jobs still to run.
func (s *Server) handleReadyz(w http.ResponseWriter, r *http.Request) error {
	out := readiness{Ready: true, Pending: []pendingJob{}}
	if s.Jobs != nil {
		for _, p := range s.Jobs.Pendings() {
			var e *market.Error
			detail := p.Err.Error()
			if errors.As(p.Err, &e) {
				detail = e.Detail
			}
			out.Pending = append(out.Pending, pendingJob{Job: p.Name, Detail: detail, Failed: p.Failed})
			if !p.Failed {
				out.Ready = false
			}
		}
	}
	status := http.StatusOK
	if !out.Ready {
		status = http.StatusServiceUnavailable
		out.RetryAfter = int(readyRetry / time.Second)
		w.Header().Set("Retry-After", strconv.Itoa(out.RetryAfter))
	}
	writeJSON(w, status, out)
	return nil
}
