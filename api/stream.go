package api

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"mdqs/internal/board"
	"mdqs/internal/market"
	"mdqs/internal/movement"
	"mdqs/internal/ranking"
	"mdqs/internal/stream"
)

const (
	// streamRankingTop is how many entries of each list a ranking event
	// carries; the whole ranking is one GET /v1/api/boards/top50 away.
	streamRankingTop = 10
	// maxStreamCodes caps a stream's codes (a query value is at most
	// 1 KiB anyway).
	maxStreamCodes = 100
	// streamWriteWait is how long one write to a stream may take: a
	// client that reads nothing for that long is cut off, whatever the
	// server's WriteTimeout, which would otherwise end every stream.
	streamWriteWait = 30 * time.Second
	// streamRetryMS is the reconnection delay the stream asks clients for.
	streamRetryMS = 3000
)

// topicParams are the names ?topics= takes (the plural ones, and
// the event names).
var topicParams = map[string]stream.Topic{
	"ranking": stream.Ranking, "rankings": stream.Ranking,
	"movement": stream.Movement, "movements": stream.Movement,
	"quote": stream.Quote, "quotes": stream.Quote,
	"alert": stream.Alert, "alerts": stream.Alert,
}

// streamRequest is a stream's parameters.
type streamRequest struct {
	topics []stream.Topic
	codes  []market.Code
	resume bool
	from   stream.Position
}

func (s *Server) streamQuery(r *http.Request) (streamRequest, error) {
	q := newQuery(r)
	var req streamRequest
	for _, c := range strings.Split(q.str("codes"), ",") {
		if c = strings.TrimSpace(c); c == "" {
			continue
		}
		code, err := market.ParseCode(c)
		if err != nil {
			q.fail("", "codes: %v", err)
			break
		}
		if !containsCode(req.codes, code) {
			req.codes = append(req.codes, code)
		}
	}
	if len(req.codes) > maxStreamCodes {
		q.fail("", "codes lists %d codes; a stream takes at most %d", len(req.codes), maxStreamCodes)
	}
	if raw := q.str("topics"); raw != "" {
		for _, name := range strings.Split(raw, ",") {
			t, ok := topicParams[strings.ToLower(strings.TrimSpace(name))]
			if !ok {
				q.fail("", "topics: unknown topic %q; want a comma-separated list of ranking, movements, quotes, alerts", shorten(name, 40))
				break
			}
			if !containsTopic(req.topics, t) {
				req.topics = append(req.topics, t)
			}
		}
	} else {
		req.topics = []stream.Topic{stream.Ranking, stream.Movement, stream.Alert}
		if len(req.codes) > 0 {
			req.topics = append(req.topics, stream.Quote)
		}
	}
	if containsTopic(req.topics, stream.Quote) && len(req.codes) == 0 {
		q.fail("", "the quotes topic needs codes=..., at most %d codes: a stream of the whole market's quotes would outrun any client", maxStreamCodes)
	}
	id := r.Header.Get("Last-Event-ID")
	if id == "" {
		id = q.str("last_event_id")
	}
	if id != "" {
		p, err := stream.ParsePosition(id)
		if err != nil {
			q.fail("", "Last-Event-ID: %v", err)
		}
		req.resume, req.from = true, p
	}
	return req, q.Err()
}

func shorten(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

func containsCode(codes []market.Code, c market.Code) bool {
	for _, x := range codes {
		if x == c {
			return true
		}
	}
	return false
}

func containsTopic(topics []stream.Topic, t stream.Topic) bool {
	for _, x := range topics {
		if x == t {
			return true
		}
	}
	return false
}

// handleStream is GET /v1/api/stream: the topics' events as Server-Sent
// Events until the client leaves, its token stops being good, it falls too
// far behind, or the server shuts down. Each event's id is the stream's
// position (stream.Position); sent back as Last-Event-ID it resumes the
// stream where it stopped: the movements from the store, exactly once, the
// other topics from the hub's recent events or with a resync event.
func (s *Server) handleStream(w http.ResponseWriter, r *http.Request) error {
	if s.Stream == nil {
		return market.NotConfigured("streams are not configured on this server")
	}
	req, err := s.streamQuery(r)
	if err != nil {
		return err
	}
	if r.Method == http.MethodHead {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		return nil
	}
	ctx := r.Context()
	f := stream.Filter{Topics: req.topics, Codes: req.codes}
	if req.resume {
		f.Resume = &req.from
	}
	p := principal(w)
	sub, err := s.Stream.Subscribe(ctx, f, p.ClientID)
	switch {
	case errors.Is(err, stream.ErrTooMany):
		return &market.Error{Kind: market.KindRateLimited, Message: "too many requests",
			Detail:     err.Error() + " (stream.max_per_client = " + strconv.Itoa(s.Stream.Config().MaxPerClient) + "): close one of them first",
			RetryAfter: 5 * time.Second}
	case errors.Is(err, stream.ErrClosed):
		return &market.Error{Kind: market.KindUnavailable, Message: market.DefaultMessage(market.KindUnavailable),
			Detail: "the server is shutting down", RetryAfter: 5 * time.Second}
	case err != nil:
		return err
	}
	defer sub.Close()
	pos := stream.Position{Movement: req.from.Movement, Seq: sub.Start}
	// The movements missed are read before the first byte goes out, so a
	// failure is still an ordinary error answer; the live ones meanwhile
	// wait in the subscription, and those the replay has are skipped.
	var missed []movement.EventRow
	if containsTopic(req.topics, stream.Movement) {
		if req.resume {
			missed, err = s.movementsAfter(r, req.from.Movement)
			if n := len(missed); n > 0 {
				pos.Movement = missed[n-1].EventMS
			}
		} else {
			pos.Movement, err = s.movementCursor(r)
		}
		if err != nil {
			return err
		}
	}

	rc := http.NewResponseController(w)
	// The server's ReadTimeout would end the request's context, and its
	// WriteTimeout the first write after it: a stream lives longer. (A
	// writer without deadlines, as in tests, answers ErrNotSupported.)
	rc.SetReadDeadline(time.Time{})
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("X-Accel-Buffering", "no") // a proxy in front must not hold events back
	w.WriteHeader(http.StatusOK)
	out := &sseWriter{w: w, rc: rc}
	out.buf = append(out.buf, "retry: "+strconv.Itoa(streamRetryMS)+"\n"...)
	out.event(pos, "open", openData(req))
	for _, row := range missed {
		b, _ := json.Marshal(row)
		out.event(stream.Position{Movement: row.EventMS, Seq: pos.Seq}, string(stream.Movement), b)
	}
	if out.flush() != nil {
		return nil
	}
	token, _ := bearer(r.Header.Get("Authorization"))
	beat := time.NewTicker(s.Stream.Config().Heartbeat)
	defer beat.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-sub.Ready():
			for {
				ev, ok := sub.Poll()
				if !ok {
					break
				}
				switch ev.Topic {
				case stream.Movement:
					if ev.ID <= pos.Movement {
						continue // in the replay, or before the stream began
					}
					pos.Movement = ev.ID
				case "":
				default:
					pos.Seq = ev.ID
				}
				out.event(pos, ev.Name(), ev.Data)
			}
			if out.flush() != nil || sub.Ended() {
				return nil
			}
		case <-beat.C:
			// The token was good at connect time; a stream outlives it only
			// until the next heartbeat.
			if _, err := s.Auth.Authenticate(ctx, token); market.KindOf(err) == market.KindUnauthorized {
				out.event(pos, stream.TypeEnd, endData("unauthorized", err))
				out.flush()
				return nil
			}
			out.buf = append(out.buf, ": hb\n\n"...)
			if out.flush() != nil {
				return nil
			}
		}
	}
}

// movementCursor is where a new stream's movements begin: after the
// current day's last event (or its start, when it has none yet).
func (s *Server) movementCursor(r *http.Request) (int64, error) {
	day, err := s.Movements.Day(0, false)
	if err != nil {
		return 0, err
	}
	t, err := s.Movements.Events(r.Context(), "", s.SourceMode, day, 0, 0, movement.Filter{})
	if err != nil {
		return 0, err
	}
	return max(t.NextSince, day.Start().UnixMilli()), nil
}

// movementsAfter is the movements after a cursor: the rest of the
// cursor's day and, when that has passed, the current day's (cursor 0:
// the current day's).
func (s *Server) movementsAfter(r *http.Request, cursor int64) ([]movement.EventRow, error) {
	today, err := s.Movements.Day(0, false)
	if err != nil {
		return nil, err
	}
	days := []market.Day{today}
	if cursor > 0 {
		if from := market.DayOf(time.UnixMilli(cursor)); from < today {
			days = []market.Day{from, today}
		}
	}
	var rows []movement.EventRow
	for _, d := range days {
		t, err := s.Movements.Events(r.Context(), "", s.SourceMode, d, cursor, 0, movement.Filter{})
		if err != nil {
			return nil, err
		}
		rows = append(rows, t.Items...)
	}
	return rows, nil
}

func openData(req streamRequest) []byte {
	v := struct {
		Topics  []stream.Topic `json:"topics"`
		Codes   []string       `json:"codes"`
		Resumed bool           `json:"resumed"`
	}{Topics: req.topics, Codes: []string{}, Resumed: req.resume}
	for _, c := range req.codes {
		v.Codes = append(v.Codes, c.String())
	}
	b, _ := json.Marshal(v)
	return b
}

func endData(reason string, err error) []byte {
	detail := err.Error()
	var e *market.Error
	if errors.As(err, &e) && e.Detail != "" {
		detail = e.Detail
	}
	b, _ := json.Marshal(map[string]string{"reason": reason, "detail": detail})
	return b
}

// sseWriter gathers events and writes them at once, each write with its
// own deadline.
type sseWriter struct {
	w   http.ResponseWriter
	rc  *http.ResponseController
	buf []byte
}

func (o *sseWriter) event(pos stream.Position, name string, data []byte) {
	o.buf = append(o.buf, "id: "...)
	o.buf = append(o.buf, pos.String()...)
	o.buf = append(o.buf, "\nevent: "...)
	o.buf = append(o.buf, name...)
	// JSON has no raw newlines, but a line break would end the event:
	// each line is its own data field.
	for line := range strings.SplitSeq(string(data), "\n") {
		o.buf = append(o.buf, "\ndata: "...)
		o.buf = append(o.buf, line...)
	}
	o.buf = append(o.buf, "\n\n"...)
}

func (o *sseWriter) flush() error {
	if len(o.buf) == 0 {
		return nil
	}
	o.rc.SetWriteDeadline(time.Now().Add(streamWriteWait))
	_, err := o.w.Write(o.buf)
	o.buf = o.buf[:0]
	if cap(o.buf) > 64<<10 {
		o.buf = nil // one large burst need not be held for the stream's life
	}
	if err != nil {
		return err
	}
	return o.rc.Flush()
}

// publishRanking is the rankings' OnBuild: each new ranking of the current
// day, once (a rebuild that changed nothing keeps its updated_ms).
func (s *Server) publishRanking(e *ranking.Entry) {
	if e.Day != s.Rankings.CurrentDay() {
		return // a past day asked for: not news
	}
	key := e.Day.Compact() + "/" + strconv.FormatInt(e.Ranking.UpdatedMS, 10)
	s.streamMu.Lock()
	seen := s.lastRanking == key
	s.lastRanking = key
	s.streamMu.Unlock()
	if !seen {
		s.Stream.Publish(stream.Event{Topic: stream.Ranking, Data: e.Top(streamRankingTop).JSON})
	}
}

// publishMovements is the movements' OnEvents: the events of the sources
// the server's mode serves, each with its cursor as its id.
func (s *Server) publishMovements(events []market.MovementEvent) {
	for _, e := range events {
		if e.Source != board.Resolve(s.SourceMode, e.Kind) {
			continue
		}
		b, _ := json.Marshal(movement.RowOf(e))
		s.Stream.Publish(stream.Event{Topic: stream.Movement, ID: e.At.UnixMilli(), Data: b})
	}
}
