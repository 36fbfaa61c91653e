package relay

import (
	"slices"
	"strconv"
	"strings"

	"mdqs/internal/market"
	"mdqs/internal/sharedstate"
	"mdqs/internal/stream"
)

// relayed is an event read back, with what its entry says of its sending.
type relayed struct {
	stream.Event
	from string // the instance that published it
	gap  bool   // it published to its own hub alone before this one
}

// The fields of an entry: t topic, y SSE name when not the topic's, m the
// movement cursor (a movement's id), d data, c codes (comma-separated),
// k the only client, i the instance, g "1" after local-only events.
func encode(ev stream.Event, instance string, gap bool) map[string]string {
	f := map[string]string{"t": string(ev.Topic), "d": string(ev.Data), "i": instance}
	if ev.Type != "" {
		f["y"] = ev.Type
	}
	if ev.Topic == stream.Movement {
		f["m"] = strconv.FormatInt(ev.ID, 10)
	}
	if len(ev.Codes) > 0 {
		s := make([]string, len(ev.Codes))
		for i, c := range ev.Codes {
			s[i] = c.String()
		}
		f["c"] = strings.Join(s, ",")
	}
	if ev.Client != "" {
		f["k"] = ev.Client
	}
	if gap {
		f["g"] = "1"
	}
	return f
}

// decode is the event of an entry; ok is false for one this version does
// not know (a newer instance's topic), which is skipped.
func decode(e sharedstate.Entry) (relayed, bool) {
	f := e.Fields
	ev := stream.Event{Topic: stream.Topic(f["t"]), ID: e.ID, Type: f["y"], Data: []byte(f["d"]), Client: f["k"]}
	out := relayed{from: f["i"], gap: f["g"] == "1"}
	if !slices.Contains(stream.Topics(), ev.Topic) {
		return out, false
	}
	if ev.Topic == stream.Movement {
		m, err := strconv.ParseInt(f["m"], 10, 64)
		if err != nil {
			return out, false
		}
		ev.ID = m
	}
	if c := f["c"]; c != "" {
		for s := range strings.SplitSeq(c, ",") {
			if code, err := market.ParseCode(s); err == nil {
				ev.Codes = append(ev.Codes, code)
			}
		}
	}
	out.Event = ev
	return out, true
}
