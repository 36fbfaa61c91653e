package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
)

// csvColumns are, by path, the columns of a CSV answer without rows, read
// from the document's schema of the rows in its order: an empty pool
// still has its header row, as pandas and Excel expect.
var csvColumns = sync.OnceValue(func() map[string][]string {
	doc, err := parseOrdered(openAPISource)
	if err != nil {
		panic("openapi: " + err.Error()) // embedded and tested: cannot happen
	}
	out := map[string][]string{}
	for _, path := range doc.at("paths").keys {
		spec, ok := csvOf(path)
		if !ok {
			continue
		}
		if cols, err := doc.rowColumns(path, spec); err == nil {
			out[path] = cols
		}
	}
	return out
})

// jnode is a JSON value whose objects keep their members' order.
type jnode struct {
	keys   []string // an object's members in order
	obj    map[string]*jnode
	items  []*jnode
	scalar any
}

func parseOrdered(b []byte) (*jnode, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return decodeNode(dec)
}

func decodeNode(dec *json.Decoder) (*jnode, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	n := &jnode{}
	switch tok {
	case json.Delim('{'):
		n.obj = map[string]*jnode{}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := decodeNode(dec)
			if err != nil {
				return nil, err
			}
			key := k.(string)
			n.keys = append(n.keys, key)
			n.obj[key] = v
		}
		_, err = dec.Token()
	case json.Delim('['):
		n.items = []*jnode{}
		for dec.More() {
			v, err := decodeNode(dec)
			if err != nil {
				return nil, err
			}
			n.items = append(n.items, v)
		}
		_, err = dec.Token()
	default:
		n.scalar = tok
	}
	return n, err
}

// at walks object members; nil where one is missing.
func (n *jnode) at(keys ...string) *jnode {
	for _, k := range keys {
		if n == nil || n.obj == nil {
			return nil
		}
		n = n.obj[k]
	}
	return n
}

func (n *jnode) str(key string) string {
	if v := n.at(key); v != nil {
		s, _ := v.scalar.(string)
		return s
	}
	return ""
}

// resolve follows a schema's $ref within the document.
func (doc *jnode) resolve(s *jnode) *jnode {
	for i := 0; s != nil && i < 10; i++ {
		ref := s.str("$ref")
		if ref == "" {
			return s
		}
		s = doc.at(strings.Split(strings.TrimPrefix(ref, "#/"), "/")...)
	}
	return s
}

// parts are a schema and the schemas it is made of (allOf, oneOf, anyOf),
// resolved.
func (doc *jnode) parts(s *jnode) []*jnode {
	s = doc.resolve(s)
	if s == nil {
		return nil
	}
	out := []*jnode{s}
	for _, k := range []string{"allOf", "oneOf", "anyOf"} {
		for _, x := range s.at(k).list() {
			out = append(out, doc.parts(x)...)
		}
	}
	return out
}

func (n *jnode) list() []*jnode {
	if n == nil {
		return nil
	}
	return n.items
}

// property is the schema of a schema's member name, through its parts:
// where several parts name it (the envelope's data and the operation's),
// all of them, as one allOf.
func (doc *jnode) property(s *jnode, name string) *jnode {
	var all []*jnode
	for _, p := range doc.parts(s) {
		if v := p.at("properties", name); v != nil {
			all = append(all, v)
		}
	}
	switch len(all) {
	case 0:
		return nil
	case 1:
		return doc.resolve(all[0])
	}
	return &jnode{keys: []string{"allOf"}, obj: map[string]*jnode{"allOf": {items: all}}}
}

// keyword is a keyword of a schema (type, items), through its parts.
func (doc *jnode) keyword(s *jnode, key string) *jnode {
	for _, p := range doc.parts(s) {
		if v := p.at(key); v != nil {
			return v
		}
	}
	return nil
}

// isList says a schema is an array.
func (doc *jnode) isList(s *jnode) bool {
	t := doc.keyword(s, "type")
	return t != nil && t.scalar == "array"
}

// propertyNames are a schema's members in the document's order, through
// its parts.
func (doc *jnode) propertyNames(s *jnode) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range doc.parts(s) {
		if props := p.at("properties"); props != nil {
			for _, k := range props.keys {
				if !seen[k] {
					seen[k] = true
					out = append(out, k)
				}
			}
		}
	}
	return out
}

// answerSchema is the JSON 200 answer's schema of GET path.
func (doc *jnode) answerSchema(path string) *jnode {
	return doc.resolve(doc.at("paths", path, "get", "responses", "200", "content", "application/json", "schema"))
}

// rowColumns are the columns of spec's rows in the answer of GET path: the
// members of its rows' schema (a list column first for several lists; the
// list's own name for a list of scalars). An error says the document does
// not have spec's rows as a list.
func (doc *jnode) rowColumns(path string, spec csvRows) ([]string, error) {
	holder := doc.answerSchema(path)
	if spec.at != "" {
		for _, k := range strings.Split(spec.at, ".") {
			holder = doc.property(holder, k)
		}
	}
	if holder == nil {
		return nil, fmt.Errorf("%s: no %q in the answer's schema", path, spec.at)
	}
	var cols []string
	seen := map[string]bool{}
	if len(spec.rows) > 1 {
		cols, seen["list"] = append(cols, "list"), true
	}
	for _, name := range spec.rows {
		list := doc.property(holder, name)
		if list == nil || !doc.isList(list) {
			return nil, fmt.Errorf("%s: %s.%s is not a list in the answer's schema", path, spec.at, name)
		}
		names := doc.propertyNames(doc.keyword(list, "items"))
		if len(names) == 0 {
			names = []string{name}
		}
		for _, c := range names {
			if !seen[c] {
				seen[c] = true
				cols = append(cols, c)
			}
		}
	}
	return cols, nil
}
