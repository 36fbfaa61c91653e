package db_test

import (
	"context"
	"math"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/market"
)

// A keyword is a substring, its % and _ are text: before, keyword=% or _
// matched every block and security.
func TestKeywordWildcardsAreText(t *testing.T) {
	s := dbtest.Open(t)
	ctx := context.Background()
	now := time.Date(2026, 11, 20, 16, 0, 0, 0, market.Shanghai())
	if err := s.UpsertStocks(ctx, []db.Stock{
		{Code: market.MustCode("600519.SH"), Name: "贵州茅台", Type: market.TypeStock, FloatShares: math.NaN(), Source: "tdx"},
		{Code: market.MustCode("000001.SZ"), Name: "平安银行", Type: market.TypeStock, FloatShares: math.NaN(), Source: "tdx"},
		{Code: market.MustCode("880006.SH"), Name: "停板家数_100%", Type: market.TypeStatistic, FloatShares: math.NaN(), Source: "tdx"},
	}, now); err != nil {
		t.Fatal(err)
	}
	if err := s.ReplaceBlocks(ctx, "tdx", []db.Block{
		{Kind: "industry", Name: "白酒", Members: []market.Code{market.MustCode("600519.SH")}},
		{Kind: "concept", Name: "A_股%龙头", Members: []market.Code{market.MustCode("000001.SZ")}},
	}, now); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		keyword        string
		stocks, blocks int
	}{
		{"%", 1, 1}, {"_", 1, 1}, {"100%", 1, 0}, {"a_", 0, 1}, {"茅台", 1, 0}, {"白酒", 0, 1}, {`\`, 0, 0}, {"600519", 1, 0},
	} {
		total, _, err := s.Stocks(ctx, db.StockQuery{Keyword: tt.keyword, Limit: 10})
		if err != nil || total != tt.stocks {
			t.Errorf("stocks %q: %d, %v; want %d", tt.keyword, total, err, tt.stocks)
		}
		blocks, err := s.Blocks(ctx, db.BlockQuery{Keyword: tt.keyword})
		if err != nil || len(blocks) != tt.blocks {
			t.Errorf("blocks %q: %d, %v; want %d", tt.keyword, len(blocks), err, tt.blocks)
		}
	}
}
