// Package stream fans live events (new rankings, sector movements, quotes,
// alerts) out to subscribers, the streams of GET /v1/api/stream. It knows
// no HTTP: the API writes what a Sub yields as Server-Sent Events.
//
// Memory is bounded whatever the subscribers do: each has a queue of at
// most Config.Queue events, and one that lets it fill is dropped with a
// final resync event instead of making the publisher wait or the queue
// grow. Event data is shared, never copied per subscriber.
//
// Resuming: the movement topic is resumed from the movement store (its
// ids are the events endpoint's cursor, see Position); the other topics
// from a small ring of their recent events, or with a resync event when
// the ring no longer holds what was missed.
package stream

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"mdqs/internal/market"
)

// Topic names a kind of event; it is also the SSE event name.
type Topic string

const (
	Ranking  Topic = "ranking"  // each new ranking build of the current day
	Movement Topic = "movement" // each new sector movement event
	Quote    Topic = "quote"    // a security whose quote changed at a refresh
	Alert    Topic = "alert"    // a standing alert's match
)

// Topics lists every topic.
func Topics() []Topic { return []Topic{Ranking, Movement, Quote, Alert} }

// The names of the events a stream ends or catches up with.
const (
	TypeResync = "resync" // events were missed: refetch the state of Data's topics
	TypeEnd    = "end"    // the server ends the stream; Data says why
)

// Event is one published event.
//
// ID orders a topic's events. For Movement the publisher sets it to the
// event's cursor, the event_ms the movement events endpoint returns as
// next_since (unique and increasing within a day), so that a stream can be
// resumed from the store. For the other topics Publish sets it from the
// hub's sequence, shared by every topic so ids compare across them.
type Event struct {
	Topic Topic
	ID    int64
	Type  string // the SSE event name; "" means the topic
	Data  []byte // one JSON value
	// Codes are the securities a quote or alert concerns; a subscription
	// with codes gets only the events that name one of them.
	Codes []market.Code
	// Client, when set, is the only client whose streams get the event:
	// an alert is its owner's business alone.
	Client string
}

// Name is the SSE event name.
func (e Event) Name() string {
	if e.Type != "" {
		return e.Type
	}
	return string(e.Topic)
}

// QuoteEvent is the event the quote refresh publishes for one code whose
// quote changed; data is its JSON, {"code":"600519.SH","last":1523.5,
// "pct":1.2,"as_of":"2026-11-23 10:00:03"} and whatever else the quote
// endpoint's item carries.
func QuoteEvent(code market.Code, data []byte) Event {
	return Event{Topic: Quote, Data: data, Codes: []market.Code{code}}
}

// Position is how far a stream has read, and the SSE id of each event it
// sends: "<movement>-<seq>", where movement is the movement cursor (the
// events endpoint's next_since; 0 when the stream has none) and seq the
// hub sequence of the last event of the other topics. Both only grow on a
// stream, so a later id never compares below an earlier one. A bare number
// is taken as a movement cursor, so a client can hand over a next_since.
type Position struct {
	Movement int64
	Seq      int64
}

func (p Position) String() string {
	return strconv.FormatInt(p.Movement, 10) + "-" + strconv.FormatInt(p.Seq, 10)
}

// ParsePosition reads an SSE id written by Position.String.
func ParsePosition(s string) (Position, error) {
	m, q, dash := strings.Cut(strings.TrimSpace(s), "-")
	var p Position
	var err error
	if p.Movement, err = strconv.ParseInt(m, 10, 64); err != nil || p.Movement < 0 {
		return Position{}, fmt.Errorf("event id %q: want <movement cursor>-<sequence>, e.g. 1795400460000-1795399200000001", s)
	}
	if dash {
		if p.Seq, err = strconv.ParseInt(q, 10, 64); err != nil || p.Seq < 0 {
			return Position{}, fmt.Errorf("event id %q: want <movement cursor>-<sequence>, e.g. 1795400460000-1795399200000001", s)
		}
	}
	return p, nil
}

// Errors of Subscribe.
var (
	ErrTooMany = errors.New("too many open streams")
	ErrClosed  = errors.New("the server is shutting down")
)

// Config bounds the hub. Only MaxPerClient is a setting
// (stream.max_per_client): how many streams one client may hold is the
// operator's call. Queue, Ring and Heartbeat keep their defaults in
// serve, and only tests change them, because nothing about a deployment
// makes other values better. The queue is the slack between two of a
// stream's writes (each write sends everything queued): 256 holds a whole
// quote refresh for a stream (one event per code, at most 100 codes) and
// the other topics' events beside it, so a larger queue would only delay
// dropping a client that stopped reading, at a memory cost per stream. A
// ring only decides whether a resumed stream gets a replay or a resync,
// after which the client refetches the state with one request: either
// way it ends up right. The heartbeat is when a stream checks its token
// and a proxy sees traffic, well inside the usual 60 s idle timeouts.
type Config struct {
	Clock market.Clock
	// Queue is each subscriber's queue, in events (default 256).
	Queue int
	// Ring is how many recent events of each of ranking, quote and alert
	// are kept for resuming (default 128).
	Ring int
	// MaxPerClient caps a client's open streams (default 5;
	// stream.max_per_client).
	MaxPerClient int
	// Heartbeat is the interval of the streams' heartbeat comment, at
	// which they also check that their token is still good (default 15 s).
	Heartbeat time.Duration
}

func (c *Config) defaults() {
	if c.Clock == nil {
		c.Clock = market.SystemClock{}
	}
	if c.Queue <= 0 {
		c.Queue = 256
	}
	if c.Ring <= 0 {
		c.Ring = 128
	}
	if c.MaxPerClient <= 0 {
		c.MaxPerClient = 5
	}
	if c.Heartbeat <= 0 {
		c.Heartbeat = 15 * time.Second
	}
}

// Relay carries a team's events to every instance (package relay): once
// set, Publish hands each event to it instead of fanning it out, and the
// relay hands every instance's copy back through Deliver, so every hub
// holds the same events with the same ids.
type Relay interface{ Send(Event) }

// Hub is the publishers' and subscribers' meeting point.
type Hub struct {
	cfg   Config
	relay Relay // set before serving, then only read

	mu      sync.Mutex
	seq     int64
	rings   map[Topic]*ring
	subs    map[*Sub]struct{}
	clients map[string]int
	closed  bool
}

// ring is a topic's recent events. Every event after known is in it:
// known is the last event it let go of, or the hub's sequence when it
// started (what came before belongs to an earlier process).
type ring struct {
	events []Event
	known  int64
}

func NewHub(cfg Config) *Hub {
	cfg.defaults()
	h := &Hub{cfg: cfg, rings: map[Topic]*ring{}, subs: map[*Sub]struct{}{}, clients: map[string]int{}}
	// The sequence starts at the clock's microseconds, so ids keep growing
	// across a restart and an id of the previous process is recognised as
	// older than this one's ring.
	h.seq = cfg.Clock.Now().UnixMicro()
	for _, t := range []Topic{Ranking, Quote, Alert} {
		h.rings[t] = &ring{known: h.seq}
	}
	return h
}

// Config is the hub's configuration, defaults filled in.
func (h *Hub) Config() Config { return h.cfg }

// SetRelay makes Publish hand every event to r; call it before the hub
// serves.
func (h *Hub) SetRelay(r Relay) { h.relay = r }

// Publish hands an event to every subscriber whose filter takes it and
// returns it with its ID. It never waits for a subscriber. With a relay
// set, the relay gets the event instead (its ID is the relay's to give)
// and Publish returns it as given.
func (h *Hub) Publish(ev Event) Event {
	if h.relay != nil {
		h.relay.Send(ev)
		return ev
	}
	return h.PublishLocal(ev)
}

// PublishLocal is Publish on this hub alone, whatever the relay: the
// relay's fallback while Redis is away.
func (h *Hub) PublishLocal(ev Event) Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return ev
	}
	if _, ok := h.rings[ev.Topic]; ok {
		// A hybrid clock: unique, increasing, and ahead of any id an
		// earlier process gave out while the host's clock moves forward.
		h.seq = h.next()
		ev.ID = h.seq
	}
	h.fanOut(ev)
	return ev
}

// Next is the id the next local event would get: the relay's candidate
// for the id of the event it adds.
func (h *Hub) Next() int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.next()
}

func (h *Hub) next() int64 { return max(h.seq+1, h.cfg.Clock.Now().UnixMicro()) }

// Deliver fans out an event the relay read back, keeping its ID: every
// instance's hub gives it the id the publisher's relay gave it, so a
// Last-Event-ID of one instance resumes on another. The hub's sequence
// rises to the id, so a stream's position never goes back.
func (h *Hub) Deliver(ev Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	if _, ok := h.rings[ev.Topic]; ok {
		h.seq = max(h.seq, ev.ID)
	}
	h.fanOut(ev)
}

// fanOut keeps a ring topic's event for resuming and queues ev for every
// subscriber that takes it; h.mu is held.
func (h *Hub) fanOut(ev Event) {
	if r, ok := h.rings[ev.Topic]; ok {
		if len(r.events) == h.cfg.Ring {
			r.known = r.events[0].ID
			r.events[0] = Event{}
			r.events = r.events[1:]
		}
		r.events = append(r.events, ev)
	}
	for s := range h.subs {
		if s.takes(ev) {
			s.push(ev)
		}
	}
}

// Restore fills the rings with the relay's recent events (oldest first,
// ids increasing) and sets the sequence to seq, the id of the last event
// the relay holds (0: none), before the hub serves: a restarted instance
// resumes the streams of the others. What came before the first event is
// unknown, so a resume from before it is a resync.
func (h *Hub) Restore(events []Event, seq int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.seq = seq
	known := seq
	if len(events) > 0 {
		known = events[0].ID - 1
	}
	for _, r := range h.rings {
		r.events, r.known = nil, known
	}
	for _, ev := range events {
		if _, ok := h.rings[ev.Topic]; ok {
			h.fanOut(ev)
		}
	}
}

// Gap says that events were lost between the last one delivered and the
// next, whose id is next (the relay lost Redis and what it held, or the
// leader published to its own streams alone): every open subscription
// gets a resync event naming its topics, and a resume from before next is
// a resync too, whether its id is this hub's or one of the lost events'
// (a client of the leader moving over).
func (h *Hub) Gap(reason string, next int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	// A position from before the gap is older than every ring's known.
	h.seq = max(h.seq+1, next-1)
	for _, r := range h.rings {
		r.known = h.seq
	}
	for s := range h.subs {
		s.push(Event{Type: TypeResync, Data: resyncData(s.filter.Topics, reason, false)})
	}
}

// WantedCodes are the codes the open subscriptions to t (quotes, alerts)
// ask for: a team's relay carries only the quotes some stream wants.
func (h *Hub) WantedCodes(t Topic) []market.Code {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []market.Code
	for s := range h.subs {
		if !slices.Contains(s.filter.Topics, t) {
			continue
		}
		for _, c := range s.filter.Codes {
			if !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	return out
}

// Wants says whether an open subscription takes topic: a publisher whose
// events cost an upstream call (the quote refresh) asks first, so nobody
// listening costs nothing.
func (h *Hub) Wants(t Topic) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs {
		if slices.Contains(s.filter.Topics, t) {
			return true
		}
	}
	return false
}

// Subscribers is the number of open subscriptions.
func (h *Hub) Subscribers() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}

// Filter selects a subscription's events.
type Filter struct {
	Topics []Topic
	// Codes, when given, keep only the quotes and alerts of these codes.
	Codes []market.Code
	// Resume, when set, asks for the ranking, quote and alert events
	// after Resume.Seq (the movement topic is resumed by the caller from
	// the store).
	Resume *Position
}

func (f Filter) takes(ev Event) bool {
	if !slices.Contains(f.Topics, ev.Topic) {
		return false
	}
	if len(f.Codes) == 0 || (ev.Topic != Quote && ev.Topic != Alert) {
		return true
	}
	for _, c := range ev.Codes {
		if slices.Contains(f.Codes, c) {
			return true
		}
	}
	return false
}

// takes says whether the subscription gets ev: its filter takes it, and
// it is nobody's or this client's.
func (s *Sub) takes(ev Event) bool {
	return (ev.Client == "" || ev.Client == s.client) && s.filter.takes(ev)
}

// Subscribe opens a subscription for client, ended when ctx is done or by
// Close. Its first events are those Filter.Resume asks for, or one resync
// event naming the topics whose missed events are no longer kept.
func (h *Hub) Subscribe(ctx context.Context, f Filter, client string) (*Sub, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, ErrClosed
	}
	if h.clients[client] >= h.cfg.MaxPerClient {
		return nil, fmt.Errorf("%w: client %s has %d, the most it may", ErrTooMany, client, h.clients[client])
	}
	s := &Sub{hub: h, filter: f, client: client, cap: h.cfg.Queue, ready: make(chan struct{}, 1), Start: h.seq}
	if f.Resume != nil {
		if h.replay(s, f.Resume.Seq) {
			s.Start = f.Resume.Seq
		}
		if len(s.queue) > 0 {
			s.signal()
		}
	}
	h.subs[s] = struct{}{}
	h.clients[client]++
	s.mu.Lock()
	s.stop = context.AfterFunc(ctx, s.Close)
	s.mu.Unlock()
	return s, nil
}

// replay queues the kept events after seq, or a resync naming the topics
// whose missed events are gone (or, from an id this hub never gave out,
// every ring topic asked for); resumed is false after a resync.
func (h *Hub) replay(s *Sub, seq int64) (resumed bool) {
	var events []Event
	var lost []Topic
	for _, t := range s.filter.Topics {
		r, ok := h.rings[t]
		if !ok {
			continue
		}
		if seq < r.known || seq > h.seq {
			lost = append(lost, t)
			continue
		}
		for _, ev := range r.events {
			if ev.ID > seq && s.takes(ev) {
				events = append(events, ev)
			}
		}
	}
	if len(events) > s.cap/2 {
		// More than a fresh start costs: resync rather than begin half full.
		for _, t := range s.filter.Topics {
			if _, ok := h.rings[t]; ok && !slices.Contains(lost, t) {
				lost = append(lost, t)
			}
		}
		events = nil
	}
	if len(lost) > 0 {
		s.queue = append(s.queue, Event{Type: TypeResync, Data: resyncData(lost, "the events after the given id are no longer kept", false)})
	}
	slices.SortFunc(events, func(a, b Event) int { return cmp.Compare(a.ID, b.ID) })
	s.queue = append(s.queue, events...)
	return len(lost) == 0
}

// Close ends every subscription with an end event saying the server is
// shutting down; later subscriptions are refused.
func (h *Hub) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for s := range h.subs {
		s.end(Event{Type: TypeEnd, Data: []byte(`{"reason":"shutdown","detail":"the server is shutting down"}`)}, true)
		h.remove(s)
	}
}

// remove forgets a subscriber; h.mu is held.
func (h *Hub) remove(s *Sub) {
	if _, ok := h.subs[s]; !ok {
		return
	}
	delete(h.subs, s)
	if h.clients[s.client]--; h.clients[s.client] <= 0 {
		delete(h.clients, s.client)
	}
}

func resyncData(topics []Topic, reason string, final bool) []byte {
	names := make([]string, len(topics))
	for i, t := range topics {
		names[i] = strconv.Quote(string(t))
	}
	return []byte(`{"topics":[` + strings.Join(names, ",") + `],"reason":` + strconv.Quote(reason) +
		`,"final":` + strconv.FormatBool(final) + `}`)
}

// Sub is one subscription. Its events are read with Ready and Poll by one
// goroutine.
type Sub struct {
	hub    *Hub
	filter Filter
	client string
	cap    int
	stop   func() bool // s.mu
	// Start is the sequence the subscription stands at when it opens:
	// Filter.Resume's when that resumed, else the hub's (what a resync
	// tells the client to refetch is the state as of then).
	Start int64

	ready chan struct{}

	mu    sync.Mutex
	queue []Event
	final *Event // the last event, once the subscription is ended
	ended bool   // final was handed out
	high  int    // the longest the queue has been

	pending []Event // taken from queue, owned by the reader
}

// push queues an event, or ends a subscriber whose queue is full; h.mu is
// held.
func (s *Sub) push(ev Event) {
	s.mu.Lock()
	if s.final != nil || s.ended {
		s.mu.Unlock()
		return
	}
	if len(s.queue) >= s.cap {
		s.mu.Unlock()
		s.end(Event{Type: TypeResync, Data: resyncData(s.filter.Topics,
			fmt.Sprintf("the stream fell %d events behind and was dropped: reconnect with Last-Event-ID, or refetch", s.cap), true)}, true)
		s.hub.remove(s)
		return
	}
	s.queue = append(s.queue, ev)
	s.high = max(s.high, len(s.queue))
	s.mu.Unlock()
	s.signal()
}

// end makes ev the subscription's last event; drop discards what is
// queued, so a dropped subscriber holds no more than its final event.
func (s *Sub) end(ev Event, drop bool) {
	s.mu.Lock()
	if s.final == nil && !s.ended {
		s.final = &ev
		if drop {
			s.queue = nil
		}
	}
	s.mu.Unlock()
	s.signal()
}

func (s *Sub) signal() {
	select {
	case s.ready <- struct{}{}:
	default:
	}
}

// Ready is signalled when Poll has something.
func (s *Sub) Ready() <-chan struct{} { return s.ready }

// Poll takes the next event, if there is one. After the final event (an
// end or a slow consumer's resync) Ended is true and Poll has no more.
func (s *Sub) Poll() (Event, bool) {
	if len(s.pending) == 0 {
		s.mu.Lock()
		s.pending, s.queue = s.queue, nil
		if len(s.pending) == 0 && s.final != nil {
			ev := *s.final
			s.final, s.ended = nil, true
			s.mu.Unlock()
			return ev, true
		}
		s.mu.Unlock()
	}
	if len(s.pending) == 0 {
		return Event{}, false
	}
	ev := s.pending[0]
	s.pending[0] = Event{}
	s.pending = s.pending[1:]
	if len(s.pending) == 0 {
		s.pending = nil
	}
	return ev, true
}

// Ended reports whether Poll has handed out the final event.
func (s *Sub) Ended() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ended
}

// Queued is the number of events waiting in the queue (not counting those
// Poll already took), and HighWater the most there have been.
func (s *Sub) Queued() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

func (s *Sub) HighWater() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.high
}

// Close ends the subscription; it may be called more than once.
func (s *Sub) Close() {
	s.mu.Lock()
	stop := s.stop
	s.queue = nil
	s.mu.Unlock()
	if stop != nil {
		stop()
	}
	s.hub.mu.Lock()
	s.hub.remove(s)
	s.hub.mu.Unlock()
}
