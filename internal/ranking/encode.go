package ranking

import (
	"bytes"
	"compress/gzip"
	"strconv"

	"mdqs/internal/market"
)

// Encoded is one rendering of a ranking, ready to write: the JSON and its
// gzip, made once when the ranking is built rather than on every request
// (per-request gzip of a 50 KB body is ~20x slower than writing bytes).
type Encoded struct {
	JSON []byte
	Gzip []byte
	ETag string
}

func encode(r *market.Ranking, top int) *Encoded {
	js := appendRanking(make([]byte, 0, 64*1024), r, top)
	var gz bytes.Buffer
	w, _ := gzip.NewWriterLevel(&gz, gzip.BestSpeed)
	w.Write(js)
	w.Close()
	return &Encoded{
		JSON: js,
		Gzip: gz.Bytes(),
		ETag: `"` + r.Day + "-" + strconv.FormatInt(r.UpdatedMS, 10) + "-" + strconv.Itoa(top) + `"`,
	}
}

// appendRanking writes the spec's object (4.3) with every list cut to top
// entries (0: all). Hand-written so that unknown values (NaN) become null,
// which encoding/json refuses to do, and so that a rebuild costs no
// reflection.
func appendRanking(b []byte, r *market.Ranking, top int) []byte {
	b = append(b, `{"ts":`...)
	b = strconv.AppendInt(b, r.TS, 10)
	b = append(b, `,"day":`...)
	b = market.AppendJSONString(b, r.Day)
	b = append(b, `,"source":`...)
	b = market.AppendJSONString(b, r.Source)
	b = append(b, `,"updated_ms":`...)
	b = strconv.AppendInt(b, r.UpdatedMS, 10)
	for _, lt := range market.ListTypes() {
		b = append(b, ',', '"')
		b = append(b, lt...)
		b = append(b, `":`...)
		b = appendList(b, r.List(lt), top)
	}
	return append(b, '}')
}

func appendList(b []byte, list []market.RankedSector, top int) []byte {
	if top > 0 && top < len(list) {
		list = list[:top]
	}
	b = append(b, '[')
	for i, e := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = e.AppendJSON(b)
	}
	return append(b, ']')
}
