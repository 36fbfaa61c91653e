package upstream

import (
	"bytes"
	"encoding/json"
	"math"
)

// The EastMoney data centre (datacenter-web) answers every report, the
// financial reports and the dragon-tiger list alike, in one envelope.

// SourceDataCenter names EastMoney's data centre (datacenter-web) in errors
// and Status.
const SourceDataCenter = "datacenter"

const (
	dataCenterPath = "/api/data/v1/get"
	// dataCenterEmpty is the code of "返回数据为空": a query that matched no
	// rows, an answer rather than a failure.
	dataCenterEmpty = 9201
)

// dataCenterRows opens the data centre's envelope {"version","result":
// {"pages","data":[…],"count"},"success","message","code"}: the rows and
// the page count. Code 9201 ("返回数据为空", HTTP 200 with success:false
// and result:null) is no rows; any other non-zero code is an RC error with
// the data centre's message (9501 "报表配置不存在,<report>").
func dataCenterRows(body []byte, chk *check) ([]map[string]json.RawMessage, int, error) {
	var env struct {
		Result  json.RawMessage `json:"result"`
		Success json.RawMessage `json:"success"`
		Message json.RawMessage `json:"message"`
		Code    json.RawMessage `json:"code"`
	}
	if err := decodeJSON(body, &env); err != nil {
		return nil, 0, err
	}
	if len(env.Code) == 0 && len(env.Success) == 0 {
		return nil, 0, schemaErr("code", "neither code nor success in the reply")
	}
	if len(env.Code) > 0 {
		v, st := numOf(env.Code)
		if st != ok || v != math.Trunc(v) || math.Abs(v) > 1e9 {
			return nil, 0, schemaErr("code", "not a status code: %s", clip(string(env.Code), 20))
		}
		switch {
		case v == dataCenterEmpty:
			return nil, 0, nil
		case v != 0:
			msg, _ := strOf(env.Message)
			return nil, 0, &Error{Kind: KindRC, RC: int(v), Detail: clip(msg, 120)}
		}
	} else if string(bytes.TrimSpace(env.Success)) != "true" {
		msg, _ := strOf(env.Message)
		return nil, 0, &Error{Kind: KindRC, RC: -1, Detail: clip(msg, 120)}
	}
	if isNull(env.Result) {
		return nil, 0, nil
	}
	var res struct {
		Pages json.RawMessage `json:"pages"`
		Data  json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(env.Result, &res); err != nil {
		return nil, 0, schemaErr("result", "not an object")
	}
	if res.Data == nil {
		return nil, 0, schemaErr("result.data", "missing")
	}
	objs, err := objects(res.Data, "result.data")
	if err != nil {
		return nil, 0, err
	}
	pages := 1
	if p, st := numOf(res.Pages); st == ok && p >= 0 && p == math.Trunc(p) && p < 1e6 {
		pages = int(p)
	} else {
		chk.note("result.pages", "absent or not a count")
	}
	return objs, pages, nil
}
