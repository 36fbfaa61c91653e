package mcpserver

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkShape is what the tools add to an API answer on the server:
// the Result of a real 122-bar K-line answer of the demo (32 KB), its text
// table, and the tool result's JSON as the SDK writes it.
//
//	go test -run '^$' -bench Shape -benchmem ./internal/mcpserver
func BenchmarkShape(b *testing.B) {
	body, err := os.ReadFile("testdata/kline-600519-120.json")
	if err != nil {
		b.Fatal(err)
	}
	sh := shape{rows: "rows", limit: 120, tail: true, asOf: []string{"realtime_as_of", "final_through"}, units: barUnits,
		columns: []string{"trade_date", "open", "high", "low", "close", "pct", "volume", "amount", "turnover_rate", "ma5"}}
	b.Run("result", func(b *testing.B) {
		for b.Loop() {
			if _, err := sh.result(body, t0); err != nil {
				b.Fatal(err)
			}
		}
	})
	res, _ := sh.result(body, t0)
	b.Run("table", func(b *testing.B) {
		for b.Loop() {
			res.table("kline", sh)
		}
	})
	b.Run("json", func(b *testing.B) {
		for b.Loop() {
			out, _ := res.encode()
			r := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: res.table("kline", sh)}}, StructuredContent: json.RawMessage(out)}
			if _, err := json.Marshal(r); err != nil {
				b.Fatal(err)
			}
		}
	})
}
