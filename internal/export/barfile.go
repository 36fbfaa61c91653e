package export

import (
	"bufio"
	"io"
	"math"
	"strconv"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"

	"mdqs/internal/market"
)

// BarRow is one bar as the files hold it: the K-line row's JSON field
// names (GET /v1/api/kline) with the code in front and the row's source
// behind, since a file holds many series, each from where it came.
//
// Types keep what the store holds: the prices are doubles (the store's
// integer ten-thousandths of a yuan, each the double whose shortest
// decimal is that price, which is what the JSON writes); trade_date is a
// DATE; ts is the bar's end as an instant (a TIMESTAMP adjusted to UTC,
// milliseconds: 15:00 Asia/Shanghai for a daily bar, 07:00Z); volume is an
// int64 (shares); turnover_rate and large_order_net are null where the
// source gives none.
type BarRow struct {
	Code          string   `parquet:"code,dict"`
	TradeDate     int32    `parquet:"trade_date,date"`
	TS            int64    `parquet:"ts,timestamp(millisecond)"`
	Open          float64  `parquet:"open,dict"`
	High          float64  `parquet:"high,dict"`
	Low           float64  `parquet:"low,dict"`
	Close         float64  `parquet:"close,dict"`
	Volume        int64    `parquet:"volume,delta"`
	Amount        float64  `parquet:"amount,split"`
	TurnoverRate  *float64 `parquet:"turnover_rate,optional,dict"`
	LargeOrderNet *float64 `parquet:"large_order_net,optional,split"`
	Source        string   `parquet:"source,dict"`
}

// barColumns are BarRow's columns in order: the CSV's header row.
var barColumns = []string{"code", "trade_date", "ts", "open", "high", "low", "close", "volume", "amount", "turnover_rate", "large_order_net", "source"}

// barWriter writes bars to one file, a row at a time.
type barWriter interface {
	add(code string, b *market.Bar, source string) error
	// finish completes the file with its provenance (the Parquet
	// footer's key-value metadata; CSV has nowhere to put it).
	finish(meta Meta) error
}

// csvBars writes BarRows as CSV: the header row, then each bar with its
// numbers as the JSON writes them (market.AppendJSONFloat: the shortest
// decimal, never float noise), ts as the JSON's epoch seconds, trade_date
// as YYYY-MM-DD, an unknown value as an empty cell.
type csvBars struct {
	w   *bufio.Writer
	buf []byte
}

func newCSVBars(w io.Writer) (*csvBars, error) {
	c := &csvBars{w: bufio.NewWriterSize(w, 1<<20)}
	for i, name := range barColumns {
		if i > 0 {
			c.buf = append(c.buf, ',')
		}
		c.buf = append(c.buf, name...)
	}
	c.buf = append(c.buf, '\n')
	_, err := c.w.Write(c.buf)
	return c, err
}

func (c *csvBars) add(code string, b *market.Bar, source string) error {
	p := c.buf[:0]
	p = append(p, code...)
	p = append(p, ',')
	p = b.Day.AppendTo(p)
	p = append(p, ',')
	p = strconv.AppendInt(p, b.TS, 10)
	for _, v := range [...]float64{b.Open, b.High, b.Low, b.Close} {
		p = appendCSVFloat(append(p, ','), v)
	}
	p = strconv.AppendInt(append(p, ','), b.Volume, 10)
	p = appendCSVFloat(append(p, ','), b.Amount)
	p = appendCSVFloat(append(p, ','), b.TurnoverRate)
	p = appendCSVFloat(append(p, ','), b.LargeOrderNet)
	p = append(p, ',')
	p = appendCSVText(p, source)
	p = append(p, '\n')
	c.buf = p
	_, err := c.w.Write(p)
	return err
}

func (c *csvBars) finish(Meta) error { return c.w.Flush() }

// appendCSVFloat writes v as the JSON does, an unknown value (NaN, the
// JSON's null) as nothing.
func appendCSVFloat(b []byte, v float64) []byte {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return b
	}
	return market.AppendJSONFloat(b, v)
}

// appendCSVText writes a text cell, quoted when it holds a comma, a quote
// or a line break (RFC 4180).
func appendCSVText(b []byte, s string) []byte {
	plain := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == ',' || c == '"' || c == '\n' || c == '\r' {
			plain = false
			break
		}
	}
	if plain {
		return append(b, s...)
	}
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			b = append(b, '"')
		}
		b = append(b, s[i])
	}
	return append(b, '"')
}

// rowGroupRows bounds a Parquet row group: the writer holds one group's
// pages until it is flushed, so this is what bounds its memory on a whole
// market (a quarter of a million bars, a few MB compressed), while DuckDB
// still gets a handful of groups to read in parallel.
const rowGroupRows = 128 << 10

// batchRows are the rows handed to the Parquet writer at once.
const batchRows = 8192

// parquetBars writes BarRows as Parquet, zstd-compressed.
type parquetBars struct {
	w     *parquet.GenericWriter[BarRow]
	batch []BarRow
	// opt holds the batch's optional values, so that a row's pointers
	// cost no allocation.
	opt   []float64
	group int
}

func newParquetBars(w io.Writer) *parquetBars {
	pw := parquet.NewGenericWriter[BarRow](w,
		parquet.Compression(&zstd.Codec{Level: zstd.SpeedDefault}),
		parquet.MaxRowsPerRowGroup(rowGroupRows),
		parquet.CreatedBy("mdqs", "", ""),
	)
	return &parquetBars{w: pw, batch: make([]BarRow, 0, batchRows), opt: make([]float64, 0, 2*batchRows)}
}

func (p *parquetBars) add(code string, b *market.Bar, source string) error {
	r := BarRow{Code: code, TradeDate: int32(b.Day.EpochDays()), TS: b.TS * 1000,
		Open: b.Open, High: b.High, Low: b.Low, Close: b.Close, Volume: b.Volume, Amount: b.Amount, Source: source}
	if market.IsKnown(b.TurnoverRate) {
		p.opt = append(p.opt, b.TurnoverRate)
		r.TurnoverRate = &p.opt[len(p.opt)-1]
	}
	if market.IsKnown(b.LargeOrderNet) {
		p.opt = append(p.opt, b.LargeOrderNet)
		r.LargeOrderNet = &p.opt[len(p.opt)-1]
	}
	p.batch = append(p.batch, r)
	if len(p.batch) == batchRows {
		return p.flush()
	}
	return nil
}

func (p *parquetBars) flush() error {
	if len(p.batch) == 0 {
		return nil
	}
	if _, err := p.w.Write(p.batch); err != nil {
		return err
	}
	p.group += len(p.batch)
	p.batch, p.opt = p.batch[:0], p.opt[:0]
	if p.group >= rowGroupRows {
		p.group = 0
		return p.w.Flush()
	}
	return nil
}

func (p *parquetBars) finish(meta Meta) error {
	if err := p.flush(); err != nil {
		return err
	}
	for _, kv := range meta {
		p.w.SetKeyValueMetadata(kv.Key, kv.Value)
	}
	return p.w.Close()
}
