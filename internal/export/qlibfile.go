package export

import (
	"bufio"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"mdqs/internal/market"
)

// The qlib layout: a folder of one CSV per code, named as qlib names its
// instruments (SH600519.csv; qlib's dump_bin takes the symbol from the
// file's name, case-insensitively), with the columns dump_bin dumps:
//
//	date,open,high,low,close,volume,amount,factor
//
// date is the trade day (a minute bar's end, "YYYY-MM-DD HH:MM:SS", for an
// intraday frequency). qlib's convention is adjusted prices with factor =
// adjusted price / original price, and volume adjusted the other way
// (volume / factor), so that price·volume stays the amount: with -adjust
// the prices are the terminal's 前复权/后复权, factor is the adjusted close
// over the stored close of that bar, and volume is the stored volume over
// factor; without it, factor is 1. The terminal's adjustment is affine
// (a cash dividend shifts prices), so one factor is exact for the close
// only: open, high and low are the terminal's own adjusted prices, not
// factor times the stored ones. Then:
//
//	python scripts/dump_bin.py dump_all --data_path FOLDER --qlib_dir ~/.qlib/qlib_data/mdqs --freq day
type qlibFolder struct {
	dir   string
	freq  market.Freq
	cur   *qlibFile
	files int
	bytes int64
	done  []string // committed files, removed if the export fails
	ok    bool
}

const qlibColumns = "date,open,high,low,close,volume,amount,factor\n"

func newQlibFolder(dir string, freq market.Freq) (*qlibFolder, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return &qlibFolder{dir: dir, freq: freq}, nil
}

// QlibName is a code's file name in qlib's layout: SH600519.csv.
func QlibName(code market.Code) string {
	return strings.ToUpper(string(code.Exchange)) + code.Symbol + ".csv"
}

func (q *qlibFolder) series(code market.Code) (barWriter, error) {
	f, err := createAtomic(filepath.Join(q.dir, QlibName(code)))
	if err != nil {
		return nil, err
	}
	w := bufio.NewWriterSize(f, 64<<10)
	if _, err := w.WriteString(qlibColumns); err != nil {
		f.abort()
		return nil, err
	}
	q.cur = &qlibFile{f: f, w: w, minute: q.freq != market.Daily}
	return q.cur, nil
}

// seriesDone commits the code's file; a code without a bar in the range
// gets none (dump_bin would warn of an empty frame).
func (q *qlibFolder) seriesDone(code market.Code, rows int) error {
	c := q.cur
	q.cur = nil
	if rows == 0 {
		c.f.abort()
		return nil
	}
	if err := c.w.Flush(); err != nil {
		c.f.abort()
		return err
	}
	if err := c.f.commit(); err != nil {
		return err
	}
	q.files++
	q.bytes += fileSize(c.f.path)
	q.done = append(q.done, c.f.path)
	return nil
}

// finish has nothing left to write: qlib's CSVs carry no metadata.
func (q *qlibFolder) finish(Meta) (int, int64, error) {
	q.ok = true
	return q.files, q.bytes, nil
}

func (q *qlibFolder) abort() {
	if q.cur != nil {
		q.cur.f.abort()
	}
	if !q.ok {
		for _, p := range q.done {
			os.Remove(p)
		}
	}
}

// qlibFile is one code's CSV.
type qlibFile struct {
	f        *atomicFile
	w        *bufio.Writer
	minute   bool
	rawClose float64 // the stored close of the bar being added
	buf      []byte
}

func (q *qlibFile) add(_ string, b *market.Bar, _ string) error {
	factor := 1.0
	if q.rawClose > 0 && b.Close != q.rawClose {
		factor = b.Close / q.rawClose
	}
	p := q.buf[:0]
	if q.minute {
		p = market.AppendTime(p, b.TS)
	} else {
		p = b.Day.AppendTo(p)
	}
	for _, v := range [...]float64{b.Open, b.High, b.Low, b.Close} {
		p = appendCSVFloat(append(p, ','), v)
	}
	p = append(p, ',')
	if factor == 1 {
		p = strconv.AppendInt(p, b.Volume, 10)
	} else {
		p = strconv.AppendFloat(p, float64(b.Volume)/factor, 'f', -1, 64)
	}
	p = appendCSVFloat(append(p, ','), b.Amount)
	p = append(p, ',')
	if math.IsNaN(factor) || math.IsInf(factor, 0) {
		factor = 1
	}
	p = strconv.AppendFloat(p, factor, 'f', -1, 64)
	p = append(p, '\n')
	q.buf = p
	_, err := q.w.Write(p)
	return err
}

func (q *qlibFile) finish(Meta) error { return q.w.Flush() }
