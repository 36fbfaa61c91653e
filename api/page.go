package api

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"mdqs/internal/export"
	"mdqs/internal/market"
)

// Page answers a GET of an endpoint that answers a list, in-process, for
// mdqs export: the endpoint's own handler (so a day the store lacks is
// filled as the endpoint fills it), and its rows as its CSV form has
// them, with the scalars beside them (source, as_of made sure of). No
// HTTP and no signature: the command runs as the owner of the store it
// opened. A failure is the handler's error, its kind kept (a 404 is
// market.KindNotFound).
func (s *Server) Page(ctx context.Context, target string) (export.Page, error) {
	path, _, _ := strings.Cut(target, "?")
	spec, ok := csvOf(path)
	h := s.gets[path]
	if !ok || h == nil {
		return export.Page{}, fmt.Errorf("GET %s answers no list", path)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return export.Page{}, err
	}
	rec := &pageRecorder{header: http.Header{}}
	if err := h(rec, req); err != nil {
		return export.Page{}, err
	}
	if rec.status != http.StatusOK {
		return export.Page{}, market.Errorf(market.KindInternal, "GET %s: status %d: %.200s", target, rec.status, rec.body)
	}
	t, meta, err := rowsOf(rec.body, spec, nil)
	if err != nil {
		return export.Page{}, err
	}
	scalars, err := provenance(meta, spec, t.sources())
	if err != nil {
		return export.Page{}, err
	}
	p := export.Page{Columns: t.cols, Rows: make([][]export.Cell, len(t.rows)), Meta: scalars}
	for i, r := range t.rows {
		row := make([]export.Cell, len(t.cols))
		for k, c := range r {
			row[k] = export.Cell{Text: c.text, Kind: kindOf(c)}
		}
		p.Rows[i] = row
	}
	return p, nil
}

func kindOf(c csvCell) export.CellKind {
	switch c.kind {
	case 0, 'n':
		return export.Null
	case '"':
		return export.String
	case 't', 'f':
		return export.Bool
	case '{', '[':
		return export.Nested
	}
	return export.Number
}

// pageRecorder holds a handler's answer for Page.
type pageRecorder struct {
	header http.Header
	status int
	body   []byte
}

func (p *pageRecorder) Header() http.Header { return p.header }

func (p *pageRecorder) WriteHeader(status int) {
	if p.status == 0 {
		p.status = status
	}
}

func (p *pageRecorder) Write(b []byte) (int, error) {
	if p.status == 0 {
		p.status = http.StatusOK
	}
	p.body = append(p.body, b...)
	return len(b), nil
}

// PageColumns are the columns of the rows GET path answers, in its
// document's order, typed as the document types them: integer, number,
// boolean, string, or an object or a list (its JSON text).
func PageColumns(path string) ([]export.Column, error) {
	spec, ok := csvOf(path)
	if !ok {
		return nil, fmt.Errorf("GET %s answers no list", path)
	}
	doc, err := parseOrdered(openAPISource)
	if err != nil {
		return nil, err
	}
	holder := doc.answerSchema(path)
	if spec.at != "" {
		for _, k := range strings.Split(spec.at, ".") {
			holder = doc.property(holder, k)
		}
	}
	var cols []export.Column
	seen := map[string]bool{}
	if len(spec.rows) > 1 {
		cols, seen["list"] = append(cols, export.Column{Name: "list", Type: export.TypeString}), true
	}
	for _, name := range spec.rows {
		list := doc.property(holder, name)
		if list == nil || !doc.isList(list) {
			return nil, fmt.Errorf("GET %s: %s is not a list in its document", path, name)
		}
		items := doc.keyword(list, "items")
		for _, field := range doc.propertyNames(items) {
			if seen[field] {
				continue
			}
			seen[field] = true
			cols = append(cols, export.Column{Name: field, Type: columnType(doc, doc.property(items, field))})
		}
	}
	return cols, nil
}

// columnType is a field's type in a file, from its schema.
func columnType(doc *jnode, s *jnode) export.ColumnType {
	t := doc.keyword(s, "type")
	if t == nil {
		return export.TypeJSON
	}
	switch t.scalar {
	case "integer":
		return export.TypeInt64
	case "number":
		return export.TypeDouble
	case "boolean":
		return export.TypeBool
	case "string":
		return export.TypeString
	}
	return export.TypeJSON
}
