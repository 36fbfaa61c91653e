package upstream

import (
	"encoding/json"
	"math"
)

// envelope is the wrapper of every push2/push2his reply:
// {"rc":0,"rt":6,"svr":…,"lt":1,"full":1,"dlmkts":"","data":{…}}. Only rc and
// data matter; the rest varies by year and endpoint.
type envelope struct {
	RC   json.RawMessage `json:"rc"`
	Data json.RawMessage `json:"data"`
}

// openEnvelope returns data (nil for null) or the rc error. A missing rc is
// accepted: recorded replies abridged to {"data":…} must still parse, and rc
// carries no information when data is there.
func openEnvelope(body []byte) (json.RawMessage, error) {
	var env envelope
	if err := decodeJSON(body, &env); err != nil {
		return nil, err
	}
	if len(env.RC) > 0 {
		rc, st := numOf(env.RC)
		if st != ok || rc != math.Trunc(rc) || math.Abs(rc) > 1e9 {
			return nil, schemaErr("rc", "not an integer: %s", clip(string(env.RC), 20))
		}
		if rc != 0 {
			e := &Error{Kind: KindRC, RC: int(rc)}
			if rc == 100 {
				e.Detail = "no data (unknown secid, or nothing for this request)"
			}
			return nil, e
		}
	}
	if isNull(env.Data) {
		return nil, nil
	}
	return env.Data, nil
}

// clistPage is one page of push2 api/qt/clist/get.
type clistPage struct {
	total int
	rows  []map[string]json.RawMessage
	null  bool // data was null: past the last page, or nothing at all
}

func decodeClist(body []byte) (clistPage, error) {
	data, err := openEnvelope(body)
	if err != nil {
		return clistPage{}, err
	}
	if data == nil {
		return clistPage{null: true}, nil
	}
	var d struct {
		Total json.RawMessage `json:"total"`
		Diff  json.RawMessage `json:"diff"`
	}
	if err := json.Unmarshal(data, &d); err != nil {
		return clistPage{}, schemaErr("data", "not an object")
	}
	total, st := numOf(d.Total)
	switch {
	case st == absent:
		return clistPage{}, schemaErr("data.total", "missing")
	case st != ok || total < 0 || total != math.Trunc(total) || total > 1e7:
		return clistPage{}, schemaErr("data.total", "not a row count: %s", clip(string(d.Total), 20))
	}
	rows, err := objects(d.Diff, "data.diff")
	if err != nil {
		return clistPage{}, err
	}
	return clistPage{total: int(total), rows: rows}, nil
}
