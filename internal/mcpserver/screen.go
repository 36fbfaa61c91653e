package mcpserver

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mdqs/internal/client"
)

type runScreenIn struct {
	Expression string   `json:"expression,omitempty" jsonschema:"A boolean expression over the fields of mdqs://screener (the language: && || ! == < > in, numbers like 5e7)" examples:"pct > 5 && amount > 1e8|price > ma20 && main_net > 5e7|\"人工智能\" in concepts && pct > 0"`
	Sort       string   `json:"sort,omitempty" jsonschema:"A numeric field to order by; - first for largest first" examples:"-pct|-main_net"`
	Limit      int      `json:"limit,omitempty" jsonschema:"Matches to return, 1-200" default:"50" min:"1" max:"200"`
	Market     string   `json:"market,omitempty" jsonschema:"Only this exchange" enum:"SH,SZ,BJ"`
	Block      string   `json:"block,omitempty" jsonschema:"Only the stocks of this industry or concept, e.g. 半导体"`
	Codes      []string `json:"codes,omitempty" jsonschema:"Only these codes" max:"200"`
	Date       string   `json:"date,omitempty" jsonschema:"Screen a past trading day's close (YYYY-MM-DD) instead of now; fields only today has are unknown then"`
	Wait       int      `json:"wait_seconds,omitempty" jsonschema:"How long to wait for the screen, 1-55 s" default:"30" min:"1" max:"55"`
	ID         string   `json:"id,omitempty" jsonschema:"A screen run before (its id from a result that timed out): fetch it instead of running expression"`
}

// run_screen asks how a screen does first after screenPollFirst, then
// twice as long each time up to screenPoll: a screen of the demo market
// takes milliseconds, of the whole market a second or two.
const (
	screenPollFirst = 5 * time.Millisecond
	screenPoll      = 200 * time.Millisecond
)

func (t *tools) addScreen(s *mcp.Server) {
	addTool(s, t, "run_screen",
		"Screen the whole market with an expression (the screener's language, resource mdqs://screener) and wait for the matching stocks, with the fields the expression uses. E.g. pct > 5 && turnover > 3.",
		func(ctx context.Context, t *tools, in runScreenIn) (*client.Response, shape, error) {
			limit := cmp.Or(in.Limit, 50)
			id := in.ID
			if id == "" {
				if in.Expression == "" {
					return nil, shape{}, fmt.Errorf("give expression (or the id of a screen run before)")
				}
				universe := map[string]any{}
				if in.Market != "" {
					universe["market"] = in.Market
				}
				if in.Block != "" {
					universe["block"] = in.Block
				}
				if len(in.Codes) > 0 {
					universe["codes"] = in.Codes
				}
				if in.Date != "" {
					universe["date"] = in.Date
				}
				body, _ := json.Marshal(map[string]any{"expression": in.Expression, "universe": universe, "sort": in.Sort, "limit": limit})
				resp, err := t.api.Do(ctx, "POST", "/v1/api/screener/queue/submit", body)
				if err != nil || resp.Status >= 400 {
					return resp, shape{}, err
				}
				var job struct {
					Data struct{ ID string } `json:"data"`
				}
				json.Unmarshal(resp.Body, &job)
				id = job.Data.ID
			}
			status, resp, err := t.waitScreen(ctx, id, time.Duration(cmp.Or(in.Wait, 30))*time.Second)
			if err != nil || resp.Status >= 400 {
				return resp, shape{}, err
			}
			switch status.State {
			case "succeeded":
			case "failed", "canceled", "cancelled":
				return nil, shape{}, fmt.Errorf("the screen %s %s: %s", id, status.State, status.Error)
			default:
				return nil, shape{}, fmt.Errorf("the screen %s is still %s after %d s (%d%% done): call run_screen with id %q to fetch it when done",
					id, status.State, cmp.Or(in.Wait, 30), status.Progress.Percent, id)
			}
			resp, err = get(ctx, t.api, "/v1/api/screener/queue/result", url.Values{"id": {id}, "page_size": {strconv.Itoa(limit)}})
			if err != nil || resp.Status >= 400 {
				return resp, shape{}, err
			}
			// The result names no time: the screen's end dates it, and
			// the screened fields are its columns.
			var res struct {
				Data map[string]json.RawMessage `json:"data"`
			}
			if err := json.Unmarshal(resp.Body, &res); err != nil {
				return nil, shape{}, err
			}
			var fields []string
			json.Unmarshal(res.Data["fields"], &fields)
			res.Data["screened_at"], _ = json.Marshal(status.Times.FinishedAt)
			res.Data["expression"], _ = json.Marshal(status.Expression)
			if in.Date != "" {
				res.Data["date"], _ = json.Marshal(in.Date)
			}
			resp.Body, _ = json.Marshal(map[string]any{"code": 1, "message": "OK", "data": res.Data})
			return resp, shape{rows: "items", limit: limit, asOf: []string{"date", "screened_at"}, units: screenUnits(fields),
				columns: append([]string{"code", "name"}, fields...), narrow: "tighten the expression, or raise limit (at most 200)"}, nil
		})
}

// screenStatus is what run_screen reads of a screen's state.
type screenStatus struct {
	State      string `json:"state"`
	Error      string `json:"error"`
	Expression string `json:"expression"`
	Progress   struct {
		Percent int `json:"percent"`
	} `json:"progress"`
	Times struct {
		FinishedAt string `json:"finished_at"`
	} `json:"times"`
}

// waitScreen asks for a screen's state until it has ended or wait has
// passed; a failure answer is returned as it came.
func (t *tools) waitScreen(ctx context.Context, id string, wait time.Duration) (screenStatus, *client.Response, error) {
	deadline := time.Now().Add(wait) // a wait in real time, whatever the market clock says
	pause := screenPollFirst
	for {
		resp, err := get(ctx, t.api, "/v1/api/screener/queue/status", url.Values{"id": {id}})
		if err != nil || resp.Status >= 400 {
			return screenStatus{}, resp, err
		}
		var st struct {
			Data screenStatus `json:"data"`
		}
		json.Unmarshal(resp.Body, &st)
		if st.Data.State != "queued" && st.Data.State != "running" || !time.Now().Add(pause).Before(deadline) {
			return st.Data, resp, nil
		}
		select {
		case <-ctx.Done():
			return screenStatus{}, nil, ctx.Err()
		case <-time.After(pause):
		}
		pause = min(2*pause, screenPoll)
	}
}

// screenUnits are the units of the screener's fields a result shows.
func screenUnits(fields []string) map[string]string {
	known := map[string]string{"price": "元", "open": "元", "high": "元", "low": "元", "prev_close": "元", "pct": "%", "volume": "股", "amount": "元",
		"turnover": "%", "amplitude": "%", "market_cap": "元", "float_cap": "元", "main_net": "元", "main_net_ratio": "%", "pct_5d": "%", "pct_20d": "%",
		"ma5": "元", "ma10": "元", "ma20": "元", "ma60": "元", "high_20": "元", "low_20": "元", "vol_ma5": "股", "vol_ma20": "股"}
	out := map[string]string{}
	for _, f := range fields {
		if u, ok := known[f]; ok {
			out[f] = u
		}
	}
	return out
}
