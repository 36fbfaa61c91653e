package export

import (
	"bufio"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"

	"mdqs/internal/market"
)

// The datasets other than bars (the rankings, the limit pools, the
// dragon-tiger list, index members) are exported from the API's own
// answers, one query a day: the rows an endpoint answers as CSV, with
// the columns its document names, and in front the day (and what else
// tells the day's queries apart, such as a pool's kind). Their fields
// are the JSON's by construction, and a day the store lacks is filled as
// the endpoint fills it.

// CellKind is what a JSON value was.
type CellKind uint8

const (
	Null CellKind = iota
	String
	Number
	Bool
	Nested // an object or a list, kept as its JSON text
)

// Cell is one value of an answer's row, as the JSON wrote it (a string
// unquoted).
type Cell struct {
	Text string
	Kind CellKind
}

// ColumnType is a column's type in a Parquet file.
type ColumnType uint8

const (
	TypeString ColumnType = iota
	TypeInt64
	TypeDouble
	TypeBool
	TypeJSON // an object or a list: its JSON text
	TypeDate // a day: DATE in Parquet, YYYY-MM-DD in CSV
)

// Column is a column of a dataset.
type Column struct {
	Name string
	Type ColumnType
}

// Page is one answer's rows: its columns by name, its rows' cells in that
// order, and the scalars beside the rows (source, as_of, ...).
type Page struct {
	Columns []string
	Rows    [][]Cell
	Meta    map[string]string
}

// Query is one answer of a dataset: the API target of a day, and the
// values of the columns the export puts before the answer's own.
type Query struct {
	Day    market.Day
	Target string   // e.g. /v1/api/limit_pool?date=2026-11-20&kind=up
	Lead   []string // the values of PagesRequest.Lead after trade_date
}

// PagesRequest is one export of a dataset answered by the API.
type PagesRequest struct {
	What    string
	Lead    []Column // the columns after trade_date that tell a day's queries apart (kind, list)
	Columns []Column // the answer's rows' columns, as its document names them
	Queries []Query
	Format  Format
	Out     string
	// Skip says which failures of a query leave its day out rather than
	// failing the export (a day without a list is a 404); nil: none.
	Skip func(error) bool
	// StoreOnly makes a query left out a MissingDaysError once all are
	// asked, and no file is written.
	StoreOnly bool
}

// MissingDaysError is a store-only page export's refusal: the queries the
// store could not answer alone.
type MissingDaysError struct {
	What    string
	Queries []Query
	Of      int
}

func (e *MissingDaysError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "the store alone cannot answer %d of the %d queries of %s:", len(e.Queries), e.Of, e.What)
	for i, q := range e.Queries {
		if i == 10 {
			fmt.Fprintf(&b, " and %d more", len(e.Queries)-i)
			break
		}
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, " %s", q.Target)
	}
	return b.String()
}

// PageDeps are a page export's collaborators.
type PageDeps struct {
	// Answer answers an API target in-process (api.Server.Page).
	Answer   func(ctx context.Context, target string) (Page, error)
	Clock    market.Clock
	Progress func(done, total, rows int)
	// Skipped hears of a query left out (PagesRequest.Skip).
	Skipped func(q Query, err error)
	Meta    Meta
}

// ExportPages writes a dataset answered by the API, a query at a time.
func ExportPages(ctx context.Context, d PageDeps, r PagesRequest) (Summary, error) {
	cols := append([]Column{{"trade_date", TypeDate}}, r.Lead...)
	cols = append(cols, r.Columns...)
	f, err := createAtomic(r.Out)
	if err != nil {
		return Summary{}, err
	}
	committed := false
	defer func() {
		if !committed {
			f.abort()
		}
	}()
	var w tableWriter
	if r.Format == Parquet {
		w, err = newParquetTable(f, cols)
	} else {
		w, err = newCSVTable(f, cols)
	}
	if err != nil {
		return Summary{}, err
	}
	var sum Summary
	var missing []Query
	days := map[market.Day]bool{}
	row := make([]Cell, len(cols))
	lead := 1 + len(r.Lead)
	for i, q := range r.Queries {
		if err := ctx.Err(); err != nil {
			return sum, err
		}
		page, err := d.Answer(ctx, q.Target)
		if err != nil {
			if r.Skip != nil && r.Skip(err) {
				if d.Skipped != nil {
					d.Skipped(q, err)
				}
				missing = append(missing, q)
				continue
			}
			return sum, fmt.Errorf("%s: %w", q.Target, err)
		}
		// Where each of the answer's columns goes; one the document does
		// not name is a bug of the document (the contract test holds it to
		// the answers), not something to drop silently.
		at := make([]int, len(page.Columns))
		for k, name := range page.Columns {
			j := slices.IndexFunc(cols[lead:], func(c Column) bool { return c.Name == name })
			if j < 0 {
				return sum, fmt.Errorf("%s answers a column %q its document does not name", q.Target, name)
			}
			at[k] = lead + j
		}
		for _, cells := range page.Rows {
			for k := range row {
				row[k] = Cell{}
			}
			row[0] = Cell{Text: q.Day.String(), Kind: String}
			for k, v := range q.Lead {
				row[1+k] = Cell{Text: v, Kind: String}
			}
			for k, c := range cells {
				row[at[k]] = c
			}
			if err := w.add(row); err != nil {
				return sum, err
			}
		}
		sum.Rows += len(page.Rows)
		if len(page.Rows) > 0 {
			days[q.Day] = true
			sum.day(q.Day)
		}
		sum.source(page.Meta["source"])
		if d.Progress != nil {
			d.Progress(i+1, len(r.Queries), sum.Rows)
		}
	}
	sum.Series = len(days)
	if r.StoreOnly && len(missing) > 0 {
		return sum, &MissingDaysError{What: r.What, Queries: missing, Of: len(r.Queries)}
	}
	meta := Meta{
		{"source", strings.Join(sum.Sources, ",")},
		{"as_of", market.FormatTime(d.Clock.Now())},
		{"what", r.What},
		{"from", dayText(sum.First)},
		{"to", dayText(sum.Last)},
		{"days", strconv.Itoa(sum.Series)},
		{"rows", strconv.Itoa(sum.Rows)},
	}
	if len(r.Queries) > 0 {
		meta.Set("api", strings.SplitN(r.Queries[0].Target, "?", 2)[0])
	}
	for _, kv := range d.Meta {
		meta.Set(kv.Key, kv.Value)
	}
	if err := w.finish(meta); err != nil {
		return sum, err
	}
	if err := f.commit(); err != nil {
		return sum, err
	}
	committed = true
	sum.Files, sum.Bytes = 1, fileSize(r.Out)
	return sum, nil
}

// tableWriter writes rows of cells of known columns.
type tableWriter interface {
	add(row []Cell) error
	finish(meta Meta) error
}

// csvTable writes cells as the JSON wrote them, null as nothing.
type csvTable struct {
	b   *bufio.Writer
	w   *csv.Writer
	rec []string
}

func newCSVTable(out io.Writer, cols []Column) (*csvTable, error) {
	b := bufio.NewWriterSize(out, 256<<10)
	t := &csvTable{b: b, w: csv.NewWriter(b), rec: make([]string, len(cols))}
	for i, c := range cols {
		t.rec[i] = c.Name
	}
	return t, t.w.Write(t.rec)
}

func (t *csvTable) add(row []Cell) error {
	for i, c := range row {
		t.rec[i] = c.Text
	}
	return t.w.Write(t.rec)
}

func (t *csvTable) finish(Meta) error {
	t.w.Flush()
	if err := t.w.Error(); err != nil {
		return err
	}
	return t.b.Flush()
}

// parquetTable writes cells as the columns' types; every column is
// optional (a JSON null is a null).
type parquetTable struct {
	w    *parquet.Writer
	cols []Column
	rows []parquet.Row
}

func newParquetTable(out io.Writer, cols []Column) (*parquetTable, error) {
	// A struct type made for the columns gives the schema their order
	// (parquet.Group would sort them by name).
	fields := make([]reflect.StructField, len(cols))
	for i, c := range cols {
		var typ reflect.Type
		tag := c.Name + ",optional"
		switch c.Type {
		case TypeInt64:
			typ = reflect.TypeFor[*int64]()
		case TypeDouble:
			typ = reflect.TypeFor[*float64]()
		case TypeBool:
			typ = reflect.TypeFor[*bool]()
		case TypeDate:
			typ, tag = reflect.TypeFor[*int32](), c.Name+",optional,date"
		case TypeJSON:
			typ = reflect.TypeFor[*string]()
		default:
			typ, tag = reflect.TypeFor[*string](), c.Name+",optional,dict"
		}
		fields[i] = reflect.StructField{Name: fmt.Sprintf("F%d", i), Type: typ, Tag: reflect.StructTag(`parquet:"` + tag + `"`)}
	}
	schema := parquet.SchemaOf(reflect.New(reflect.StructOf(fields)).Interface())
	w := parquet.NewWriter(out, schema, parquet.Compression(&zstd.Codec{Level: zstd.SpeedDefault}),
		parquet.MaxRowsPerRowGroup(rowGroupRows), parquet.CreatedBy("mdqs", "", ""))
	return &parquetTable{w: w, cols: cols}, nil
}

func (t *parquetTable) add(row []Cell) error {
	r := make(parquet.Row, len(row))
	for i, c := range row {
		v, err := t.value(i, c)
		if err != nil {
			return err
		}
		r[i] = v
	}
	t.rows = append(t.rows, r)
	if len(t.rows) == batchRows {
		return t.flush()
	}
	return nil
}

// value is a cell as its column's type, at its column.
func (t *parquetTable) value(i int, c Cell) (parquet.Value, error) {
	if c.Kind == Null {
		return parquet.NullValue().Level(0, 0, i), nil
	}
	var v parquet.Value
	switch t.cols[i].Type {
	case TypeInt64:
		n, err := strconv.ParseInt(c.Text, 10, 64)
		if err != nil {
			f, ferr := strconv.ParseFloat(c.Text, 64)
			if ferr != nil || f != float64(int64(f)) {
				return v, fmt.Errorf("column %s: %q is not an integer", t.cols[i].Name, c.Text)
			}
			n = int64(f)
		}
		v = parquet.Int64Value(n)
	case TypeDouble:
		f, err := strconv.ParseFloat(c.Text, 64)
		if err != nil {
			return v, fmt.Errorf("column %s: %q is not a number", t.cols[i].Name, c.Text)
		}
		v = parquet.DoubleValue(f)
	case TypeBool:
		v = parquet.BooleanValue(c.Text == "true")
	case TypeDate:
		d, err := market.ParseDay(c.Text)
		if err != nil {
			return v, fmt.Errorf("column %s: %v", t.cols[i].Name, err)
		}
		v = parquet.Int32Value(int32(d.EpochDays()))
	default:
		v = parquet.ByteArrayValue([]byte(c.Text))
	}
	return v.Level(0, 1, i), nil
}

func (t *parquetTable) flush() error {
	if len(t.rows) == 0 {
		return nil
	}
	_, err := t.w.WriteRows(t.rows)
	t.rows = t.rows[:0]
	return err
}

func (t *parquetTable) finish(meta Meta) error {
	if err := t.flush(); err != nil {
		return err
	}
	for _, kv := range meta {
		t.w.SetKeyValueMetadata(kv.Key, kv.Value)
	}
	return t.w.Close()
}
