package api

import (
	"bytes"
	"cmp"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"mdqs/internal/market"
)

// CSV answers. An endpoint that answers a list (csvOf) answers it as CSV
// too, asked by format=csv or by an Accept header that prefers text/csv.
// The CSV is made from the JSON answer the handler wrote, in this one
// place, so it cannot drift from it: the same rows in the same order, a
// header row of the rows' JSON field names, every number as the JSON
// wrote it (its very digits), strings as they are, null as an empty
// cell, and a nested object or list as its JSON text in one cell. The
// scalars beside the rows (source, as_of, total, page, ...) become
// X-Mdqs-* headers. A failure is the JSON envelope with its status,
// whatever was asked: never half a CSV.

const csvType = "text/csv; charset=utf-8; header=present"

// utf8BOM makes Excel on Windows read the file as UTF-8: without it a
// Chinese Excel opens UTF-8 as GBK, and every name is mojibake.
const utf8BOM = "\xef\xbb\xbf"

// csvAsk is what a request asked of the answer's form.
type csvAsk struct {
	csv    bool
	format bool // format=csv asked it (else Accept, a preference)
	bom    bool // bom=1: for Excel on Windows
}

// askedForm reads format (json or csv) and bom through the one query
// helper, and the Accept header: format wins when given; else CSV is
// what Accept prefers to JSON (a tie, or */*, is JSON, the default).
func askedForm(r *http.Request) (csvAsk, error) {
	q := newQuery(r)
	format := q.oneOf("format", "", "", "json", "csv")
	var a csvAsk
	switch format {
	case "csv":
		a.csv, a.format = true, true
	case "":
		a.csv = prefersCSV(field(r, "Accept"))
	}
	if a.csv {
		a.bom = q.flag("bom")
	}
	return a, q.Err()
}

// prefersCSV reads an Accept header: text/csv with a quality above
// application/json's (and above */*'s, which JSON answers).
func prefersCSV(accept string) bool {
	if !strings.Contains(strings.ToLower(accept), "csv") {
		return false
	}
	var csvQ, jsonQ float64 = -1, -1
	for rest := accept; rest != ""; {
		var part string
		part, rest, _ = strings.Cut(rest, ",")
		media, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		qv := 1.0
		for p := range strings.SplitSeq(params, ";") {
			if v, ok := strings.CutPrefix(strings.TrimSpace(p), "q="); ok {
				if f, err := strconv.ParseFloat(v, 64); err == nil {
					qv = f
				}
			}
		}
		switch strings.ToLower(strings.TrimSpace(media)) {
		case "text/csv":
			csvQ = max(csvQ, qv)
		case "application/json", "application/*", "*/*":
			jsonQ = max(jsonQ, qv)
		}
	}
	return csvQ > 0 && csvQ > jsonQ
}

// mayAskForm is the cheap test every GET pays: only a request that names
// format, or whose Accept names csv, is read further.
func mayAskForm(r *http.Request) bool {
	accept := field(r, "Accept")
	return strings.Contains(r.URL.RawQuery, "format") || strings.Contains(accept, "csv") || strings.Contains(accept, "CSV")
}

// withForm wraps a GET route's handler: CSV where the route offers it,
// and a 400 for format=csv where it does not.
func (s *Server) withForm(path string, h handlerFunc) handlerFunc {
	spec, offered := csvOf(path)
	return func(w http.ResponseWriter, r *http.Request) error {
		if !mayAskForm(r) {
			return h(w, r)
		}
		ask, err := askedForm(r)
		if err != nil {
			return err
		}
		if !offered {
			if ask.format {
				return market.Errorf(market.KindInvalid, "format=csv: %s answers JSON only; CSV is offered on the endpoints that answer a list", path)
			}
			return h(w, r)
		}
		if !ask.csv {
			return h(w, r)
		}
		return s.answerCSV(w, r, h, path, spec, ask)
	}
}

// csvRecorder holds the handler's JSON answer until it is turned into
// CSV. Its header is the route's own, so what the handler sets (a stale
// ranking's X-Ranking-Stale) stays.
type csvRecorder struct {
	w      http.ResponseWriter // the route's writer
	status int
	body   bytes.Buffer
}

func (c *csvRecorder) Header() http.Header { return c.w.Header() }

func (c *csvRecorder) WriteHeader(status int) {
	if c.status == 0 {
		c.status = status
	}
}

func (c *csvRecorder) Write(b []byte) (int, error) {
	if c.status == 0 {
		c.status = http.StatusOK
	}
	return c.body.Write(b)
}

func (s *Server) answerCSV(w http.ResponseWriter, r *http.Request, h handlerFunc, path string, spec csvRows, ask csvAsk) error {
	// The JSON is read here, so it must come plain and whole: no gzip (the
	// ranking's), no 304 for the JSON's ETag.
	r = r.WithContext(r.Context())
	r.Header = r.Header.Clone()
	delete(r.Header, "Accept-Encoding")
	delete(r.Header, "If-None-Match")
	rec := &csvRecorder{w: w}
	if err := h(rec, r); err != nil {
		return err
	}
	hdr := w.Header()
	status := cmp.Or(rec.status, http.StatusOK)
	if status != http.StatusOK || !strings.HasPrefix(hdr.Get("Content-Type"), "application/json") {
		// A failure written by the handler itself, or no JSON: as it is.
		w.WriteHeader(status)
		w.Write(rec.body.Bytes())
		return nil
	}
	out, err := jsonToCSV(rec.body.Bytes(), spec, ask.bom, hdr, csvColumns()[path])
	if err != nil {
		return market.Wrap(market.KindInternal, err, "CSV of %s", path)
	}
	for _, k := range []string{"Etag", "Content-Encoding", "Vary"} {
		delete(hdr, k)
	}
	writeBytes(w, http.StatusOK, csvType, out)
	return nil
}

// jsonToCSV turns a JSON answer into CSV: spec's rows, the scalars of its
// meta object as headers on hdr. empty are the columns of an answer
// without rows (from the document), so that it still has its header row.
func jsonToCSV(body []byte, spec csvRows, bom bool, hdr http.Header, empty []string) ([]byte, error) {
	t, meta, err := rowsOf(body, spec, empty)
	if err != nil {
		return nil, err
	}
	if err := setMetaHeaders(hdr, meta, spec, t.sources()); err != nil {
		return nil, err
	}
	return t.write(bom)
}

// rowsOf is the table of spec's rows in a JSON answer, and the object
// whose scalars say the rest of the answer.
func rowsOf(body []byte, spec csvRows, empty []string) (*table, []byte, error) {
	root := body
	holder, err := member(root, spec.at)
	if err != nil {
		return nil, nil, err
	}
	meta := holder
	if spec.meta != "" {
		if meta, err = member(root, spec.meta); err != nil {
			return nil, nil, err
		}
	}
	t := &table{}
	multi := len(spec.rows) > 1
	if multi {
		t.col("list")
	}
	found := false
	for _, name := range spec.rows {
		list, err := member(holder, name)
		if err != nil {
			return nil, nil, err
		}
		if list == nil || bytes.Equal(list, []byte("null")) {
			continue
		}
		found = true
		if err := t.addList(list, name, multi); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	if !found && len(holder) > 0 && holder[0] == '{' {
		// One record where the list would be (GET /v1/api/alerts?id=): one row.
		if err := t.addList(append(append([]byte{'['}, holder...), ']'), "", false); err != nil {
			return nil, nil, err
		}
	}
	if len(t.rows) == 0 && len(t.cols) <= 1 {
		for _, c := range empty {
			t.col(c)
		}
	}
	return t, meta, nil
}

// member is the value at a dotted path of a JSON object ("" is the value
// itself); nil when absent.
func member(v []byte, path string) ([]byte, error) {
	for path != "" {
		var name string
		name, path, _ = strings.Cut(path, ".")
		if i := skipSpace(v, 0); i >= len(v) || v[i] != '{' {
			return nil, nil
		}
		var found []byte
		err := eachMember(v, func(k string, x []byte) error {
			if k == name && found == nil {
				found = x
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		v = found
	}
	return v, nil
}

// table is the CSV being built: the columns in the order first seen, and
// each row's cells by column.
type table struct {
	cols  []string
	index map[string]int
	rows  [][]csvCell
}

// csvCell is one value: its text, and whether it is a JSON string (which
// Excel might read as a formula).
type csvCell struct {
	text   string
	isText bool
	kind   byte // the JSON value's first byte: '"', 'n', 't', 'f', '{', '[', or a number's
}

func (t *table) col(name string) int {
	if i, ok := t.index[name]; ok {
		return i
	}
	if t.index == nil {
		t.index = map[string]int{}
	}
	t.index[name] = len(t.cols)
	t.cols = append(t.cols, name)
	return len(t.cols) - 1
}

// addList adds the rows of a JSON array: objects field by field, anything
// else as one column named after the list.
func (t *table) addList(list []byte, name string, named bool) error {
	return eachElement(list, func(raw []byte) error {
		row := make([]csvCell, 0, len(t.cols))
		set := func(i int, c csvCell) {
			for len(row) <= i {
				row = append(row, csvCell{})
			}
			row[i] = c
		}
		if named {
			set(t.col("list"), csvCell{text: name, isText: true, kind: '"'})
		}
		if raw[0] != '{' {
			c, err := cellOf(raw)
			if err != nil {
				return err
			}
			set(t.col(cmp.Or(name, "value")), c)
			t.rows = append(t.rows, row)
			return nil
		}
		err := eachMember(raw, func(key string, v []byte) error {
			c, err := cellOf(v)
			if err == nil {
				set(t.col(key), c)
			}
			return err
		})
		t.rows = append(t.rows, row)
		return err
	})
}

// cellOf is a JSON value as a cell: a string unquoted, a number as its
// digits, null empty, an object or a list as compact JSON.
func cellOf(v []byte) (csvCell, error) {
	if len(v) == 0 {
		return csvCell{kind: 'n'}, nil
	}
	switch v[0] {
	case '"':
		s, err := unquote(v)
		return csvCell{text: s, isText: true, kind: '"'}, err
	case 'n':
		return csvCell{kind: 'n'}, nil
	case '{', '[':
		var b bytes.Buffer
		err := json.Compact(&b, v)
		return csvCell{text: b.String(), kind: v[0]}, err
	}
	return csvCell{text: string(v), kind: v[0]}, nil
}

// sources are the distinct values of the rows' source column, sorted.
func (t *table) sources() []string {
	i, ok := t.index["source"]
	if !ok {
		return nil
	}
	var out []string
	for _, r := range t.rows {
		if i < len(r) && r[i].text != "" && !slices.Contains(out, r[i].text) {
			out = append(out, r[i].text)
		}
	}
	slices.Sort(out)
	return out
}

func (t *table) write(bom bool) ([]byte, error) {
	var b bytes.Buffer
	if bom {
		b.WriteString(utf8BOM)
	}
	cw := csv.NewWriter(&b)
	put := func(rec []string) error {
		if len(rec) == 1 && rec[0] == "" {
			// One empty cell would be an empty line, which CSV readers
			// skip: quoted, it stays a row.
			cw.Flush()
			b.WriteString("\"\"\n")
			return nil
		}
		return cw.Write(rec)
	}
	if err := put(t.cols); err != nil {
		return nil, err
	}
	rec := make([]string, len(t.cols))
	for _, r := range t.rows {
		for i := range rec {
			rec[i] = ""
			if i < len(r) {
				rec[i] = r[i].text
				if bom && r[i].isText {
					rec[i] = defuse(rec[i])
				}
			}
		}
		if err := put(rec); err != nil {
			return nil, err
		}
	}
	cw.Flush()
	return b.Bytes(), cw.Error()
}

// defuse keeps Excel from running a text cell as a formula (a news title
// or a name from an upstream starting with "="): in the Excel form
// (bom=1) such a cell starts with an apostrophe, which Excel shows as
// text and hides. Numbers are never touched: they are not text cells.
func defuse(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// asOfFields are, in order, what an answer says of its freshness when it
// has no as_of: X-Mdqs-As-Of is the first it has.
var asOfFields = []string{"as_of", "fetched_at", "imported_at", "updated_at", "realtime_as_of", "final_through", "updated_ms", "latest_imported"}

// setMetaHeaders writes the scalars of the meta object as X-Mdqs-<Name>
// headers (as_of: X-Mdqs-As-Of, page_size: X-Mdqs-Page-Size), with
// X-Mdqs-Source and X-Mdqs-As-Of made sure of (provenance).
func setMetaHeaders(hdr http.Header, meta []byte, spec csvRows, rowSources []string) error {
	scalars, err := provenance(meta, spec, rowSources)
	if err != nil {
		return err
	}
	for name, v := range scalars {
		hdr[metaHeader(name)] = []string{headerValue(v)}
	}
	return nil
}

// provenance is the scalars of the meta object by field name, with source
// and as_of made sure of where the answer says them in another way: the
// rows' sources; the first freshness field it has.
func provenance(meta []byte, spec csvRows, rowSources []string) (map[string]string, error) {
	scalars := map[string]string{}
	if len(meta) > 0 && meta[0] == '{' {
		err := eachMember(meta, func(name string, v []byte) error {
			if v[0] == '{' || v[0] == '[' || v[0] == 'n' || (spec.meta == "" && slices.Contains(spec.rows, name)) {
				return nil
			}
			c, err := cellOf(v)
			if err != nil {
				return err
			}
			scalars[name] = c.text
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if _, ok := scalars["source"]; !ok && len(rowSources) > 0 {
		scalars["source"] = strings.Join(rowSources, ",")
	}
	if _, ok := scalars["as_of"]; !ok {
		for _, f := range asOfFields {
			v, ok := scalars[f]
			if !ok {
				continue
			}
			if f == "updated_ms" {
				ms, err := strconv.ParseInt(v, 10, 64)
				if err != nil {
					continue
				}
				v = market.FormatTime(time.UnixMilli(ms))
			}
			scalars["as_of"] = v
			break
		}
	}
	return scalars, nil
}

// metaHeader is a field's header: as_of is X-Mdqs-As-Of.
func metaHeader(field string) string {
	parts := strings.Split(field, "_")
	for i, p := range parts {
		if p != "" {
			parts[i] = strings.ToUpper(p[:1]) + p[1:]
		}
	}
	return "X-Mdqs-" + strings.Join(parts, "-")
}

// headerValue keeps a header ASCII: a name in Chinese, or a note with a
// line break, is %-escaped UTF-8 (as in a URL), which every client can
// read back; % itself is escaped so that the escaping is undone exactly.
func headerValue(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '%' {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '%' {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}
